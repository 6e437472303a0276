// The metadata of a kernel cache entry (<key>.json): one validating reader
// for the library and the croq-cache tool. Metadata is untrusted input (a
// crash, a disk error or another program may have written it): the reader
// bounds its size and nesting before parsing, checks the type and range of
// every field, and never throws; whatever fails is a corrupt entry.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "jit/compiled_kernel.hpp"

namespace croq::jit {

// Bump when the entry layout or metadata meaning changes: old entries then
// become misses (the version is part of every key).
// 2: the key covers the library build, recorded as "library_build".
inline constexpr int kCacheFormatVersion = 2;

// Metadata files are a few hundred bytes; anything larger is not ours.
inline constexpr std::size_t kMaxMetadataBytes = 64 * 1024;
// Cubins and PTX of one kernel; larger images are not loaded.
inline constexpr std::uint64_t kMaxImageBytes = 1ull << 30;

struct CacheMetadata {
  // Required.
  std::string key;                  // 32 lowercase hex digits: the entry's name
  std::string entry;                // the symbol launched: [A-Za-z_][A-Za-z0-9_]*
  // The entry as the request named it, when that is not `entry` itself (a
  // C++ name expression whose symbol is mangled); empty otherwise.
  std::string name_expression;
  std::string arch;                 // sm_XY[a|f] or compute_XY[a|f]
  bool image_is_ptx = false;        // "image": "ptx" (compute_XY) or "cubin" (default)
  std::uint64_t cubin_bytes = 0;    // size of <key>.cubin
  std::string cubin_xxh3_64;        // 16 lowercase hex digits
  // Descriptive; type-checked when present. Text is kept valid UTF-8
  // (to_json replaces invalid bytes of a source path with U+FFFD).
  std::string source_name;
  std::string nvrtc_version;
  std::vector<std::string> nvrtc_flags;
  std::string created;              // ISO 8601 UTC
  double compile_ms = 0;
  std::optional<LaunchConfig> launch;
  std::optional<ResourceUsage> resources;  // "resource_usage": ptxas's report (resource_usage.hpp)
  std::string croq_source_xxh3_128; // empty when absent
  std::string library_build;        // library_build_id() of the writer; empty when absent

  nlohmann::json to_json() const;
  // The <key>.json text (to_json, indented).
  std::string to_text() const;
  // The entry as a request names it: name_expression, else entry.
  const std::string& requested_entry() const { return name_expression.empty() ? entry : name_expression; }
};

struct ParsedMetadata {
  std::optional<CacheMetadata> metadata;
  std::string problem;  // why there is none
  bool other_version = false;  // the problem: another library version's format
};

// Parses and validates <key>.json text. Never throws.
ParsedMetadata parse_cache_metadata(std::string_view text);

// The deepest nesting of [ and { outside strings in JSON `text`, counted
// only until it passes `limit` (checked before parsing, so that no input
// makes the parser recurse deeply; the tuning records use it too).
int nesting_depth(std::string_view text, int limit);

// Whether `s` is a cache key: 32 lowercase hex digits.
bool is_cache_key(std::string_view s);

}  // namespace croq::jit
