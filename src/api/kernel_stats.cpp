#include "api/kernel_stats.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <set>

namespace croq {

const char* image_source_name(ImageSource source) {
  switch (source) {
    case ImageSource::memory: return "memory";
    case ImageSource::disk: return "disk";
    case ImageSource::remote: return "remote";
    case ImageSource::compiled: return "compiled";
  }
  return "unknown";
}

void KernelStats::add(SpecializationStats s) {
  switch (s.source) {
    case ImageSource::memory: ++memory; break;
    case ImageSource::disk: ++disk; break;
    case ImageSource::remote: ++remote; break;
    case ImageSource::compiled: ++compiled; break;
  }
  nvrtc_compiles += static_cast<std::size_t>(s.images_compiled);
  compile_ms += s.compile_ms;
  specializations.push_back(std::move(s));
}

}  // namespace croq

namespace croq::detail {
namespace {

// Differences beyond this many are counted, not listed.
constexpr std::size_t kMaxListedDifferences = 6;

std::string argument_text(const abi::ArgSignature& a) {
  if (!a.is_tensor) return a.is_stream ? "stream" : a.is_integer ? "int" : "float";
  std::string s = std::string(dtype_name(a.dtype)) + " [";
  for (std::size_t i = 0; i < a.shape.size(); ++i)
    s += (i ? ", " : "") + (a.shape[i] < 0 ? std::string("?") : std::to_string(a.shape[i]));
  s += "]";
  if (a.align_bytes < 16) s += " (aligned to " + std::to_string(a.align_bytes) + " bytes)";
  return s;
}

std::string define_text(const DefineValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, std::get<double>(v)).ptr;  // shortest exact text
  return std::string(buf, end);
}

std::string names_text(const std::vector<std::string>& names) {
  std::string s = "{";
  for (std::size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s + "}";
}

// The dim's name as the parameter declares it (" (M)"), when it is a name.
std::string dim_name(const frontend::ast::Function& fn, std::size_t arg, std::size_t dim) {
  if (arg >= fn.params.size() || dim >= fn.params[arg].type.shape.size()) return "";
  const auto* name = std::get_if<frontend::ast::Name>(&fn.params[arg].type.shape[dim]->node);
  return name ? " (" + name->name + ")" : "";
}

void argument_differences(const frontend::ast::Function& fn, std::size_t i, const abi::ArgSignature& now,
                          const abi::ArgSignature& then, std::vector<std::string>& out) {
  std::string who = "argument " + std::to_string(i + 1);
  if (i < fn.params.size() && !fn.params[i].name.empty()) who += " '" + fn.params[i].name + "'";
  const bool same_kind = now.is_tensor == then.is_tensor && now.is_integer == then.is_integer &&
                         now.is_stream == then.is_stream && (!now.is_tensor || now.shape.size() == then.shape.size());
  if (!same_kind) {
    out.push_back(who + " changed from " + argument_text(then) + " to " + argument_text(now));
    return;
  }
  if (!now.is_tensor) return;
  if (now.dtype != then.dtype)
    out.push_back(who + " dtype changed from " + std::string(dtype_name(then.dtype)) + " to " +
                  std::string(dtype_name(now.dtype)));
  for (std::size_t d = 0; d < now.shape.size(); ++d)
    if (now.shape[d] != then.shape[d])
      out.push_back(who + " dim " + std::to_string(d) + dim_name(fn, i, d) + " changed from " +
                    std::to_string(then.shape[d]) + " to " + std::to_string(now.shape[d]));
  if (now.align_bytes != then.align_bytes)
    out.push_back(who + " pointer alignment changed from " + std::to_string(then.align_bytes) + " to " +
                  std::to_string(now.align_bytes) + " bytes");
}

std::vector<std::string> differences(const frontend::ast::Function& fn, const SpecializationRecord& now,
                                     const SpecializationRecord& then) {
  std::vector<std::string> out;
  if (now.arch != then.arch) out.push_back("arch changed from " + then.arch + " to " + now.arch);
  std::set<std::string> names;
  for (const auto& [name, v] : now.defines) names.insert(name);
  for (const auto& [name, v] : then.defines) names.insert(name);
  for (const std::string& name : names) {
    auto a = now.defines.find(name), b = then.defines.find(name);
    if (b == then.defines.end()) out.push_back("define " + name + " added (= " + a->second + ")");
    else if (a == now.defines.end()) out.push_back("define " + name + " removed (was " + b->second + ")");
    else if (a->second != b->second) out.push_back("define " + name + " changed from " + b->second + " to " + a->second);
  }
  if (now.debug_line_info != then.debug_line_info)
    out.push_back(std::string("debug_line_info changed from ") + (then.debug_line_info ? "true" : "false") + " to " +
                  (now.debug_line_info ? "true" : "false"));
  if (now.dynamic_dims != then.dynamic_dims)
    out.push_back("dynamic dims changed from " + names_text(then.dynamic_dims) + " to " + names_text(now.dynamic_dims));
  const std::size_t common = std::min(now.signature.size(), then.signature.size());
  for (std::size_t i = 0; i < common; ++i) argument_differences(fn, i, now.signature[i], then.signature[i], out);
  if (now.signature.size() != then.signature.size())
    out.push_back("the call has " + std::to_string(now.signature.size()) + " arguments, not " +
                  std::to_string(then.signature.size()));
  return out;
}

std::string join(const std::vector<std::string>& items, const char* separator, std::size_t max_items) {
  std::string s;
  for (std::size_t i = 0; i < items.size() && i < max_items; ++i) s += (i ? separator : "") + items[i];
  if (items.size() > max_items) s += std::string(separator) + "and " + std::to_string(items.size() - max_items) + " more";
  return s;
}

}  // namespace

std::map<std::string, std::string> define_values(const frontend::ast::Program& program) {
  std::map<std::string, std::string> values;
  for (const auto& [name, d] : program.defines)
    if (!d.function_like) values[name] = d.value ? define_text(*d.value) : d.text;
  return values;
}

std::string signature_text(const std::vector<abi::ArgSignature>& signature) {
  std::string s;
  for (std::size_t i = 0; i < signature.size(); ++i) s += (i ? ", " : "") + argument_text(signature[i]);
  return s;
}

std::string difference_reason(const frontend::ast::Function& function, const SpecializationRecord& now,
                              const std::vector<SpecializationRecord>& earlier) {
  if (earlier.empty()) return "first call of `" + function.name + "`";
  std::vector<std::string> nearest;
  bool found = false;
  for (const SpecializationRecord& then : earlier) {  // oldest first: a later tie wins
    std::vector<std::string> d = differences(function, now, then);
    if (!found || d.size() <= nearest.size()) nearest = std::move(d);
    found = true;
  }
  if (nearest.empty()) return "the same signature as an earlier specialization, whose images this process no longer had";
  return join(nearest, ", ", kMaxListedDifferences);
}

std::string compile_reason(const std::string& differences, const std::vector<std::string>& notes) {
  std::vector<std::string> parts{differences};
  for (const std::string& n : notes)
    if (!n.empty() && std::find(parts.begin(), parts.end(), n) == parts.end()) parts.push_back(n);
  return join(parts, "; ", parts.size());
}

ImageSource image_source_of(jit::CacheSource source) {
  switch (source) {
    case jit::CacheSource::memory: return ImageSource::memory;
    case jit::CacheSource::disk: return ImageSource::disk;
    case jit::CacheSource::remote: return ImageSource::remote;
    case jit::CacheSource::compiled: break;
  }
  return ImageSource::compiled;
}

SpecializationStats specialization_stats(const SpecializationRecord& record, const std::vector<jit::JitLookup>& lookups,
                                         const std::string& differences, double specialize_ms) {
  SpecializationStats s;
  s.signature = signature_text(record.signature);
  s.arch = record.arch;
  s.specialize_ms = specialize_ms;
  s.images = static_cast<int>(lookups.size());
  bool disk = false, remote = false;
  std::vector<std::string> notes;
  for (const jit::JitLookup& l : lookups) {
    disk = disk || l.source == jit::CacheSource::disk;
    remote = remote || l.source == jit::CacheSource::remote;
    if (l.source != jit::CacheSource::compiled) continue;
    ++s.images_compiled;
    s.compile_ms += l.compile_ms;
    notes.insert(notes.end(), l.notes.begin(), l.notes.end());
  }
  s.source = s.images_compiled > 0 ? ImageSource::compiled
             : remote              ? ImageSource::remote
             : disk                ? ImageSource::disk
                                   : ImageSource::memory;
  if (s.source == ImageSource::compiled) s.reason = compile_reason(differences, notes);
  return s;
}

std::string explain_line(const std::string& function, const SpecializationStats& s) {
  std::string line = "`" + function + "`(" + s.signature + ") for " + s.arch + ": " + image_source_name(s.source);
  if (s.source != ImageSource::compiled) return line;
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", s.compile_ms);
  return line + " in " + ms + " ms (" + s.reason + ")";
}

SpecializationHistory& SpecializationHistory::global() {
  static SpecializationHistory history;
  return history;
}

std::vector<SpecializationRecord> SpecializationHistory::of(const std::string& function_key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = records_.find(function_key);
  return it == records_.end() ? std::vector<SpecializationRecord>{} : it->second;
}

void SpecializationHistory::add(const std::string& function_key, SpecializationRecord record) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& records = records_[function_key];
  if (records.size() >= kMaxPerFunction) records.erase(records.begin());
  records.push_back(std::move(record));
}

}  // namespace croq::detail
