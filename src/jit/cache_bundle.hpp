// Bundles: kernel cache entries moved as one portable, verified file
// (`croq-cache export` / `import`, CROQ_CACHE_PRELOAD), for container images
// and CI. The layout, all integers little-endian:
//
//   offset  bytes  field
//   0       8      magic "CROQBNDL"
//   8       4      bundle format version (kBundleFormatVersion)
//   12      4      entry count N
//   16      ...    N entries, each:
//                    4  metadata length M (at most kMaxMetadataBytes)
//                    M  the entry's metadata: its <key>.json text
//                    8  image length I (the metadata's cubin_bytes)
//                    I  the image: its <key>.cubin bytes
//   end-16  16     XXH3-128 of every byte before it (canonical form: the
//                  high 64 bits, then the low, each big-endian)
//
// Reading checks, in order: the size bound, magic, version, the checksum
// over everything, the framing, then every entry with the cache's own
// validating metadata reader and entry check (key, size, checksum, image).
// Any failure is a CacheError naming it, and nothing is returned: a bundle
// is used whole or not at all.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "jit/disk_cache.hpp"

namespace croq::jit {

inline constexpr std::uint32_t kBundleFormatVersion = 1;
inline constexpr std::uint32_t kMaxBundleEntries = 1u << 20;
inline constexpr std::uint64_t kMaxBundleBytes = 8ull << 30;

// The bundle's bytes for `entries`.
std::string encode_bundle(const std::vector<StoredKernel>& entries);
// The verified entries of a bundle's bytes; `name` (the file) prefixes errors.
std::vector<StoredKernel> decode_bundle(std::string_view bytes, const std::string& name);

// Writes the bundle through a temp file and a rename: no partial bundle is
// ever visible at `path`. Throws CacheError.
void write_bundle(const std::filesystem::path& path, const std::vector<StoredKernel>& entries);
// Reads and decodes the bundle at `path` (a regular file of at most
// kMaxBundleBytes). Throws CacheError.
std::vector<StoredKernel> read_bundle(const std::filesystem::path& path);

}  // namespace croq::jit
