// Register fragments on an H100: RS-mode WGMMA with the lhs in registers
// (a constant `frag` tile, and tiles loaded with `mma.load.frag`) against a
// double-precision host reference on random data, outputs poisoned first.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <string>
#include <vector>

#include "common/fragment_sources.hpp"
#include "common/staged_lhs_reference.hpp"
#include "common/turn_sources.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"
#include "../../samples/gemm_check.hpp"

namespace croq {
namespace {

#define CROQ_REQUIRE_SM90A()                                                                     \
  do {                                                                                           \
    CROQ_REQUIRE_GPU();                                                                          \
    if (jit::device_info(0).cc_major != 9) GTEST_SKIP() << "RS-mode WGMMA needs sm_90a (Hopper)"; \
  } while (0)

Kernel compile_named(const std::string& source, const std::string& name) {
  CompileOptions options;
  options.source_name = name + ".co";
  return compile(source, options);
}

// C = A B^T with A [M, K] and B [N, K] of random f16, the output poisoned,
// against the double host reference, on each shape.
template <std::size_t N>
void expect_gemm_matches(const Kernel& kernel, const GemmShape (&shapes)[N], std::uint64_t seed) {
  for (const GemmShape& s : shapes) {
    SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k));
    auto lhs = make_spandata<f16>(s.m, s.k);
    auto rhs = make_spandata<f16>(s.n, s.k);
    auto out = make_spandata<float>(s.m, s.n);
    lhs.fill_random(-1, 1, seed);
    rhs.fill_random(-1, 1, seed + 1);
    out.fill_random(1e4, 2e4, seed + 2);  // poison: every element must be written
    kernel(lhs.view(), rhs.view(), out.view());
    const GemmCheck check = check_gemm(lhs, rhs, out);
    EXPECT_TRUE(check.passed()) << describe(check);
    seed += 3;
  }
}

TEST(FragmentGpu, LoadedFragmentGemmMatchesHostReference) {
  CROQ_REQUIRE_SM90A();
  const GemmShape shapes[] = {{128, 256, 128}, {192, 128, 320}, {300, 200, 136}};
  expect_gemm_matches(compile_named(croq::test::kRsGemmFromLoadedFragment, "rs_gemm"), shapes, 77);
}

// The lhs read from global memory straight into registers (no shared copy),
// tails in M and K read as 0.
TEST(FragmentGpu, GlobalLhsFragmentGemmMatchesHostReference) {
  CROQ_REQUIRE_SM90A();
  const GemmShape shapes[] = {{128, 256, 128}, {300, 200, 136}};
  expect_gemm_matches(compile_named(croq::test::kRsGemmFromGlobalLhs, "rs_gemm_global_lhs"), shapes, 91);
}

// Two consumers taking turns (events triggered inside `inthreads (p == ..)`,
// counting one warpgroup each; the turn leaves the multiply in flight):
// every turn is taken, no stage is overwritten early.
TEST(FragmentGpu, TurnTakingConsumersMatchHostReference) {
  CROQ_REQUIRE_SM90A();
  const GemmShape shapes[] = {{256, 64, 512}, {300, 64, 136}, {128, 64, 64}};
  expect_gemm_matches(compile_named(croq::test::kTurnTakingGemm, "turns"), shapes, 131);
}

// mma.row.col of shared tiles (B [K, N], N-major WGMMA operand).
TEST(FragmentGpu, RowColGemmMatchesHostReference) {
  CROQ_REQUIRE_SM90A();
  Kernel kernel = compile_named(croq::test::kRowColGemm, "row_col_gemm");
  const GemmShape shapes[] = {{128, 128, 128}, {192, 256, 320}, {300, 200, 136}};
  std::uint64_t seed = 91;
  for (const GemmShape& s : shapes) {
    SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k));
    auto lhs = make_spandata<f16>(s.m, s.k);
    auto rhs = make_spandata<f16>(s.k, s.n);
    auto out = make_spandata<float>(s.m, s.n);
    lhs.fill_random(-1, 1, seed);
    rhs.fill_random(-1, 1, seed + 1);
    out.fill_random(1e4, 2e4, seed + 2);
    kernel(lhs.view(), rhs.view(), out.view());
    auto rhs_nk = make_spandata<f16>(s.n, s.k);  // the reference multiplies by B^T of [N, K]
    for (int k = 0; k < s.k; ++k)
      for (int n = 0; n < s.n; ++n) rhs_nk.data()[n * s.k + k] = rhs.data()[k * s.n + n];
    const GemmCheck check = check_gemm(lhs, rhs_nk, out);
    EXPECT_TRUE(check.passed()) << describe(check);
    seed += 3;
  }
}

