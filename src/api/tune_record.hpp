// The remembered choice of croq::tune: its key and the record file
// <cache dir>/tune-<key>.json, next to the kernel cache's entries.
//
// The record is read and written through jit::CacheDirectory, under the
// kernel cache's trust rules (owner checks, no links followed, O_EXCL temp
// file + rename). A record that is missing, malformed, untrusted or for
// another key is a miss: tune times again and writes a fresh one.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "croq/kernel.hpp"
#include "croq/tune.hpp"
#include "jit/disk_cache.hpp"

namespace croq::detail {

// Everything the key covers, as text (the record stores it to check that
// it is the record it claims to be).
struct TuneKeyInput {
  std::string source_hash;  // XXH3-128 of the source text
  std::string base_options; // entry, dynamic dims, base defines
  std::vector<std::string> arguments;  // "f32 [128, 64]", "int", "float"
  std::vector<std::string> configs;    // TuneConfig::str() of each, in order
  std::string arch;
  std::string device_name;
};

TuneKeyInput tune_key_input(std::string_view source, const CompileOptions& base, std::span<const TuneConfig> configs,
                            std::span<const Arg> args, const std::string& arch, const std::string& device_name);
std::string tune_key(const TuneKeyInput& input);  // 32 hex digits

struct TuneRecord {
  std::string key;
  TuneKeyInput input;
  std::size_t chosen = 0;   // index into input.configs
  double median_ms = 0;
};

std::string record_file_name(const std::string& key);  // "tune-<key>.json"
std::string record_to_json(const TuneRecord& record);
// The record in `text` if it is well formed, for `key` and exactly `input`;
// else nullopt with `*why` set.
std::optional<TuneRecord> record_from_json(const std::string& text, const std::string& key,
                                           const TuneKeyInput& input, std::string* why);

// Where records live: the kernel cache's directory and trust settings.
class TuneRecordStore {
 public:
  explicit TuneRecordStore(jit::DiskCacheSettings settings) : settings_(std::move(settings)) {}
  static TuneRecordStore from_environment();

  bool on_disk() const { return settings_.enabled; }
  std::string path_of(const std::string& key) const;  // empty when not on disk

  // The record of `key` on disk. A bad one (malformed, untrusted, a link,
  // for other inputs) is reported with a warning and ignored.
  std::optional<TuneRecord> load(const std::string& key, const TuneKeyInput& input) const;
  // Writes the record, replacing any earlier one. Failures are warnings.
  void store(const TuneRecord& record) const;

 private:
  jit::DiskCacheSettings settings_;
};

}  // namespace croq::detail
