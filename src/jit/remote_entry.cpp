#include "jit/remote_entry.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <cstring>

#include "support/hash.hpp"

namespace croq::jit {
namespace {

constexpr char kMagic[8] = {'C', 'R', 'O', 'Q', 'R', 'E', '\0', '\1'};
constexpr std::size_t kKeyOffset = 8, kMetaLengthOffset = 40, kImageLengthOffset = 44, kMacLengthOffset = 52;
constexpr std::size_t kHeaderBytes = 56, kChecksumBytes = 8, kMacBytes = 32;
void put_le(std::string& out, std::size_t offset, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out[offset + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

std::uint64_t get_le(std::string_view in, std::size_t offset, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= std::uint64_t(static_cast<unsigned char>(in[offset + i])) << (8 * i);
  return value;
}

std::array<unsigned char, kMacBytes> mac_of(std::string_view bytes, const std::string& secret) {
  std::array<unsigned char, kMacBytes> mac{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), reinterpret_cast<const unsigned char*>(bytes.data()),
       bytes.size(), mac.data(), &length);
  return mac;
}

// Whether `stored` names the function that was asked for: the same symbol,
// or (C++ linkage) a mangled name holding it as <length><name>.
bool names_entry(const std::string& stored, const std::string& requested) {
  if (stored == requested) return true;
  return stored.rfind("_Z", 0) == 0 && stored.find(std::to_string(requested.size()) + requested) != std::string::npos;
}

// What the checked metadata says that differs from `expected` (the image
// itself is checked by DiskCache::check_entry, as on disk).
std::string mismatch(const StoredKernel& k, const RemoteEntryExpectation& expected) {
  const CacheMetadata& m = k.metadata;
  if (m.arch != expected.arch) return "built for " + m.arch + ", not " + expected.arch;
  if (m.library_build != expected.library_build)
    return "from another library build (" + (m.library_build.empty() ? "unknown" : m.library_build) + ")";
  if (!names_entry(m.entry, expected.entry)) return "its symbol " + m.entry + " is not " + expected.entry;
  return {};
}

}  // namespace

std::string encode_remote_entry(const std::string& key_hex, const StoredKernel& kernel, const std::string& secret) {
  const std::string meta = kernel.metadata.to_json().dump();
  const std::size_t mac_bytes = secret.empty() ? 0 : kMacBytes;
  std::string out(kHeaderBytes, '\0');
  std::memcpy(out.data(), kMagic, sizeof kMagic);
  out.replace(kKeyOffset, 32, key_hex.substr(0, 32));
  put_le(out, kMetaLengthOffset, meta.size(), 4);
  put_le(out, kImageLengthOffset, kernel.cubin.size(), 8);
  put_le(out, kMacLengthOffset, mac_bytes, 1);
  out += meta;
  out.append(kernel.cubin.data(), kernel.cubin.size());
  const std::size_t checksum_at = out.size();
  out.resize(checksum_at + kChecksumBytes);
  put_le(out, checksum_at, support::checksum64(out.data(), checksum_at), 8);
  if (mac_bytes != 0) {
    const auto mac = mac_of(out, secret);
    out.append(reinterpret_cast<const char*>(mac.data()), mac.size());
  }
  return out;
}

DecodedRemoteEntry decode_remote_entry(std::string_view value, const RemoteEntryExpectation& expected,
                                       const std::string& secret) {
  DecodedRemoteEntry out;
  auto refuse = [&](std::string why) {
    out.problem = std::move(why);
    return out;
  };
  if (value.size() < kHeaderBytes + kChecksumBytes || std::memcmp(value.data(), kMagic, sizeof kMagic) != 0)
    return refuse("not a kernel cache entry");
  if (value.size() > kMaxRemoteEntryBytes) return refuse("larger than " + std::to_string(kMaxRemoteEntryBytes) + " bytes");
  const std::uint64_t meta_bytes = get_le(value, kMetaLengthOffset, 4);
  const std::uint64_t image_bytes = get_le(value, kImageLengthOffset, 8);
  const std::uint64_t mac_bytes = get_le(value, kMacLengthOffset, 1);
  if (meta_bytes > kMaxMetadataBytes || image_bytes > kMaxRemoteEntryBytes || (mac_bytes != 0 && mac_bytes != kMacBytes) ||
      value.size() != kHeaderBytes + meta_bytes + image_bytes + kChecksumBytes + mac_bytes)
    return refuse("truncated or malformed (its lengths do not add up)");
  const std::size_t checksum_at = kHeaderBytes + meta_bytes + image_bytes;
  if (get_le(value, checksum_at, 8) != support::checksum64(value.data(), checksum_at)) return refuse("checksum mismatch");
  if (!secret.empty()) {
    if (mac_bytes == 0) return refuse("unsigned (CROQ_CACHE_REMOTE_SECRET is set)");
    const std::string_view signed_bytes = value.substr(0, checksum_at + kChecksumBytes);
    const auto mac = mac_of(signed_bytes, secret);
    if (CRYPTO_memcmp(mac.data(), value.data() + signed_bytes.size(), kMacBytes) != 0) return refuse("bad signature");
  }
  if (value.substr(kKeyOffset, 32) != expected.key_hex) return refuse("stored under another key");
  ParsedMetadata parsed = parse_cache_metadata(value.substr(kHeaderBytes, meta_bytes));
  if (!parsed.metadata) return refuse(parsed.problem);
  StoredKernel kernel;
  kernel.metadata = std::move(*parsed.metadata);
  kernel.cubin.assign(value.data() + kHeaderBytes + meta_bytes, value.data() + checksum_at);
  if (std::string why = DiskCache::check_entry(expected.key_hex, kernel); !why.empty()) return refuse(why);
  if (std::string why = mismatch(kernel, expected); !why.empty()) return refuse(why);
  out.kernel = std::move(kernel);
  return out;
}

}  // namespace croq::jit