// mma.col.col and mma.col.row of shared tiles: A given as [K, M] (M-major,
// imm-trans-a), B as [K, N] or [N, K]; tails in every dim.
TEST(FragmentGpu, ColumnMajorLhsGemmMatchesHostReference) {
  CROQ_REQUIRE_SM90A();
  const GemmShape shapes[] = {{128, 128, 128}, {192, 256, 320}, {300, 200, 136}};
  std::uint64_t seed = 171;
  for (const bool rhs_n_major : {true, false}) {
    Kernel kernel = compile_named(croq::test::col_major_lhs_gemm(rhs_n_major), rhs_n_major ? "col_col_gemm" : "col_row_gemm");
    for (const GemmShape& s : shapes) {
      SCOPED_TRACE(std::string(rhs_n_major ? "col.col " : "col.row ") + std::to_string(s.m) + " x " + std::to_string(s.n) +
                   " x " + std::to_string(s.k));
      auto lhs_t = make_spandata<f16>(s.k, s.m);
      auto rhs = rhs_n_major ? make_spandata<f16>(s.k, s.n) : make_spandata<f16>(s.n, s.k);
      auto out = make_spandata<float>(s.m, s.n);
      lhs_t.fill_random(-1, 1, seed);
      rhs.fill_random(-1, 1, seed + 1);
      out.fill_random(1e4, 2e4, seed + 2);
      kernel(lhs_t.view(), rhs.view(), out.view());
      // The reference multiplies A [M, K] by B^T of [N, K].
      auto lhs = make_spandata<f16>(s.m, s.k);
      auto rhs_nk = make_spandata<f16>(s.n, s.k);
      for (int k = 0; k < s.k; ++k) {
        for (int m = 0; m < s.m; ++m) lhs.data()[m * s.k + k] = lhs_t.data()[k * s.m + m];
        for (int n = 0; n < s.n; ++n)
          rhs_nk.data()[n * s.k + k] = rhs_n_major ? rhs.data()[k * s.n + n] : rhs.data()[n * s.k + k];
      }
      const GemmCheck check = check_gemm(lhs, rhs_nk, out);
      EXPECT_TRUE(check.passed()) << describe(check);
      seed += 3;
    }
  }
}

// C = A Bᵀ staged by mma.store into a swizzled shared tile, then Cᵀ B with
// the staged tile as the M-major lhs: the generic writes fenced for WGMMA.
TEST(FragmentGpu, StagedTileAsAnMMajorLhsMatchesHostReference) {
  CROQ_REQUIRE_SM90A();
  Kernel kernel = compile_named(croq::test::kStagedTransposedLhs, "staged");
  auto a = make_spandata<f16>(64, 64);
  auto b = make_spandata<f16>(64, 64);
  auto out = make_spandata<float>(64, 64);
  a.fill_random(-1, 1, 41);
  b.fill_random(-1, 1, 42);
  out.fill_random(1e4, 2e4, 43);
  kernel(a.view(), b.view(), out.view());
  const std::vector<double> want = croq::test::staged_lhs_reference(a, b);
  int bad = 0;
  for (std::size_t e = 0; e < want.size(); ++e)
    if (std::fabs(out.data()[e] - want[e]) > 2e-3 * (1 + std::fabs(want[e])) && bad++ < 5)
      ADD_FAILURE() << "out[" << e / 64 << "][" << e % 64 << "] = " << out.data()[e] << ", want " << want[e];
}

// C[m][n] = 0.5 * sum_k B[n][k] for every m: each row of the constant
// fragment multiplies B alike, so a wrong register layout of A would still
// pass; the loaded-fragment test above covers the layout.
TEST(FragmentGpu, ConstantFragmentGemmMatchesHostReference) {
  CROQ_REQUIRE_SM90A();
  Kernel kernel = compile_named(croq::test::kRsGemmConstantFragment, "rs_const");
  const int m = 128, n = 192, k = 96;
  auto rhs = make_spandata<f16>(n, k);
  auto out = make_spandata<float>(m, n);
  rhs.fill_random(-1, 1, 5);
  out.fill_random(1e4, 2e4, 6);
  kernel(rhs.view(), out.view());
  int bad = 0;
  for (int j = 0; j < n; ++j) {
    double want = 0;
    for (int q = 0; q < k; ++q) want += 0.5 * static_cast<double>(static_cast<float>(rhs.data()[j * k + q]));
    for (int i = 0; i < m; ++i) {
      const double got = out.data()[i * n + j];
      if (std::fabs(got - want) > 1e-3 * (1 + std::fabs(want)) && bad++ < 5)
        ADD_FAILURE() << "out[" << i << "][" << j << "] = " << got << ", want " << want;
    }
  }
  EXPECT_EQ(bad, 0);
}

