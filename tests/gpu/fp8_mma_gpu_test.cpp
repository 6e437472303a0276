// fp8 WGMMA on a Hopper GPU: the kernels of tests/common/fp8_mma_sources.hpp
// (e4m3 / e5m2 on either side, f32 / f16 accumulators, f32 / f16 / bf16
// outputs, 128/64/32-byte swizzles, operands direct, loaded and as k32
// slices) and samples/matmul_fp8.cpp through the public API. C = A * B^T on
// random inputs in [-1, 1) rounded to the fp8 type, the output poisoned
// first, compared with a double-precision host reference of the rounded
// inputs (samples/gemm_check.hpp): relative Frobenius error <= 1e-2 and every
// element within its tolerance, for a square, a non-square and a tail shape
// (partial tiles in M, N and K; K stays a multiple of 16 for TMA's row pitch).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "common/fp8_mma_sources.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"
#include "common/specialize_test_util.hpp"
#include "../../samples/gemm_check.hpp"

namespace croq {
namespace {

using croq::test::Fp8Gemm;

#define CROQ_REQUIRE_SM90()                                                                   \
  do {                                                                                        \
    CROQ_REQUIRE_GPU();                                                                       \
    if (jit::device_info(0).cc_major != 9) GTEST_SKIP() << "fp8 WGMMA needs sm_90a (Hopper)"; \
  } while (0)

const GemmShape kShapes[] = {{256, 256, 256}, {192, 384, 128}, {300, 200, 208}};

template <typename Lhs, typename Rhs, typename Out>
GemmCheck gemm_check(Kernel& kernel, const GemmShape& s, std::uint64_t seed) {
  auto lhs = make_spandata<Lhs>(s.m, s.k);
  auto rhs = make_spandata<Rhs>(s.n, s.k);
  auto out = make_spandata<Out>(s.m, s.n);
  lhs.fill_random(-1, 1, seed);
  rhs.fill_random(-1, 1, seed + 1);
  out.fill_random(1e4, 2e4, seed + 2);  // poison: every element must be written
  kernel(lhs.view(), rhs.view(), out.view());
  // The reference multiplies the fp8 values as stored (widened to double).
  auto a = make_spandata<float>(s.m, s.k);
  auto b = make_spandata<float>(s.n, s.k);
  for (std::size_t i = 0; i < lhs.size(); ++i) a.data()[i] = float(lhs.data()[i]);
  for (std::size_t i = 0; i < rhs.size(); ++i) b.data()[i] = float(rhs.data()[i]);
  return check_gemm(a, b, out);
}

template <typename Lhs, typename Rhs>
GemmCheck gemm_check_for(const std::string& out, Kernel& kernel, const GemmShape& s, std::uint64_t seed) {
  if (out == "f32") return gemm_check<Lhs, Rhs, float>(kernel, s, seed);
  if (out == "bf16") return gemm_check<Lhs, Rhs, bf16>(kernel, s, seed);
  return gemm_check<Lhs, Rhs, f16>(kernel, s, seed);
}

GemmCheck run_case(const Fp8Gemm& g, Kernel& kernel, const GemmShape& s, std::uint64_t seed) {
  const bool a5 = g.lhs == "f8_e5m2", b5 = g.rhs == "f8_e5m2";
  if (a5 && b5) return gemm_check_for<f8_e5m2, f8_e5m2>(g.out, kernel, s, seed);
  if (a5) return gemm_check_for<f8_e5m2, f8_e4m3>(g.out, kernel, s, seed);
  if (b5) return gemm_check_for<f8_e4m3, f8_e5m2>(g.out, kernel, s, seed);
  return gemm_check_for<f8_e4m3, f8_e4m3>(g.out, kernel, s, seed);
}

class Fp8MmaGpu : public ::testing::TestWithParam<Fp8Gemm> {};

TEST_P(Fp8MmaGpu, GemmMatchesHostReference) {
  CROQ_REQUIRE_SM90();
  const Fp8Gemm& g = GetParam();
  CompileOptions options;
  options.source_name = g.name() + ".co";
  Kernel kernel = compile(g.source(), options);
  std::uint64_t seed = 4321;
  for (const GemmShape& s : kShapes) {
    SCOPED_TRACE("[" + std::to_string(s.m) + ", " + std::to_string(s.k) + "] x [" + std::to_string(s.n) + ", " +
                 std::to_string(s.k) + "]^T");
    const GemmCheck check = run_case(g, kernel, s, seed);
    EXPECT_TRUE(check.passed()) << describe(check);
    seed += 3;
  }
}

INSTANTIATE_TEST_SUITE_P(Wgmma, Fp8MmaGpu, ::testing::ValuesIn(croq::test::fp8_gemm_cases()),
                         [](const auto& info) { return info.param.name(); });

// The persistent warp-specialized sample: more tiles (162) than blocks (132)
// in the last shape, so blocks carry event phases across tiles.
TEST(Fp8MmaGpu, PersistentSampleMatchesHostReference) {
  CROQ_REQUIRE_SM90();
  Kernel kernel = compile(pipeline::test::sample_source("matmul_fp8"));
  std::uint64_t seed = 99;
  for (const GemmShape& s : {GemmShape{512, 512, 512}, GemmShape{300, 520, 208}, GemmShape{2304, 2304, 384}}) {
    SCOPED_TRACE("[" + std::to_string(s.m) + ", " + std::to_string(s.k) + "] x [" + std::to_string(s.n) + ", " +
                 std::to_string(s.k) + "]^T");
    const GemmCheck check = gemm_check<f8_e4m3, f8_e4m3, bf16>(kernel, s, seed);
    EXPECT_TRUE(check.passed()) << describe(check);
    seed += 3;
  }
}

}  // namespace
}  // namespace croq
