// The device conversions of the sub-byte types, checked without a GPU: the
// prelude's conversion code is plain C++ apart from a few CUDA intrinsics,
// so it is built with the host compiler (with shims for those) into a
// program whose answers must match the host conversions (croq/subbyte.hpp)
// for every code, every rounding midpoint and values past the range.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "backend/cuda/subbyte_prelude.hpp"
#include "common/process.hpp"
#include "croq/croq.hpp"

namespace croq {
namespace {

// Stand-ins for what the prelude takes from CUDA; the rest is C++.
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

// Prints, per format, every code's value (as float bits), then the code of
// each probe value read from argv[1] (float bits, one per line); then every
// sub-byte integer conversion of -300..300.
const char* kHostMain = R"(
template <int E, int M>
void codes_and_probes(const char* probes_path) {
  for (unsigned code = 0; code < (2u << (E + M)); ++code) {
    croq_dev::SmallFloat<E, M> x;
    x.bits = static_cast<unsigned char>(code);
    std::printf("%08x\n", __float_as_uint(static_cast<float>(x)));
  }
  std::FILE* f = std::fopen(probes_path, "r");
  unsigned bits;
  while (std::fscanf(f, "%x", &bits) == 1) std::printf("%02x\n", croq_dev::SmallFloat<E, M>(__uint_as_float(bits)).bits);
  std::fclose(f);
}
template <typename T>
void integers() {
  for (int v = -300; v <= 300; ++v) {
    const T x(v);
    std::printf("%u %d\n", x.bits, static_cast<int>(x));
  }
}
int main(int, char** argv) {
  codes_and_probes<2, 3>(argv[1]);
  codes_and_probes<3, 2>(argv[1]);
  codes_and_probes<2, 1>(argv[1]);
  integers<croq_u6>(); integers<croq_s6>(); integers<croq_u4>(); integers<croq_s4>();
  integers<croq_u2>(); integers<croq_s2>(); integers<croq_u1>(); integers<croq_bin1>();
}
)";

unsigned float_bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Probes: every midpoint of each format's neighbouring values and the
// floats beside it, zeros, values past the range, infinities, NaN, f32
// subnormals and random values.
std::vector<float> probes() {
  std::vector<float> out = {0.0f, -0.0f, 1e-40f, -1e-40f, INFINITY, -INFINITY, NAN, 1e30f, -1e30f, 7.75f, 30.0f, 6.5f};
  for (DType t : {DType::f6_e2m3, DType::f6_e3m2, DType::f4_e2m1}) {
    const unsigned magnitudes = 1u << (dtype_bits(t) - 1);
    for (unsigned code = 0; code + 1 < magnitudes; ++code) {
      const auto lo = static_cast<float>(subbyte_value(t, static_cast<std::uint8_t>(code)));
      const auto hi = static_cast<float>(subbyte_value(t, static_cast<std::uint8_t>(code + 1)));
      const float mid = (lo + hi) / 2;
      out.insert(out.end(), {mid, -mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 100.0f), lo, -hi});
    }
  }
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> values(-40.0f, 40.0f);
  for (int i = 0; i < 3000; ++i) out.push_back(values(rng));
  return out;
}

template <typename Float>
void expect_codes_and_probes(std::istringstream& in, DType t, const std::vector<float>& probe_values) {
  for (unsigned code = 0; code < (1u << dtype_bits(t)); ++code) {
    Float x;
    x.bits = static_cast<std::uint8_t>(code);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(std::stoul(line, nullptr, 16), float_bits(static_cast<float>(x))) << dtype_name(t) << " code " << code;
  }
  for (float v : probe_values) {
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(std::stoul(line, nullptr, 16), Float(v).bits) << dtype_name(t) << " of " << v;
  }
}

template <typename Int>
void expect_integers(std::istringstream& in, const char* name) {
  for (int v = -300; v <= 300; ++v) {
    unsigned bits = 0;
    int value = 0;
    in >> bits >> value;
    const Int x(v);
    EXPECT_EQ(bits, x.bits) << name << "(" << v << ")";
    EXPECT_EQ(value, static_cast<int>(x)) << name << "(" << v << ")";
  }
}

TEST(SubBytePrelude, DeviceConversionsMatchTheHostOnes) {
  test::TempDir dir;
  {
    std::ofstream src(dir.path() / "conversions.cpp");
    src << kHostShims << backend::cuda::subbyte_prelude() << kHostMain;
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
  expect_codes_and_probes<f6_e2m3>(out, DType::f6_e2m3, probe_values);
  expect_codes_and_probes<f6_e3m2>(out, DType::f6_e3m2, probe_values);
  expect_codes_and_probes<f4_e2m1>(out, DType::f4_e2m1, probe_values);
  expect_integers<u6>(out, "u6");
  expect_integers<s6>(out, "s6");
  expect_integers<u4>(out, "u4");
  expect_integers<s4>(out, "s4");
  expect_integers<u2>(out, "u2");
  expect_integers<s2>(out, "s2");
  expect_integers<u1>(out, "u1");
  expect_integers<bin1>(out, "bin1");
  std::string rest;
  EXPECT_FALSE(out >> rest) << "unexpected output: " << rest;
}

}  // namespace
}  // namespace croq
