// Block-scaled fp8 GEMM on a Hopper GPU (tests/common/block_scale_sources.hpp:
// warp-specialized, `.at(k)` event rings, `trigger ... after` TMA loads,
// mma.scale per 128-wide K block, or mma.row.row.scale per k32 chunk) through
// the public API, f32 and f16 accumulators. Random e4m3 inputs in [-1, 1),
// scales in [0.5, 2), the output poisoned first; compared with a double host
// reference of
// sum over K blocks of (A B^T restricted to the block) * scale_lhs[m][kb] *
// scale_rhs[n / 128][kb]. Several K blocks, so each block's partial must
// start from zero.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/block_scale_sources.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

struct Shape {
  int m, n, k;
};

// The largest |out - ref| / (0.02 * rms(ref) + 1e-2 * |ref|) (f16 partials round).
double worst_error(Kernel& kernel, const Shape& s, std::uint64_t seed) {
  const int kb = s.k / 128, nb = s.n / 128;
  auto lhs = make_spandata<f8_e4m3>(s.m, s.k);
  auto rhs = make_spandata<f8_e4m3>(s.n, s.k);
  auto scale_lhs = make_spandata<float>(s.m, kb);
  auto scale_rhs = make_spandata<float>(nb, kb);
  auto out = make_spandata<float>(s.m, s.n);
  lhs.fill_random(-1, 1, seed);
  rhs.fill_random(-1, 1, seed + 1);
  scale_lhs.fill_random(0.5, 2, seed + 2);
  scale_rhs.fill_random(0.5, 2, seed + 3);
  out.fill_random(1e4, 2e4, seed + 4);  // poison: every element must be written
  kernel(lhs.view(), scale_lhs.view(), rhs.view(), scale_rhs.view(), out.view());
  std::vector<double> ref(static_cast<std::size_t>(s.m) * s.n);
  double norm = 0;
  for (int i = 0; i < s.m; ++i)
    for (int j = 0; j < s.n; ++j) {
      double sum = 0;
      for (int b = 0; b < kb; ++b) {
        double part = 0;
        for (int x = b * 128; x < (b + 1) * 128; ++x)
          part += double(float(lhs.data()[i * s.k + x])) * double(float(rhs.data()[j * s.k + x]));
        sum += part * scale_lhs.data()[i * kb + b] * scale_rhs.data()[(j / 128) * kb + b];
      }
      ref[static_cast<std::size_t>(i) * s.n + j] = sum;
      norm += sum * sum;
    }
  const double rms = std::sqrt(norm / ref.size());
  double worst = 0;
  for (std::size_t e = 0; e < ref.size(); ++e) {
    const double ratio = std::abs(double(out.data()[e]) - ref[e]) / (0.02 * rms + 1e-2 * std::abs(ref[e]));
    worst = std::isfinite(ratio) ? std::max(worst, ratio) : INFINITY;
  }
  return worst;
}

class BlockScaleGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(BlockScaleGpu, ScaledGemmMatchesHostReference) {
  CROQ_REQUIRE_HOPPER("fp8 WGMMA");
  CompileOptions options;
  options.source_name = "scaled_" + GetParam() + ".co";
  Kernel kernel = compile(croq::test::block_scaled_gemm_source(GetParam()), options);
  std::uint64_t seed = 77;
  for (const Shape& s : {Shape{64, 128, 128}, Shape{192, 256, 640}, Shape{256, 384, 384}}) {
    SCOPED_TRACE("[" + std::to_string(s.m) + ", " + std::to_string(s.k) + "] x [" + std::to_string(s.n) + ", " +
                 std::to_string(s.k) + "]^T");
    EXPECT_LE(worst_error(kernel, s, seed), 1.0);
    seed += 7;
  }
}

INSTANTIATE_TEST_SUITE_P(Accumulators, BlockScaleGpu, ::testing::Values("f32", "f16"));

// mma.row.row.scale: each k32 chunk's multiply scaled on its own (the
// scales of both sides as operands of the mma), fresh seeds.
TEST(BlockScaleGpu, RowScaledMmaMatchesHostReference) {
  CROQ_REQUIRE_HOPPER("fp8 WGMMA");
  CompileOptions options;
  options.source_name = "row_scaled.co";
  Kernel kernel = compile(croq::test::block_scaled_gemm_source("f32", true), options);
  for (const Shape& s : {Shape{64, 128, 128}, Shape{192, 256, 640}}) {
    SCOPED_TRACE("[" + std::to_string(s.m) + ", " + std::to_string(s.k) + "] x [" + std::to_string(s.n) + ", " +
                 std::to_string(s.k) + "]^T");
    EXPECT_LE(worst_error(kernel, s, croq::test::next_seed()), 1.0);
  }
}

}  // namespace
}  // namespace croq
