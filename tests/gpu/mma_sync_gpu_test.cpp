// The mma.sync lowering (mma.* below sm_90) on a real GPU: the kernels of
// tests/common/mma_sync_sources.hpp compiled through the public API with
// CompileOptions::arch = "compute_80" (PTX that the driver compiles for the
// device at load, so an sm_90 GPU runs the sm_80 code path). C = A * B^T on
// random inputs in [-1, 1], the output poisoned first, compared with a
// double-precision host reference: relative Frobenius error <= 1e-2, for a
// square, a non-square and a tail shape (partial tiles in M, N and K).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "common/mma_sync_sources.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"
#include "../../samples/gemm_check.hpp"

namespace croq {
namespace {

using croq::test::MmaSyncGemm;
using croq::test::WarpMmaGemm;

// compute_80 PTX runs on compute capability 8.0 and newer.
#define CROQ_REQUIRE_SM80()                                                                    \
  do {                                                                                         \
    CROQ_REQUIRE_GPU();                                                                        \
    if (jit::device_info(0).cc_major < 8) GTEST_SKIP() << "mma.sync m16n8k16 needs sm_80 or newer"; \
  } while (0)

const GemmShape kShapes[] = {{256, 256, 256}, {192, 384, 128}, {300, 200, 136}};

// Runs `kernel` on fresh random A [m, k], B [n, k] and a poisoned C [m, n];
// checks C against A * B^T in double (samples/gemm_check.hpp).
template <typename In, typename Out>
GemmCheck gemm_check(Kernel& kernel, const GemmShape& s, std::uint64_t seed) {
  auto lhs = make_spandata<In>(s.m, s.k);
  auto rhs = make_spandata<In>(s.n, s.k);
  auto out = make_spandata<Out>(s.m, s.n);
  lhs.fill_random(-1, 1, seed);
  rhs.fill_random(-1, 1, seed + 1);
  out.fill_random(1e4, 2e4, seed + 2);  // poison: every element must be written
  kernel(lhs.view(), rhs.view(), out.view());
  return check_gemm(lhs, rhs, out);
}

template <typename In>
GemmCheck gemm_check_for(const std::string& out, Kernel& kernel, const GemmShape& s, std::uint64_t seed) {
  if (out == "f32") return gemm_check<In, float>(kernel, s, seed);
  if (out == "bf16") return gemm_check<In, bf16>(kernel, s, seed);
  return gemm_check<In, f16>(kernel, s, seed);
}

Kernel compile_for_compute80(const std::string& source, const std::string& name) {
  CompileOptions options;
  options.arch = "compute_80";
  options.source_name = name + ".co";
  return compile(source, options);
}

void expect_accurate(Kernel& kernel, const std::string& in, const std::string& out) {
  std::uint64_t seed = 1234;
  for (const GemmShape& s : kShapes) {
    SCOPED_TRACE("[" + std::to_string(s.m) + ", " + std::to_string(s.k) + "] x [" + std::to_string(s.n) + ", " +
                 std::to_string(s.k) + "]^T");
    const GemmCheck check =
        in == "bf16" ? gemm_check_for<bf16>(out, kernel, s, seed) : gemm_check_for<f16>(out, kernel, s, seed);
    EXPECT_TRUE(check.passed()) << describe(check);
    seed += 3;
  }
}

class MmaSyncGpu : public ::testing::TestWithParam<MmaSyncGemm> {};

TEST_P(MmaSyncGpu, GemmMatchesHostReference) {
  CROQ_REQUIRE_SM80();
  const MmaSyncGemm& g = GetParam();
  Kernel kernel = compile_for_compute80(g.source(), g.name());
  expect_accurate(kernel, g.in, g.out);
}

INSTANTIATE_TEST_SUITE_P(Compute80, MmaSyncGpu, ::testing::ValuesIn(croq::test::mma_sync_gemm_cases()),
                         [](const auto& info) { return info.param.name(); });

// Events on the sm_80 path (mbarrier init / arrive / test_wait.parity): a
// producer warpgroup and two consumer warpgroups through two stages.
TEST(MmaSyncGpu, WarpSpecializedPipelineWithEvents) {
  CROQ_REQUIRE_SM80();
  Kernel kernel = compile_for_compute80(croq::test::kMmaSyncPipelined, "mma_sync_pipelined");
  expect_accurate(kernel, "f16", "f16");
}

// Warp-level mma (each warp of a `: group` level its own 16 x 8 tile, K in
// steps of 16 or 32): rhs is [N, K] for row.row and [K, N] for row.col; the
// reference multiplies by rhs^T in both cases (row.col's rhs transposed on
// the host first). Output poisoned first; several k16 steps per shape.
template <typename In, typename Out>
GemmCheck warp_gemm_check(Kernel& kernel, bool row_col, const GemmShape& s, std::uint64_t seed) {
  auto lhs = make_spandata<In>(s.m, s.k);
  auto rhs = row_col ? make_spandata<In>(s.k, s.n) : make_spandata<In>(s.n, s.k);
  auto out = make_spandata<Out>(s.m, s.n);
  lhs.fill_random(-1, 1, seed);
  rhs.fill_random(-1, 1, seed + 1);
  out.fill_random(1e4, 2e4, seed + 2);
  kernel(lhs.view(), rhs.view(), out.view());
  if (!row_col) return check_gemm(lhs, rhs, out);
  auto rhs_nk = make_spandata<In>(s.n, s.k);
  for (std::int64_t k = 0; k < s.k; ++k)
    for (std::int64_t n = 0; n < s.n; ++n) rhs_nk.data()[n * s.k + k] = rhs.data()[k * s.n + n];
  return check_gemm(lhs, rhs_nk, out);
}

template <typename In>
GemmCheck warp_gemm_check_for(const std::string& out, Kernel& kernel, bool row_col, const GemmShape& s,
                              std::uint64_t seed) {
  if (out == "f32") return warp_gemm_check<In, float>(kernel, row_col, s, seed);
  if (out == "bf16") return warp_gemm_check<In, bf16>(kernel, row_col, s, seed);
  return warp_gemm_check<In, f16>(kernel, row_col, s, seed);
}

class WarpMmaGpu : public ::testing::TestWithParam<WarpMmaGemm> {};

TEST_P(WarpMmaGpu, GemmMatchesHostReference) {
  CROQ_REQUIRE_SM80();
  const WarpMmaGemm& g = GetParam();
  // The device's own arch (sm_90a on Hopper: warp-level mma is mma.sync there
  // too) and compute_80 PTX.
  for (const std::string arch : {"", "compute_80"}) {
    SCOPED_TRACE(arch.empty() ? "device arch" : arch);
    CompileOptions options;
    options.arch = arch;
    options.source_name = g.name() + ".co";
    Kernel kernel = compile(g.source(), options);
    std::uint64_t seed = 99;
    // One block, a few blocks with K of several steps, and partial tiles.
    for (const GemmShape& s : {GemmShape{64, 16, 64}, GemmShape{128, 64, 96}, GemmShape{100, 40, 80}}) {
      SCOPED_TRACE("M " + std::to_string(s.m) + " N " + std::to_string(s.n) + " K " + std::to_string(s.k));
      const GemmCheck check = g.in == "bf16" ? warp_gemm_check_for<bf16>(g.out, kernel, g.row_col, s, seed)
                                             : warp_gemm_check_for<f16>(g.out, kernel, g.row_col, s, seed);
      EXPECT_TRUE(check.passed()) << describe(check);
      seed += 3;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Warps, WarpMmaGpu, ::testing::ValuesIn(croq::test::warp_mma_gemm_cases()),
                         [](const auto& info) { return info.param.name(); });

// Warp-level mma with gathered fragments (tests/common/mma_sync_sources.hpp,
// WarpGatherGemm): operands straight from global memory, every tile shape and
// input type; C = A * B + 1 (the refill and the element-wise update) against
// a double host reference, the output poisoned first. Floats: random in
// [-1, 1], checked as samples/gemm_check.hpp checks GEMMs: relative
// Frobenius error <= 1e-2 and every element within 0.05 rms(ref) +
// 1e-2 |ref| (the norm alone passes a few wrong elements:
// WarpGatherCheck shows both bounds at work); integers: random in [-8, 8]
// (u8: [0, 8]), exact.
struct GatherRun {
  GemmCheck check;       // floats
  double integer_diff = 0;  // integers: the sum of squared differences
};

// Runs `kernel` on fresh random inputs; `corrupt` (when set) changes the
// output before it is checked, standing for a kernel that got it wrong.
template <typename In, typename Out>
GatherRun warp_gather_run(Kernel& kernel, const croq::test::WarpGatherGemm& g, std::int64_t m, std::int64_t n,
                          std::int64_t k, std::uint64_t seed, const std::function<void(std::vector<double>&)>& corrupt = {}) {
  constexpr bool integer = std::is_integral_v<In>;
  auto lhs = make_spandata<In>(m, k);
  auto rhs = g.row_col ? make_spandata<In>(k, n) : make_spandata<In>(n, k);
  auto out = g.transpose ? make_spandata<Out>(n, m) : make_spandata<Out>(m, n);
  const double lo = integer ? (std::is_signed_v<In> ? -8 : 0) : -1, hi = integer ? 8 : 1;
  lhs.fill_random(lo, hi, seed);
  rhs.fill_random(lo, hi, seed + 1);
  out.fill_random(integer ? 30000 : 1e4, integer ? 40000 : 2e4, seed + 2);  // every element must be written
  kernel(lhs.view(), rhs.view(), out.view());
  std::vector<double> got(static_cast<std::size_t>(m * n)), ref(got.size());
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double r = 1;
      for (std::int64_t x = 0; x < k; ++x)
        r += double(float(lhs.data()[i * k + x])) * double(float(g.row_col ? rhs.data()[x * n + j] : rhs.data()[j * k + x]));
      ref[i * n + j] = r;
      got[i * n + j] = double(float(g.transpose ? out.data()[j * m + i] : out.data()[i * n + j]));
    }
  if (corrupt) corrupt(got);
  GatherRun run;
  if (integer) {
    for (std::size_t e = 0; e < got.size(); ++e) run.integer_diff += (got[e] - ref[e]) * (got[e] - ref[e]);
    return run;
  }
  run.check = compare_with_reference(got, ref, n);
  return run;
}

template <typename... Corrupt>
GatherRun warp_gather_for(const croq::test::WarpGatherGemm& g, Kernel& kernel, std::int64_t m, std::int64_t n,
                          std::int64_t k, std::uint64_t seed, const Corrupt&... corrupt) {
  if (g.in == "s8") return warp_gather_run<std::int8_t, std::int32_t>(kernel, g, m, n, k, seed, corrupt...);
  if (g.in == "u8") return warp_gather_run<std::uint8_t, std::int32_t>(kernel, g, m, n, k, seed, corrupt...);
  if (g.in == "f32") return warp_gather_run<float, float>(kernel, g, m, n, k, seed, corrupt...);
  if (g.in == "bf16") return warp_gather_run<bf16, float>(kernel, g, m, n, k, seed, corrupt...);
  if (g.out == "f16") return warp_gather_run<f16, f16>(kernel, g, m, n, k, seed, corrupt...);
  return warp_gather_run<f16, float>(kernel, g, m, n, k, seed, corrupt...);
}

class WarpGatherGpu : public ::testing::TestWithParam<croq::test::WarpGatherGemm> {};

TEST_P(WarpGatherGpu, GemmMatchesHostReference) {
  CROQ_REQUIRE_SM80();
  const croq::test::WarpGatherGemm& g = GetParam();
  for (const std::string arch : {"", "compute_80"}) {
    SCOPED_TRACE(arch.empty() ? "device arch" : arch);
    CompileOptions options;
    options.arch = arch;
    options.source_name = g.name() + ".co";
    Kernel kernel = compile(g.source(), options);
    std::uint64_t seed = 7;
    // One block with one K step, and a grid of 3 x 2 blocks with 5 K steps.
    for (const auto& [blocks_m, blocks_n, steps] : {std::tuple{1, 1, 1}, std::tuple{3, 2, 5}}) {
      const std::int64_t m = 4 * g.tm * blocks_m, n = 4 * g.tn * blocks_n, k = g.tk * steps;
      SCOPED_TRACE("M " + std::to_string(m) + " N " + std::to_string(n) + " K " + std::to_string(k));
      const GatherRun run = warp_gather_for(g, kernel, m, n, k, seed);
      if (g.in == "s8" || g.in == "u8") EXPECT_EQ(run.integer_diff, 0) << "integer results differ";
      else EXPECT_TRUE(run.check.passed()) << describe(run.check);
      seed += 3;
    }
  }
}

// The float check against deliberately broken results of the f16 gather
// kernel (3 x 2 blocks, 5 K steps): the K loop one step short (caught by
// both bounds), and one element off by a few units, which the Frobenius
// bound alone lets through.
TEST(WarpGatherCheck, RejectsASkippedKStepAndOneWrongElement) {
  CROQ_REQUIRE_SM80();
  const croq::test::WarpGatherGemm g = croq::test::warp_gather_gemm_cases().front();
  ASSERT_EQ(g.in, "f16");
  const std::int64_t m = 4 * g.tm * 3, n = 4 * g.tn * 2, k = g.tk * 5;
  std::string source = g.source();
  const std::string loop = "foreach k in K / " + std::to_string(g.tk) + " {";
  ASSERT_NE(source.find(loop), std::string::npos) << source;
  Kernel correct = compile(source);
  // One step short: the loop runs K / tk - 1 times over tiles of a fixed
  // [tm, tk] / [tk, tn] (chunkat would divide K by the shorter count and
  // still cover it whole).
  const auto replace = [&](const std::string& from, const std::string& to) {
    ASSERT_NE(source.find(from), std::string::npos) << from;
    source.replace(source.find(from), from.size(), to);
  };
  const std::string tm = std::to_string(g.tm), tn = std::to_string(g.tn), tk = std::to_string(g.tk);
  replace(loop, "foreach k in K / " + tk + " - 1 {");
  replace("lhs.chunkat(m#g0, k)", "lhs.subspan(" + tm + ", " + tk + ").at(m#g0, k)");
  replace("rhs.chunkat(k, n#g1)", "rhs.subspan(" + tk + ", " + tn + ").at(k, n#g1)");
  Kernel short_k = compile(source);

  const GatherRun good = warp_gather_for(g, correct, m, n, k, 11);
  EXPECT_TRUE(good.check.passed()) << describe(good.check);
  const GatherRun skipped = warp_gather_for(g, short_k, m, n, k, 11);
  EXPECT_FALSE(skipped.check.passed()) << "a K loop one step short passed: " << describe(skipped.check);
  EXPECT_GT(skipped.check.relative_error, 1e-2);
  const GatherRun one_wrong = warp_gather_for(g, correct, m, n, k, 11, std::function<void(std::vector<double>&)>(
      [](std::vector<double>& got) { got[got.size() / 2] += 3; }));
  EXPECT_FALSE(one_wrong.check.passed()) << "one wrong element passed: " << describe(one_wrong.check);
  EXPECT_LE(one_wrong.check.relative_error, 1e-2) << "the norm alone would have caught it: not the case shown";
}

INSTANTIATE_TEST_SUITE_P(Warps, WarpGatherGpu, ::testing::ValuesIn(croq::test::warp_gather_gemm_cases()),
                         [](const auto& info) { return info.param.name(); });

}  // namespace
}  // namespace croq
