// A kernel cache entry as one remote value: the image and its metadata in
// one frame, so that a reader can never pair one writer's image with
// another writer's metadata, and so that Redis stores or replaces it whole.
//
//   offset  size  field
//   0       8     magic "CROQRE\0\1"
//   8       32    the cache key it is stored under (lowercase hex)
//   40      4     metadata length M (little endian)
//   44      8     image length I (little endian)
//   52      1     MAC length: 0 (unsigned) or 32 (HMAC-SHA256)
//   53      3     zero
//   56      M     metadata JSON (cache_metadata.hpp)
//   56+M    I     image (cubin, or NUL-terminated PTX)
//   56+M+I  8     XXH3-64 of every byte before it (little endian)
//   64+M+I  0/32  HMAC-SHA256 with the shared secret over every byte before it
//
// Everything read back is untrusted: decode_remote_entry checks the frame
// (sizes, checksum, signature), then the metadata with the disk layer's
// validating reader, then that the entry is the one asked for.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "jit/disk_cache.hpp"

namespace croq::jit {

// The largest value written or read (a cubin of one kernel is far smaller;
// anything larger is refused before it is fetched).
inline constexpr std::size_t kMaxRemoteEntryBytes = 64u << 20;

// What the reader asked for; an entry that differs in any of these is refused.
struct RemoteEntryExpectation {
  std::string key_hex;
  std::string arch;           // the arch the image must be built for
  std::string entry;          // the requested __global__ function (the stored symbol may be its mangled name)
  std::string library_build;  // library_build_id()
};

struct DecodedRemoteEntry {
  std::optional<StoredKernel> kernel;
  std::string problem;  // why it was refused ("bad signature", ...)
};

// The frame of `kernel` stored under `key_hex`, signed when `secret` is not
// empty.
std::string encode_remote_entry(const std::string& key_hex, const StoredKernel& kernel, const std::string& secret);

// The verified entry, or the reason it is refused. With a secret, an
// unsigned entry or one signed with another secret is refused; without one,
// the signature is not checked (anyone who can write the store can write
// any entry: docs/how-to/caching-and-fleets.md, "Fleet use").
DecodedRemoteEntry decode_remote_entry(std::string_view value, const RemoteEntryExpectation& expected,
                                       const std::string& secret);

}  // namespace croq::jit
