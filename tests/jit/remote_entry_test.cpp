// The remote entry frame: one value holding image and metadata, verified
// (lengths, checksum, HMAC, key, metadata, arch, library build, symbol, the
// image as the disk layer checks it) before use; each refusal with its reason.
#include <gtest/gtest.h>

#include <map>

#include "jit/build_id.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/remote_entry.hpp"
#include "support/hash.hpp"

namespace croq::jit {
namespace {

const std::string kKey = "0123456789abcdef0123456789abcdef";
const std::string kOtherKey = "fedcba9876543210fedcba9876543210";

// A real image of `source`'s kernel `entry` (NVRTC, once per arguments).
std::vector<char> image_of(const std::string& source, const std::string& entry, const std::string& arch = "sm_90a") {
  static std::map<std::string, std::vector<char>> images;
  std::vector<char>& image = images[source + "\n" + entry + "\n" + arch];
  if (image.empty()) {
    NvrtcOutput out = nvrtc_compile(source, "saxpy.cu", entry, {arch, false, {}});
    image = is_virtual_arch(arch) ? std::vector<char>(out.ptx.begin(), out.ptx.end()) : out.cubin;
    if (is_virtual_arch(arch)) image.push_back('\0');
  }
  return image;
}

const std::string kSaxpy = "extern \"C\" __global__ void saxpy(float* x, float* y) { y[threadIdx.x] += x[threadIdx.x]; }\n";
// saxpy(float*, float*) with C++ linkage: its symbol is _Z5saxpyPfS_.
const std::string kCppSaxpy = "__global__ void saxpy(float* x, float* y) { y[threadIdx.x] += x[threadIdx.x]; }\n";

std::vector<char> fake_cubin() { return image_of(kSaxpy, "saxpy"); }

StoredKernel entry(std::vector<char> image = fake_cubin()) {
  StoredKernel k;
  k.cubin = std::move(image);
  CacheMetadata& m = k.metadata;
  m.key = kKey;
  m.entry = "saxpy";
  m.arch = "sm_90a";
  m.cubin_bytes = k.cubin.size();
  m.cubin_xxh3_64 = support::hex64(support::checksum64(k.cubin.data(), k.cubin.size()));
  m.library_build = library_build_id();
  return k;
}

RemoteEntryExpectation expect() { return {kKey, "sm_90a", "saxpy", library_build_id()}; }

std::string refusal(std::string_view value, const std::string& secret = "") {
  DecodedRemoteEntry d = decode_remote_entry(value, expect(), secret);
  EXPECT_FALSE(d.kernel.has_value());
  return d.problem;
}

TEST(RemoteEntry, RoundTripsUnsignedAndSigned) {
  for (const std::string secret : {"", "fleet-secret"}) {
    const StoredKernel k = entry();
    const std::string value = encode_remote_entry(kKey, k, secret);
    DecodedRemoteEntry d = decode_remote_entry(value, expect(), secret);
    ASSERT_TRUE(d.kernel) << d.problem;
    EXPECT_EQ(d.kernel->cubin, k.cubin);
    EXPECT_EQ(d.kernel->metadata.entry, "saxpy");
    EXPECT_EQ(d.kernel->metadata.library_build, library_build_id());
    EXPECT_EQ(value.size(), 56 + k.metadata.to_json().dump().size() + k.cubin.size() + 8 + (secret.empty() ? 0 : 32));
  }
}

TEST(RemoteEntry, RefusesWhatIsNotAFrame) {
  EXPECT_EQ(refusal(""), "not a kernel cache entry");
  EXPECT_EQ(refusal("garbage that is long enough to hold a header, but not a frame"), "not a kernel cache entry");
}

TEST(RemoteEntry, RefusesTruncatedAndExtendedFrames) {
  const std::string value = encode_remote_entry(kKey, entry(), "");
  for (std::size_t cut : {value.size() - 1, value.size() - 9, std::size_t{70}})
    EXPECT_EQ(refusal(value.substr(0, cut)), "truncated or malformed (its lengths do not add up)") << cut;
  EXPECT_EQ(refusal(value + "x"), "truncated or malformed (its lengths do not add up)");
}

TEST(RemoteEntry, RefusesAChangedByte) {
  std::string value = encode_remote_entry(kKey, entry(), "");
  value[value.size() - 20] ^= 1;  // in the image
  EXPECT_EQ(refusal(value), "checksum mismatch");
}

TEST(RemoteEntry, WithASecretRefusesUnsignedAndForeignSignatures) {
  const std::string unsigned_value = encode_remote_entry(kKey, entry(), "");
  EXPECT_EQ(refusal(unsigned_value, "ours"), "unsigned (CROQ_CACHE_REMOTE_SECRET is set)");
  const std::string theirs = encode_remote_entry(kKey, entry(), "theirs");
  EXPECT_EQ(refusal(theirs, "ours"), "bad signature");
  // A signature over a changed frame (checksum recomputed, as an attacker
  // without the secret would) does not verify either.
  std::string forged = encode_remote_entry(kKey, entry(), "ours");
  forged[forged.size() - 1] ^= 1;
  EXPECT_EQ(refusal(forged, "ours"), "bad signature");
}

TEST(RemoteEntry, WithoutASecretSignaturesAreNotChecked) {
  DecodedRemoteEntry d = decode_remote_entry(encode_remote_entry(kKey, entry(), "theirs"), expect(), "");
  EXPECT_TRUE(d.kernel) << d.problem;
}

TEST(RemoteEntry, RefusesAnEntryStoredUnderAnotherKey) {
  StoredKernel k = entry();
  EXPECT_EQ(refusal(encode_remote_entry(kOtherKey, k, "")), "stored under another key");
  k.metadata.key = kOtherKey;  // the frame is right, its metadata names another entry
  EXPECT_EQ(refusal(encode_remote_entry(kKey, k, "")), "metadata names another key");
}

TEST(RemoteEntry, RefusesInvalidMetadataThroughTheDiskLayersReader) {
  StoredKernel k = entry();
  k.metadata.entry = "not a symbol";
  EXPECT_EQ(refusal(encode_remote_entry(kKey, k, "")), "metadata field `entry` is not a symbol name");
}

TEST(RemoteEntry, RefusesAnotherArchLibraryBuildOrSymbol) {
  StoredKernel k = entry();
  k.metadata.arch = "sm_80";
  EXPECT_EQ(refusal(encode_remote_entry(kKey, k, "")), "built for sm_80, not sm_90a");
  k = entry();
  k.metadata.library_build = "0.0.1+elsewhere";
  EXPECT_EQ(refusal(encode_remote_entry(kKey, k, "")), "from another library build (0.0.1+elsewhere)");
  k.metadata.library_build.clear();
  EXPECT_EQ(refusal(encode_remote_entry(kKey, k, "")), "from another library build (unknown)");
  k = entry(image_of(kSaxpy.substr(0, kSaxpy.find("saxpy")) + "other_kernel" + kSaxpy.substr(kSaxpy.find("(")),
                     "other_kernel"));
  k.metadata.entry = "other_kernel";
  EXPECT_EQ(refusal(encode_remote_entry(kKey, k, "")), "its symbol other_kernel is not saxpy");
  k = entry(image_of(kCppSaxpy, "saxpy"));
  k.metadata.entry = "_Z5saxpyPfS_";  // the C++ name of saxpy(float*, float*)
  EXPECT_TRUE(decode_remote_entry(encode_remote_entry(kKey, k, ""), expect(), "").kernel);
}

TEST(RemoteEntry, RefusesAnImageThatIsNotACudaElf) {
  // The disk layer's image check (cache_image.hpp), the same on both layers.
  std::vector<char> image = fake_cubin();
  image[1] = 'X';
  EXPECT_EQ(refusal(encode_remote_entry(kKey, entry(image), "")), "cubin is not an ELF file");
  image = fake_cubin();
  image[4] = 1;  // 32-bit
  EXPECT_EQ(refusal(encode_remote_entry(kKey, entry(image), "")), "cubin is not a 64-bit little-endian ELF file");
  image = fake_cubin();
  image[18] = 62;  // x86-64
  image[19] = 0;
  EXPECT_EQ(refusal(encode_remote_entry(kKey, entry(image), "")), "cubin is an ELF file for machine 62, not CUDA (190)");
  EXPECT_EQ(refusal(encode_remote_entry(kKey, entry(std::vector<char>(10, 'x')), "")), "cubin is not an ELF file");
}

TEST(RemoteEntry, AcceptsAPtxImageForAVirtualArch) {
  StoredKernel k = entry(image_of(kSaxpy, "saxpy", "compute_80"));
  k.metadata.arch = "compute_80";
  k.metadata.image_is_ptx = true;
  k.metadata.cubin_bytes = k.cubin.size();
  k.metadata.cubin_xxh3_64 = support::hex64(support::checksum64(k.cubin.data(), k.cubin.size()));
  RemoteEntryExpectation e = expect();
  e.arch = "compute_80";
  DecodedRemoteEntry d = decode_remote_entry(encode_remote_entry(kKey, k, ""), e, "");
  ASSERT_TRUE(d.kernel) << d.problem;
  EXPECT_TRUE(d.kernel->metadata.image_is_ptx);
}

}  // namespace
}  // namespace croq::jit
