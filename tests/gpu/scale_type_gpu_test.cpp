// tf32 and the block-scale types on a device: every copy path and TMA move
// their bits unchanged, and arithmetic computes in f32 and converts back as
// the host conversions do. Random codes, outputs poisoned (0xff bytes: no
// tf32 or ue4m3 code, the NaN of ue8m0, which the inputs never hold) before
// every launch, exact comparison with host references.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "common/subbyte_sources.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

const std::vector<std::string> kScaleTypes = {"tf32", "f8_ue8m0", "f8_ue4m3"};

DType dtype_named(const std::string& name) {
  DType t{};
  EXPECT_TRUE(parse_dtype(name, t)) << name;
  return t;
}

std::uint8_t* bytes_of(const Tensor& t) { return static_cast<std::uint8_t*>(t.data()); }

// Random finite codes: tf32 of any sign, exponents 2^-27 .. 2^27 and
// mantissas (so sums stay finite in f16 or saturate alike); ue8m0 0..254;
// ue4m3 0..0x7e.
Tensor random_codes(DType t, Shape shape, std::mt19937& rng) {
  Tensor out = Tensor::empty(t, shape, MemoryKind::host);
  for (std::size_t i = 0; i < out.numel(); ++i) {
    if (t == DType::tf32) {
      const std::uint32_t sign = rng() & 1u, exponent = 100 + rng() % 55, mantissa = rng() & 0x3ffu;
      static_cast<tf32*>(out.data())[i].bits = sign << 31 | exponent << 23 | mantissa << 13;
    } else {
      bytes_of(out)[i] = static_cast<std::uint8_t>(rng() % (t == DType::f8_ue8m0 ? 255 : 127));
    }
  }
  return out;
}

Tensor poisoned(DType t, Shape shape) {
  Tensor out = Tensor::empty(t, shape, MemoryKind::host);
  std::memset(out.data(), 0xff, out.bytes());
  return out;
}

float value_at(DType t, const Tensor& x, std::size_t i) {
  if (t == DType::tf32) return static_cast<const tf32*>(x.data())[i];
  if (t == DType::f8_ue8m0) return static_cast<const f8_ue8m0*>(x.data())[i];
  return static_cast<const f8_ue4m3*>(x.data())[i];
}

// The code of `v` in `t`, and its value, by the host conversions.
std::uint32_t code_of(DType t, float v) {
  if (t == DType::tf32) return tf32(v).bits;
  return t == DType::f8_ue8m0 ? f8_ue8m0(v).bits : f8_ue4m3(v).bits;
}
float rounded_to(DType t, float v) {
  if (t == DType::tf32) return tf32(v);
  return t == DType::f8_ue8m0 ? float(f8_ue8m0(v)) : float(f8_ue4m3(v));
}
std::uint32_t code_at(DType t, const Tensor& x, std::size_t i) {
  if (t == DType::tf32) return static_cast<const tf32*>(x.data())[i].bits;
  return bytes_of(x)[i];
}

void expect_same_bytes(const Tensor& got, const Tensor& want, const std::string& what) {
  const Tensor host = got.to_host();
  ASSERT_EQ(host.bytes(), want.bytes()) << what;
  for (std::size_t i = 0; i < want.bytes(); ++i)
    ASSERT_EQ(bytes_of(host)[i], bytes_of(want)[i]) << what << " at byte " << i;
}

class ScaleTypeGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(ScaleTypeGpu, CopiesMoveTheirBits) {
  CROQ_REQUIRE_GPU();
  const DType t = dtype_named(GetParam());
  std::mt19937 rng(croq::test::next_seed());
  Kernel moves = compile(test::subbyte_moves(GetParam()));
  for (std::size_t m : {1u, 5u, 33u}) {
    Tensor a = random_codes(t, {m, 64}, rng);
    Tensor staged = poisoned(t, {m, 64}), through_local = poisoned(t, {m, 64}), elements = poisoned(t, {m, 64});
    moves(a, staged, through_local, elements);
    expect_same_bytes(staged, a, "staged, " + std::to_string(m) + " rows");
    expect_same_bytes(through_local, a, "through local, " + std::to_string(m) + " rows");
    expect_same_bytes(elements, a, "element by element, " + std::to_string(m) + " rows");
  }
  Kernel odd = compile(test::subbyte_odd_copy(GetParam()));
  for (int round = 0; round < 2; ++round) {  // two rounds, so a stale result cannot pass
    Tensor in = random_codes(t, {6, 17, 33}, rng);
    expect_same_bytes(odd(in), in, "odd rows, round " + std::to_string(round));
  }
}

TEST_P(ScaleTypeGpu, ArithmeticComputesInF32) {
  CROQ_REQUIRE_GPU();
  const DType t = dtype_named(GetParam());
  std::mt19937 rng(croq::test::next_seed());
  Kernel arith = compile(test::subbyte_arithmetic(GetParam()));
  for (std::size_t m : {1u, 3u, 17u}) {
    Tensor a = random_codes(t, {m, 64}, rng), b = random_codes(t, {m, 64}, rng);
    Tensor sum = poisoned(DType::f16, {m, 64}), rounded = poisoned(t, {m, 64}), larger = poisoned(t, {m, 64});
    Tensor scaled = poisoned(DType::f32, {m, 64});
    arith(a, b, sum, rounded, larger, scaled);
    const auto* sums = static_cast<const f16*>(sum.data());
    const auto* scales = static_cast<const float*>(scaled.data());
    for (std::size_t i = 0; i < m * 64; ++i) {
      const float x = value_at(t, a, i), y = value_at(t, b, i);
      // A sum of two values of the type is of the type: rounded, then to f16.
      ASSERT_EQ(sums[i].bits, f16(rounded_to(t, x + y)).bits) << x << " + " << y;
      ASSERT_EQ(code_at(t, rounded, i), code_of(t, x + y)) << x << " + " << y << " back into " << GetParam();
      ASSERT_EQ(code_at(t, larger, i), code_at(t, x > y ? a : b, i)) << x << " vs " << y;
      ASSERT_EQ(scales[i], x * 0.5f) << x;
    }
  }
}

TEST_P(ScaleTypeGpu, TmaMovesTheirBits) {
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 9) GTEST_SKIP() << "TMA needs sm_90 or newer";
  const DType t = dtype_named(GetParam());
  std::mt19937 rng(croq::test::next_seed());
  Kernel tma = compile(test::subbyte_tma(GetParam()));
  for (int round = 0; round < 2; ++round) {
    Tensor a = random_codes(t, {64, 128}, rng);
    Tensor b = poisoned(t, {64, 128}), widened = poisoned(DType::f32, {64, 128});
    tma(a, b, widened);
    expect_same_bytes(b, a, "stored by TMA, round " + std::to_string(round));
    const auto* w = static_cast<const float*>(widened.data());
    for (std::size_t i = 0; i < a.numel(); ++i) ASSERT_EQ(w[i], value_at(t, a, i)) << "element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryType, ScaleTypeGpu, ::testing::ValuesIn(kScaleTypes),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace croq
