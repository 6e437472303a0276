#include "support/hash.hpp"

#include <cstdio>

namespace croq::support {

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string Hash128::hex() const { return hex64(high) + hex64(low); }

Hasher128::Hasher128() : state_(XXH3_createState()) { XXH3_128bits_reset(state_); }
Hasher128::~Hasher128() { XXH3_freeState(state_); }

Hasher128& Hasher128::field(std::string_view bytes) {
  std::uint64_t size = bytes.size();
  XXH3_128bits_update(state_, &size, sizeof size);
  XXH3_128bits_update(state_, bytes.data(), bytes.size());
  return *this;
}

Hash128 Hasher128::digest() const {
  XXH128_hash_t h = XXH3_128bits_digest(state_);
  return {h.high64, h.low64};
}

std::uint64_t checksum64(const void* data, std::size_t size) { return XXH3_64bits(data, size); }

}  // namespace croq::support
