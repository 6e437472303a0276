#include "jit/cache_metadata.hpp"

#include <cmath>
#include <array>
#include <cctype>
#include <limits>

#include "jit/nvrtc_compiler.hpp"

namespace croq::jit {
namespace {

using nlohmann::json;

// The writer nests three levels (object, launch, grid); a deeper text is
// refused before nlohmann sees it, so no input recurses deeply anywhere.
constexpr int kMaxNesting = 8;
constexpr std::size_t kMaxStringBytes = 4096;
constexpr std::size_t kMaxFlags = 64;

bool is_hex(std::string_view s, std::size_t digits) {
  return s.size() == digits && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

bool is_symbol(std::string_view s) {
  if (s.empty() || s.size() > kMaxStringBytes) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// Reads typed fields of one JSON object, keeping the first problem.
class FieldReader {
 public:
  FieldReader(const json& object, std::string where) : object_(object), where_(std::move(where)) {}

  const std::string& problem() const { return problem_; }
  bool ok() const { return problem_.empty(); }

  // The field, or nullptr when absent (a problem when required).
  const json* find(const char* name, bool required) {
    if (!ok()) return nullptr;
    auto it = object_.find(name);
    if (it != object_.end()) return &*it;
    if (required) fail(name, "is missing");
    return nullptr;
  }

  void string(const char* name, std::string& out, bool required) {
    const json* v = find(name, required);
    if (!v) return;
    if (!v->is_string()) return fail(name, "is not a string");
    const auto& s = v->get_ref<const std::string&>();
    if (s.size() > kMaxStringBytes) return fail(name, "is too long");
    out = s;
  }

  void unsigned_int(const char* name, std::uint64_t& out, std::uint64_t max, bool required) {
    const json* v = find(name, required);
    if (!v) return;
    if (!v->is_number_unsigned()) return fail(name, "is not a non-negative integer");
    const auto n = v->get<std::uint64_t>();
    if (n > max) return fail(name, "is out of range");
    out = n;
  }

  void unsigned_triple(const char* name, std::array<unsigned, 3>& out, bool required) {
    const json* v = find(name, required);
    if (!v) return;
    if (!v->is_array() || v->size() != 3) return fail(name, "is not an array of 3 integers");
    for (std::size_t i = 0; i < 3; ++i) {
      const json& e = (*v)[i];
      if (!e.is_number_unsigned() || e.get<std::uint64_t>() > std::numeric_limits<unsigned>::max())
        return fail(name, "is not an array of 3 integers");
      out[i] = static_cast<unsigned>(e.get<std::uint64_t>());
    }
  }

  void fail(const char* name, const std::string& what) {
    if (ok()) problem_ = "metadata field `" + where_ + name + "` " + what;
  }

 private:
  const json& object_;
  std::string where_;
  std::string problem_;
};

std::string read_launch(const json& value, LaunchConfig& launch) {
  if (!value.is_object()) return "metadata field `launch` is not an object";
  FieldReader r(value, "launch.");
  r.unsigned_triple("grid", launch.grid, true);
  r.unsigned_triple("block", launch.block, true);
  std::uint64_t shared = 0;
  r.unsigned_int("shared_bytes", shared, std::numeric_limits<unsigned>::max(), true);
  launch.shared_bytes = static_cast<unsigned>(shared);
  r.unsigned_triple("cluster", launch.cluster, false);
  if (const json* v = r.find("cooperative", false)) {
    if (!v->is_boolean()) r.fail("cooperative", "is not a boolean");
    else launch.cooperative = v->get<bool>();
  }
  if (const json* v = r.find("programmatic", false)) {
    if (!v->is_boolean()) r.fail("programmatic", "is not a boolean");
    else launch.programmatic = v->get<bool>();
  }
  return r.problem();
}

std::string read_resources(const json& value, ResourceUsage& usage) {
  if (!value.is_object()) return "metadata field `resource_usage` is not an object";
  FieldReader r(value, "resource_usage.");
  std::uint64_t registers = 0, barriers = 0;
  constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 40;
  r.unsigned_int("registers", registers, 65536, true);
  r.unsigned_int("barriers", barriers, 65536, false);
  r.unsigned_int("stack_frame_bytes", usage.stack_frame_bytes, kMaxBytes, true);
  r.unsigned_int("stack_bytes", usage.stack_bytes, kMaxBytes, true);
  r.unsigned_int("spill_store_bytes", usage.spill_store_bytes, kMaxBytes, true);
  r.unsigned_int("spill_load_bytes", usage.spill_load_bytes, kMaxBytes, true);
  r.unsigned_int("shared_bytes", usage.shared_bytes, kMaxBytes, true);
  r.unsigned_int("constant_bytes", usage.constant_bytes, kMaxBytes, false);
  usage.registers = static_cast<int>(registers);
  usage.barriers = static_cast<int>(barriers);
  return r.problem();
}

// `*other_version`: the problem is that another version of the library
// wrote the metadata (a format this one does not read).
std::string read_fields(const json& j, CacheMetadata& m, bool* other_version) {
  if (!j.is_object()) return "metadata is not a JSON object";
  FieldReader r(j, "");
  if (const json* v = r.find("format_version", true)) {
    if (!v->is_number_integer()) {
      r.fail("format_version", "is not an integer");
    } else if (v->get<std::int64_t>() != kCacheFormatVersion) {
      *other_version = true;
      return "made by another version of libcroqjit (cache format " + std::to_string(v->get<std::int64_t>()) +
             "; this one reads " + std::to_string(kCacheFormatVersion) + ")";
    }
  }
  r.string("key", m.key, true);
  if (r.ok() && !is_cache_key(m.key)) r.fail("key", "is not a cache key");
  r.string("entry", m.entry, true);
  if (r.ok() && !is_symbol(m.entry)) r.fail("entry", "is not a symbol name");
  r.string("name_expression", m.name_expression, false);
  // Written only when it differs from the symbol (a C++ name expression).
  if (r.ok() && !m.name_expression.empty() && m.name_expression == m.entry)
    r.fail("name_expression", "repeats `entry`");
  r.string("arch", m.arch, true);
  if (r.ok() && !is_well_formed_arch(m.arch)) r.fail("arch", "is not an architecture name");
  std::string image = "cubin";
  r.string("image", image, false);
  r.unsigned_int("cubin_bytes", m.cubin_bytes, kMaxImageBytes, true);
  r.string("cubin_xxh3_64", m.cubin_xxh3_64, true);
  if (r.ok() && !is_hex(m.cubin_xxh3_64, 16)) r.fail("cubin_xxh3_64", "is not a 64-bit hex checksum");
  r.string("source_name", m.source_name, false);
  r.string("nvrtc_version", m.nvrtc_version, false);
  r.string("created", m.created, false);
  r.string("croq_source_xxh3_128", m.croq_source_xxh3_128, false);
  r.string("library_build", m.library_build, false);
  if (const json* v = r.find("compile_ms", false)) {
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < 0)
      r.fail("compile_ms", "is not a duration");
    else m.compile_ms = v->get<double>();
  }
  if (const json* v = r.find("nvrtc_flags", false)) {
    if (!v->is_array() || v->size() > kMaxFlags) r.fail("nvrtc_flags", "is not an array of strings");
    for (std::size_t i = 0; r.ok() && i < v->size(); ++i) {
      const json& flag = (*v)[i];
      if (!flag.is_string() || flag.get_ref<const std::string&>().size() > kMaxStringBytes)
        r.fail("nvrtc_flags", "is not an array of strings");
      else m.nvrtc_flags.push_back(flag.get<std::string>());
    }
  }
  if (const json* v = r.find("launch", false)) {
    LaunchConfig launch;
    if (std::string why = read_launch(*v, launch); !why.empty()) return why;
    m.launch = launch;
  }
  if (const json* v = r.find("resource_usage", false)) {
    ResourceUsage usage;
    if (std::string why = read_resources(*v, usage); !why.empty()) return why;
    m.resources = usage;
  }
  if (!r.ok()) return r.problem();
  // The image is a cubin unless the metadata says PTX; a PTX image belongs
  // to a virtual arch (compute_XY) and a cubin to a real one.
  if (image != "cubin" && image != "ptx") return "unknown image kind `" + image + "`";
  m.image_is_ptx = image == "ptx";
  if (m.image_is_ptx != is_virtual_arch(m.arch))
    return "image kind `" + image + "` does not match architecture `" + m.arch + "`";
  return {};
}

}  // namespace

bool is_cache_key(std::string_view s) { return is_hex(s, 32); }

namespace {

// `text` with every byte that is not part of valid UTF-8 replaced by U+FFFD,
// as nlohmann's serializer does when asked to (JSON text must be UTF-8).
std::string valid_utf8(const std::string& text) {
  const std::string quoted = json(text).dump(-1, ' ', false, json::error_handler_t::replace);
  return json::parse(quoted).get<std::string>();
}

}  // namespace

json CacheMetadata::to_json() const {
  json j{{"format_version", kCacheFormatVersion},
         {"key", key},
         {"entry", entry},
         {"source_name", valid_utf8(source_name)},
         {"arch", arch},
         {"image", image_is_ptx ? "ptx" : "cubin"},
         {"nvrtc_version", nvrtc_version},
         {"nvrtc_flags", nvrtc_flags},
         {"created", created},
         {"compile_ms", compile_ms},
         {"cubin_bytes", cubin_bytes},
         {"cubin_xxh3_64", cubin_xxh3_64}};
  if (launch) j["launch"] = *launch;
  if (resources)
    j["resource_usage"] = json{{"registers", resources->registers},
                               {"barriers", resources->barriers},
                               {"stack_frame_bytes", resources->stack_frame_bytes},
                               {"stack_bytes", resources->stack_bytes},
                               {"spill_store_bytes", resources->spill_store_bytes},
                               {"spill_load_bytes", resources->spill_load_bytes},
                               {"shared_bytes", resources->shared_bytes},
                               {"constant_bytes", resources->constant_bytes}};
  if (!name_expression.empty()) j["name_expression"] = valid_utf8(name_expression);
  if (!croq_source_xxh3_128.empty()) j["croq_source_xxh3_128"] = croq_source_xxh3_128;
  if (!library_build.empty()) j["library_build"] = library_build;
  return j;
}

std::string CacheMetadata::to_text() const {
  return to_json().dump(2, ' ', false, json::error_handler_t::replace);
}

// The deepest nesting of [ and { outside strings, stopping once past `limit`.
int nesting_depth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size() && deepest <= limit; ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

ParsedMetadata parse_cache_metadata(std::string_view text) {
  ParsedMetadata out;
  if (text.size() > kMaxMetadataBytes) {
    out.problem = "metadata is larger than " + std::to_string(kMaxMetadataBytes) + " bytes";
    return out;
  }
  if (nesting_depth(text, kMaxNesting) > kMaxNesting) {
    out.problem = "metadata nests deeper than " + std::to_string(kMaxNesting) + " levels";
    return out;
  }
  try {
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      out.problem = "metadata is not valid JSON";
      return out;
    }
    CacheMetadata m;
    out.problem = read_fields(j, m, &out.other_version);
    if (out.problem.empty()) out.metadata = std::move(m);
  } catch (const std::exception& e) {  // bad_alloc; the reads above are type-checked
    out.problem = std::string("metadata could not be read: ") + e.what();
  }
  return out;
}

}  // namespace croq::jit