// softmax(Q K^T * scale) V on one 64 x 64 tile (base-2 softmax, as the
// kernel writes it), non-causal and causal, against a double host
// reference that rounds the probabilities to f16 as the kernel does before
// the second mma. Random Q, K in [-1, 1), V in [-1, 1); output poisoned.
void expect_attention(bool causal) {
  Kernel kernel = compile_named(croq::test::attention_source(causal), causal ? "attention_causal" : "attention");
  const int n = 64;
  const double scale = 0.18033688;
  auto q = make_spandata<f16>(n, n);
  auto k = make_spandata<f16>(n, n);
  auto v = make_spandata<f16>(n, n);
  auto o = make_spandata<float>(n, n);
  q.fill_random(-1, 1, 11);
  k.fill_random(-1, 1, 12);
  v.fill_random(-1, 1, 13);
  o.fill_random(1e4, 2e4, 14);
  kernel(q.view(), k.view(), v.view(), o.view());
  auto at = [](const spandata<f16>& t, int i, int j) { return static_cast<double>(static_cast<float>(t.data()[i * 64 + j])); };
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    std::vector<double> s(n, -INFINITY);
    double row_max = -INFINITY;
    for (int j = 0; j < n; ++j) {
      if (causal && j > i) continue;
      double dot = 0;
      for (int c = 0; c < n; ++c) dot += at(q, i, c) * at(k, j, c);
      s[j] = dot;
      row_max = std::max(row_max, dot);
    }
    std::vector<double> p(n, 0.0);
    double sum = 0;
    for (int j = 0; j < n; ++j) {
      if (causal && j > i) continue;
      p[j] = std::exp2(s[j] * scale - row_max * scale);
      sum += p[j];
    }
    for (int c = 0; c < n; ++c) {
      double want = 0;
      for (int j = 0; j < n; ++j) want += static_cast<double>(static_cast<float>(f16(static_cast<float>(p[j])))) * at(v, j, c);
      want /= sum;
      const double got = o.data()[i * n + c];
      if (!(std::fabs(got - want) <= 5e-3 * (1 + std::fabs(want))) && bad++ < 5)
        ADD_FAILURE() << "o[" << i << "][" << c << "] = " << got << ", want " << want;
    }
  }
  EXPECT_EQ(bad, 0);
}

// Online softmax over 4 key tiles (S = T = 256), against softmax in double.
// Q, K, V random in [-1, 1) give nearly flat softmax rows: outputs of RMS
// about 0.038 (rows of 256 keys) up to |v| (a causal row of one key). The
// kernel rounds the probabilities to f16 (each within 2^-11 relative, the
// row's largest exactly 1) before P V and sums them unrounded, so an
// element is off by less than 2^-11 max|v| < 4.9e-4 in any row, and by
// about 1e-5 in rows of 256 keys (the errors are random): the bound
// 5e-4 + 2e-3 |want| holds with a margin. A kernel that drops one key of
// 256 moves most elements by about |v_key - o| / 256, up to 4e-3 (the
// former bound 1e-2 (1 + |want|) passed it):
// OnlineAttentionCheckCatchesADroppedKey runs such a kernel.
constexpr double kOnlineAbsolute = 5e-4, kOnlineRelative = 2e-3;

// The elements of O outside the bound (the first few reported as failures
// when `report`).
int online_attention_mismatches(const std::string& source, const std::string& name, bool causal, bool report) {
  Kernel kernel = compile_named(source, name);
  const int n = 256, d = 64;
  const double scale = 0.18033688;
  auto q = make_spandata<f16>(n, d);
  auto k = make_spandata<f16>(n, d);
  auto v = make_spandata<f16>(n, d);
  auto o = make_spandata<float>(n, d);
  q.fill_random(-1, 1, 21);
  k.fill_random(-1, 1, 22);
  v.fill_random(-1, 1, 23);
  o.fill_random(1e4, 2e4, 24);
  kernel(q.view(), k.view(), v.view(), o.view());
  auto at = [](const spandata<f16>& t, int i, int j) { return static_cast<double>(static_cast<float>(t.data()[i * 64 + j])); };
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const int keys = causal ? i + 1 : n;
    std::vector<double> s(keys);
    double row_max = -INFINITY, sum = 0;
    for (int j = 0; j < keys; ++j) {
      for (int c = 0; c < d; ++c) s[j] += at(q, i, c) * at(k, j, c);
      row_max = std::max(row_max, s[j]);
    }
    for (double& x : s) sum += x = std::exp2((x - row_max) * scale);
    for (int c = 0; c < d; ++c) {
      double want = 0;
      for (int j = 0; j < keys; ++j) want += s[j] * at(v, j, c);
      want /= sum;
      const double got = o.data()[i * d + c];
      if (!(std::fabs(got - want) <= kOnlineAbsolute + kOnlineRelative * std::fabs(want)) && bad++ < 5 && report)
        ADD_FAILURE() << "o[" << i << "][" << c << "] = " << got << ", want " << want;
    }
  }
  return bad;
}

