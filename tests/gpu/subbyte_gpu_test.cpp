// The sub-byte element types on a device: every copy path moves their
// bytes unchanged, arithmetic computes through f32 (floats) or int
// (integers) and converts back as the host conversions do, and TMA moves
// them as bytes. Random codes over each type's whole range, outputs
// poisoned (0xff bytes: no type's value, a NaN for f16 and f32) before
// every launch, exact comparison with host references.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "common/subbyte_sources.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

DType dtype_named(const std::string& name) {
  DType t{};
  EXPECT_TRUE(parse_dtype(name, t)) << name;
  return t;
}

std::uint8_t* bytes_of(const Tensor& t) { return static_cast<std::uint8_t*>(t.data()); }

// A host tensor of random codes of `t` (its low bits; zeros above).
Tensor random_codes(DType t, Shape shape, std::mt19937& rng) {
  Tensor out = Tensor::empty(t, shape, MemoryKind::host);
  const unsigned mask = (1u << dtype_bits(t)) - 1;
  for (std::size_t i = 0; i < out.numel(); ++i) bytes_of(out)[i] = static_cast<std::uint8_t>(rng() & mask);
  return out;
}

Tensor poisoned(DType t, Shape shape) {
  Tensor out = Tensor::empty(t, shape, MemoryKind::host);
  std::memset(out.data(), 0xff, out.bytes());
  return out;
}

// The code of `v` in type `t`, by the host conversions.
std::uint8_t code_of(DType t, double v) {
  switch (t) {
    case DType::f6_e2m3: return f6_e2m3(static_cast<float>(v)).bits;
    case DType::f6_e3m2: return f6_e3m2(static_cast<float>(v)).bits;
    case DType::f4_e2m1: return f4_e2m1(static_cast<float>(v)).bits;
    case DType::u6: return u6(static_cast<long long>(v)).bits;
    case DType::s6: return s6(static_cast<long long>(v)).bits;
    case DType::u4: return u4(static_cast<long long>(v)).bits;
    case DType::s4: return s4(static_cast<long long>(v)).bits;
    case DType::u2: return u2(static_cast<long long>(v)).bits;
    case DType::s2: return s2(static_cast<long long>(v)).bits;
    case DType::u1: return u1(static_cast<long long>(v)).bits;
    default: return bin1(static_cast<long long>(v)).bits;
  }
}

void expect_same_bytes(const Tensor& got, const Tensor& want, const std::string& what) {
  const Tensor host = got.to_host();
  ASSERT_EQ(host.bytes(), want.bytes()) << what;
  for (std::size_t i = 0; i < want.bytes(); ++i)
    ASSERT_EQ(bytes_of(host)[i], bytes_of(want)[i]) << what << " at element " << i;
}

class SubByteGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(SubByteGpu, CopiesMoveBytes) {
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
  // Rows of 33 bytes; two rounds, so a stale result cannot pass.
  Kernel odd = compile(test::subbyte_odd_copy(GetParam()));
  for (int round = 0; round < 2; ++round) {
    Tensor in = random_codes(t, {6, 17, 33}, rng);
    expect_same_bytes(odd(in), in, "odd rows, round " + std::to_string(round));
  }
}

TEST_P(SubByteGpu, ArithmeticComputesThroughF32OrInt) {
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
      const double x = subbyte_value(t, bytes_of(a)[i]), y = subbyte_value(t, bytes_of(b)[i]);
      // A float type's sum is of that type (rounded); integers add as int.
      const double sum_value = is_floating(t) ? subbyte_value(t, code_of(t, x + y)) : x + y;
      ASSERT_EQ(static_cast<float>(sums[i]), static_cast<float>(f16(static_cast<float>(sum_value)))) << x << " + " << y;
      ASSERT_EQ(bytes_of(rounded)[i], code_of(t, x + y)) << x << " + " << y << " back into " << GetParam();
      ASSERT_EQ(bytes_of(larger)[i], x > y ? bytes_of(a)[i] : bytes_of(b)[i]) << x << " vs " << y;
      ASSERT_EQ(scales[i], static_cast<float>(x) * 0.5f) << x;
    }
  }
}

TEST_P(SubByteGpu, TmaMovesBytes) {
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 9) GTEST_SKIP() << "TMA needs sm_90 or newer";
  const DType t = dtype_named(GetParam());
  std::mt19937 rng(croq::test::next_seed());
  Kernel tma = compile(test::subbyte_tma(GetParam()));
  Tensor a = random_codes(t, {64, 128}, rng);
  Tensor b = poisoned(t, {64, 128}), widened = poisoned(DType::f32, {64, 128});
  tma(a, b, widened);
  expect_same_bytes(b, a, "stored by TMA");
  const auto* w = static_cast<const float*>(widened.data());
  for (std::size_t i = 0; i < a.numel(); ++i)
    ASSERT_EQ(w[i], static_cast<float>(subbyte_value(t, bytes_of(a)[i]))) << "element " << i;
}

INSTANTIATE_TEST_SUITE_P(EveryType, SubByteGpu, ::testing::ValuesIn(test::kSubByteTypes),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace croq
