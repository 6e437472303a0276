#include "api/tune_record.hpp"

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "jit/cache_files.hpp"
#include "jit/cache_metadata.hpp"
#include "support/hash.hpp"
#include "support/log.hpp"
#include "support/utf8.hpp"

namespace croq::detail {
namespace {

constexpr int kRecordFormat = 1;
// A record holds one line per configuration; this bounds what a read takes.
constexpr std::uint64_t kMaxRecordBytes = 4 << 20;
// The writer nests two levels (the object, its lists).
constexpr int kMaxRecordNesting = 4;

std::string describe_argument(const Arg& a) {
  if (a.kind() == Arg::Kind::integer) return "int";
  if (a.kind() == Arg::Kind::floating) return "float";
  if (a.kind() == Arg::Kind::stream) return "stream";
  return std::string(dtype_name(a.view().dtype)) + " " + a.view().shape.str();
}

std::string describe_base_options(const CompileOptions& base) {
  std::string text = "entry=" + base.entry + ";dynamic=";
  for (const std::string& d : base.dynamic_dims) text += d + ",";
  text += ";defines=" + TuneConfig{base.defines}.str();
  text += base.debug_line_info ? ";line_info" : "";
  return text;
}

}  // namespace

TuneKeyInput tune_key_input(std::string_view source, const CompileOptions& base, std::span<const TuneConfig> configs,
                            std::span<const Arg> args, const std::string& arch, const std::string& device_name) {
  TuneKeyInput in;
  support::Hasher128 source_hash;
  source_hash.field(source);
  in.source_hash = source_hash.digest().hex();
  in.base_options = describe_base_options(base);
  for (const Arg& a : args) in.arguments.push_back(describe_argument(a));
  for (const TuneConfig& c : configs) in.configs.push_back(c.str());
  in.arch = arch;
  in.device_name = device_name;
  return in;
}

std::string tune_key(const TuneKeyInput& in) {
  support::Hasher128 h;
  h.field("croqjit-tune").field(std::to_string(kRecordFormat));
  h.field(in.source_hash).field(in.base_options).field(in.arch).field(in.device_name);
  h.field(std::to_string(in.arguments.size()));
  for (const std::string& a : in.arguments) h.field(a);
  h.field(std::to_string(in.configs.size()));
  for (const std::string& c : in.configs) h.field(c);
  return h.digest().hex();
}

std::string record_file_name(const std::string& key) { return "tune-" + key + ".json"; }

std::string record_to_json(const TuneRecord& r) {
  nlohmann::json j;
  j["format"] = kRecordFormat;
  j["key"] = r.key;
  j["source_xxh3"] = r.input.source_hash;
  j["options"] = r.input.base_options;
  j["arguments"] = r.input.arguments;
  j["configs"] = r.input.configs;
  j["arch"] = r.input.arch;
  j["device"] = r.input.device_name;
  j["chosen"] = r.chosen;
  j["chosen_config"] = r.chosen < r.input.configs.size() ? r.input.configs[r.chosen] : std::string();
  j["median_ms"] = r.median_ms;
  return support::json_text(j, 2) + "\n";
}

std::optional<TuneRecord> record_from_json(const std::string& text, const std::string& key,
                                           const TuneKeyInput& input, std::string* why) {
  auto fail = [&](std::string reason) -> std::optional<TuneRecord> {
    *why = std::move(reason);
    return std::nullopt;
  };
  if (jit::nesting_depth(text, kMaxRecordNesting) > kMaxRecordNesting)
    return fail("it nests deeper than " + std::to_string(kMaxRecordNesting) + " levels");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  } catch (const std::exception& e) {  // bad_alloc; the reads below are type-checked
    return fail(std::string("it could not be read: ") + e.what());
  }
  if (j.is_discarded() || !j.is_object()) return fail("not a JSON object");
  auto string_field = [&](const char* name, const std::string& expected) {
    auto it = j.find(name);
    return it != j.end() && it->is_string() && it->get_ref<const std::string&>() == expected;
  };
  auto list_field = [&](const char* name, const std::vector<std::string>& expected) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_array() || it->size() != expected.size()) return false;
    for (std::size_t i = 0; i < expected.size(); ++i)
      if (!(*it)[i].is_string() || (*it)[i].get_ref<const std::string&>() != expected[i]) return false;
    return true;
  };
  auto format = j.find("format");
  if (format == j.end() || !format->is_number_integer() || format->get<std::int64_t>() != kRecordFormat)
    return fail("unknown format (expected " + std::to_string(kRecordFormat) + ")");
  if (!string_field("key", key)) return fail("it names another key");
  if (!string_field("source_xxh3", input.source_hash) || !string_field("options", input.base_options) ||
      !string_field("arch", input.arch) || !string_field("device", input.device_name) ||
      !list_field("arguments", input.arguments) || !list_field("configs", input.configs))
    return fail("it was made for other inputs");
  auto chosen = j.find("chosen");
  if (chosen == j.end() || !chosen->is_number_unsigned() || chosen->get<std::uint64_t>() >= input.configs.size())
    return fail("`chosen` is not the index of a configuration");
  TuneRecord r;
  r.key = key;
  r.input = input;
  r.chosen = static_cast<std::size_t>(chosen->get<std::uint64_t>());
  if (!string_field("chosen_config", input.configs[r.chosen])) return fail("`chosen_config` does not match `chosen`");
  auto median = j.find("median_ms");
  if (median != j.end() && median->is_number()) r.median_ms = median->get<double>();
  return r;
}

TuneRecordStore TuneRecordStore::from_environment() {
  return TuneRecordStore(jit::DiskCacheSettings::from_environment());
}

std::string TuneRecordStore::path_of(const std::string& key) const {
  return on_disk() ? (settings_.dir / record_file_name(key)).string() : std::string();
}

std::optional<TuneRecord> TuneRecordStore::load(const std::string& key, const TuneKeyInput& input) const {
  if (!on_disk()) return std::nullopt;
  std::string why;
  int error = 0;
  auto dir = jit::CacheDirectory::open(settings_.dir, settings_.shared, /*create=*/false, &why, &error);
  if (!dir) {
    if (error != ENOENT)
      support::log().warn("tuning records in {} are not used ({}); tuning again", settings_.dir.string(), why);
    return std::nullopt;
  }
  jit::FileRead file = dir->read(record_file_name(key), kMaxRecordBytes);
  if (file.error == ENOENT) return std::nullopt;
  if (file.error != 0) why = std::strerror(file.error);
  else if (!file.problem.empty()) why = file.problem;
  std::optional<TuneRecord> record;
  if (why.empty()) record = record_from_json(file.bytes, key, input, &why);
  if (!record)
    support::log().warn("tuning record {} is not used ({}); tuning again and replacing it", path_of(key), why);
  return record;
}

void TuneRecordStore::store(const TuneRecord& record) const {
  if (!on_disk()) return;
  std::string why;
  int error = 0;
  auto dir = jit::CacheDirectory::open(settings_.dir, settings_.shared, /*create=*/true, &why, &error);
  if (!dir) {
    support::log().warn("tuning record {} not written: {}", path_of(record.key), why);
    return;
  }
  const std::string text = record_to_json(record);
  if (int e = dir->write_atomically(record_file_name(record.key), text.data(), text.size()); e != 0)
    support::log().warn("tuning record {} not written: {}", path_of(record.key), std::strerror(e));
}

}  // namespace croq::detail
