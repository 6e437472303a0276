// The device conversions of tf32 and the scale types, checked without a
// GPU: the prelude's conversion code is plain C++ apart from a few CUDA
// intrinsics, so it is built with the host compiler (with shims for those)
// into a program whose answers must match the host conversions
// (croq/dtype.hpp) for every code and for probes at every rounding
// boundary, signs, zeros, subnormals, infinities and NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "backend/cuda/scale_type_prelude.hpp"
#include "common/process.hpp"
#include "croq/croq.hpp"

namespace croq {
namespace {

const char* kHostShims = R"(#include <cmath>
#include <cstdio>
#include <cstring>
#define __host__
#define __device__
#define __forceinline__ inline
static unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
static float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
using std::rintf;
)";

// Prints every tf32 code's float bits, then every ue8m0 and ue4m3 code's;
// then, per probe of argv[1] (float bits, one per line), its tf32, ue8m0
// and ue4m3 codes.
const char* kHostMain = R"(
int main(int, char** argv) {
  for (unsigned code = 0; code < (1u << 19); ++code) {
    croq_tf32 x;
    x.bits = code << 13;
    std::printf("%08x\n", __float_as_uint(static_cast<float>(x)));
  }
  for (unsigned code = 0; code < 256; ++code) {
    croq_f8_ue8m0 x;
    x.bits = static_cast<unsigned char>(code);
    std::printf("%08x\n", __float_as_uint(static_cast<float>(x)));
  }
  for (unsigned code = 0; code < 256; ++code) {
    croq_f8_ue4m3 x;
    x.bits = static_cast<unsigned char>(code);
    std::printf("%08x\n", __float_as_uint(static_cast<float>(x)));
  }
  std::FILE* f = std::fopen(argv[1], "r");
  unsigned bits;
  while (std::fscanf(f, "%x", &bits) == 1) {
    const float v = __uint_as_float(bits);
    std::printf("%08x %02x %02x\n", croq_tf32(v).bits, croq_f8_ue8m0(v).bits, croq_f8_ue4m3(v).bits);
  }
  std::fclose(f);
}
)";

unsigned float_bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}

std::vector<float> probes() {
  std::vector<float> out = {0.0f, -0.0f, 1e-45f, -1e-45f, 1e-40f, INFINITY, -INFINITY, NAN, -NAN,
                            std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), 448.0f, 464.0f,
                            1e30f, 1.0f + 1.0f / 2048, -(1.0f + 1.0f / 2048)};
  for (unsigned code = 0; code + 1 < 0x7f; ++code) {  // ue4m3 midpoints and the floats beside them
    f8_ue4m3 lo, hi;
    lo.bits = static_cast<std::uint8_t>(code);
    hi.bits = static_cast<std::uint8_t>(code + 1);
    const float mid = (float(lo) + float(hi)) / 2;
    out.insert(out.end(), {mid, -mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f), float(lo)});
  }
  for (int e = -150; e <= 128; ++e) {  // powers of two and their neighbours (ue8m0)
    const float p = std::ldexp(1.0f, e);
    out.insert(out.end(), {p, -p, std::nextafter(p, 0.0f), std::nextafter(p, INFINITY), p * 1.5f});
  }
  std::mt19937 rng(5);
  std::uniform_int_distribution<std::uint32_t> any_bits;  // every kind of float, NaNs with payloads too
  for (int i = 0; i < 20000; ++i) {
    const std::uint32_t u = any_bits(rng);
    float f;
    std::memcpy(&f, &u, 4);
    out.push_back(f);
  }
  return out;
}

// NaNs compare by being NaN: a NaN's code may differ only in a payload the
// host and device both keep (tf32); the others are exact.
void expect_float_bits(unsigned got, float want, const std::string& what) {
  if (std::isnan(want)) {
    float g;
    std::memcpy(&g, &got, 4);
    EXPECT_TRUE(std::isnan(g)) << what;
  } else {
    EXPECT_EQ(got, float_bits(want)) << what;
  }
}

TEST(ScaleTypePrelude, DeviceConversionsMatchTheHostOnes) {
  test::TempDir dir;
  {
    std::ofstream src(dir.path() / "conversions.cpp");
    src << kHostShims << backend::cuda::scale_type_prelude() << kHostMain;
  }
  const std::vector<float> probe_values = probes();
  {
    std::ofstream p(dir.path() / "probes.txt");
    for (float v : probe_values) p << std::hex << float_bits(v) << "\n";
  }
  const std::string binary = (dir.path() / "conversions").string();
  test::ProcessResult built = test::run_process(
      {CROQ_HOST_CXX, "-std=c++17", "-O1", "-Wall", (dir.path() / "conversions.cpp").string(), "-o", binary}, {},
      dir.path());
  ASSERT_EQ(built.exit_code, 0) << built.err;
  test::ProcessResult ran = test::run_process({binary, (dir.path() / "probes.txt").string()}, {}, dir.path());
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  std::istringstream out(ran.out);
  std::string line;
  for (std::uint32_t code = 0; code < (1u << 19) && std::getline(out, line); ++code) {
    tf32 x;
    x.bits = code << 13;
    expect_float_bits(static_cast<unsigned>(std::stoul(line, nullptr, 16)), float(x), "tf32 code " + std::to_string(code));
  }
  for (unsigned code = 0; code < 256 && std::getline(out, line); ++code) {
    f8_ue8m0 x;
    x.bits = static_cast<std::uint8_t>(code);
    expect_float_bits(static_cast<unsigned>(std::stoul(line, nullptr, 16)), float(x), "ue8m0 code " + std::to_string(code));
  }
  for (unsigned code = 0; code < 256 && std::getline(out, line); ++code) {
    f8_ue4m3 x;
    x.bits = static_cast<std::uint8_t>(code);
    expect_float_bits(static_cast<unsigned>(std::stoul(line, nullptr, 16)), float(x), "ue4m3 code " + std::to_string(code));
  }
  for (float v : probe_values) {
    unsigned t = 0, e8 = 0, e4 = 0;
    out >> std::hex >> t >> e8 >> e4;
    EXPECT_EQ(t, tf32(v).bits) << "tf32 of " << v << " (bits " << std::hex << float_bits(v) << ")";
    EXPECT_EQ(e8, f8_ue8m0(v).bits) << "ue8m0 of " << v;
    EXPECT_EQ(e4, f8_ue4m3(v).bits) << "ue4m3 of " << v;
  }
  std::string rest;
  EXPECT_FALSE(out >> rest) << "unexpected output: " << rest;
}

}  // namespace
}  // namespace croq