TEST(FragmentGpu, OnlineAttentionMatchesHostReference) {
  CROQ_REQUIRE_SM90A();
  EXPECT_EQ(online_attention_mismatches(croq::test::online_attention_source(false), "online", false, true), 0);
}

TEST(FragmentGpu, CausalOnlineAttentionMatchesHostReference) {
  CROQ_REQUIRE_SM90A();
  EXPECT_EQ(online_attention_mismatches(croq::test::online_attention_source(true), "online_causal", true, true), 0);
}

// The bound above against a kernel that drops the last key (one of 256):
// it must reject most of its output.
TEST(FragmentGpu, OnlineAttentionCheckCatchesADroppedKey) {
  CROQ_REQUIRE_SM90A();
  std::string source = croq::test::online_attention_source(false);
  const std::string anchor = "        copy(m_prev, m);\n";
  ASSERT_EQ(source.find(anchor), source.rfind(anchor));
  source.replace(source.find(anchor), anchor.size(),
                 "        apply {i, j} in sc.span {\n"
                 "          if (bn * 64 + j == 255) sc.at(i, j) = -inf;\n"
                 "        }\n" + anchor);
  const int bad = online_attention_mismatches(source, "online_without_a_key", false, false);
  EXPECT_GT(bad, 256 * 64 / 2) << "a kernel that drops one key of 256 passed " << 256 * 64 - bad << " of "
                               << 256 * 64 << " elements";
}

// `.sqz()` heads with a tail tile: y = 2x exactly, every element written
// (poisoned first) and none of a neighbouring head overwritten.
TEST(SqueezeGpu, HeadsWithATailTileAreDoubled) {
  CROQ_REQUIRE_GPU();
  Kernel kernel = compile_named(croq::test::kHeadsBySqueeze, "double_heads");
  // S = 1 too: the head keeps its row dim (sema dropped only the leading 1).
  for (std::size_t rows : {std::size_t{40}, std::size_t{1}}) {
    auto x = make_spandata<float>(3, rows, 16);
    auto y = make_spandata<float>(3, rows, 16);
    x.fill_random(-1, 1, 31);
    y.fill_random(1e4, 2e4, 32);
    kernel(x.view(), y.view());
    int bad = 0;
    for (std::size_t i = 0; i < 3 * rows * 16; ++i)
      if (y.data()[i] != 2.0f * x.data()[i] && bad++ < 5) ADD_FAILURE() << "S " << rows << ": y[" << i << "] = " << y.data()[i];
    EXPECT_EQ(bad, 0);
  }
}

// tma.copy through `.sqz()` views: every head doubled, the rows past S of
// the last tile neither read from nor written into the next head.
TEST(FragmentGpu, TmaCopiesThroughSqueezedHeadsStayInTheirHead) {
  CROQ_REQUIRE_SM90A();
  Kernel kernel = compile_named(croq::test::kHeadsBySqueezeTma, "double_heads_tma");
  auto x = make_spandata<float>(2, 3, 40, 32);
  auto y = make_spandata<float>(2, 3, 40, 32);
  x.fill_random(-1, 1, 41);
  y.fill_random(1e4, 2e4, 42);
  kernel(x.view(), y.view());
  int bad = 0;
  for (int i = 0; i < 2 * 3 * 40 * 32; ++i)
    if (y.data()[i] != 2.0f * x.data()[i] && bad++ < 5) ADD_FAILURE() << "y[" << i << "] = " << y.data()[i];
  EXPECT_EQ(bad, 0);
}

TEST(FragmentGpu, AttentionTileMatchesHostReference) {
  CROQ_REQUIRE_SM90A();
  expect_attention(false);
}

TEST(FragmentGpu, CausalAttentionTileMatchesHostReference) {
  CROQ_REQUIRE_SM90A();
  expect_attention(true);
}

}  // namespace
}  // namespace croq
