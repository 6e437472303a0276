// XXH3 hashing: 128-bit cache keys and 64-bit content checksums.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <xxhash.h>

namespace croq::support {

struct Hash128 {
  std::uint64_t high = 0, low = 0;
  std::string hex() const;  // 32 lowercase hex digits
  friend bool operator==(const Hash128&, const Hash128&) = default;
};

// Feeds labelled fields into XXH3-128; each field is length-prefixed so
// ("ab","c") and ("a","bc") hash differently.
class Hasher128 {
 public:
  Hasher128();
  ~Hasher128();
  Hasher128(const Hasher128&) = delete;
  Hasher128& operator=(const Hasher128&) = delete;
  Hasher128& field(std::string_view bytes);
  Hash128 digest() const;

 private:
  XXH3_state_t* state_;
};

std::uint64_t checksum64(const void* data, std::size_t size);
std::string hex64(std::uint64_t v);

}  // namespace croq::support
