// 2:4 sparse WGMMA (mma.row.row.sp) on a Hopper GPU: the kernels of
// tests/common/sparse_mma_sources.hpp (f16, bf16, e4m3; f32 and f16
// accumulators; N 8 to 128; one or two .sp steps a stage) through the
// public API. A is random in [-1, 1) with two of every four elements zeroed
// at random positions, given to the kernel as packed values and metadata
// bytes encoded here (independently of choreo::utils::SparsePolicyWGMMA);
// the output is poisoned first and compared with a double host reference of
// the dense A times B^T (samples/gemm_check.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "common/sparse_mma_sources.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"
#include "../../samples/gemm_check.hpp"

namespace croq {
namespace {

using croq::test::SparseGemm;

template <typename T>
GemmCheck sparse_gemm_check(Kernel& kernel, const GemmShape& s, std::uint64_t seed) {
  auto dense = make_spandata<T>(s.m, s.k);
  auto rhs = make_spandata<T>(s.n, s.k);
  auto packed = make_spandata<T>(s.m, s.k / 2);
  auto meta = make_spandata<std::uint8_t>(s.m, s.k / 8);
  auto out = make_spandata<float>(s.m, s.n);
  dense.fill_random(-1, 1, seed);
  rhs.fill_random(-1, 1, seed + 1);
  out.fill_random(1e4, 2e4, seed + 2);  // poison: every element must be written
  // Keep two random positions of every group of four; the code of group g
  // (first index in bits 0-1, second in 2-3) is nibble g % 2 of byte g / 2.
  std::mt19937 gen(static_cast<std::uint32_t>(seed + 3));
  std::uniform_int_distribution<int> position(0, 3);
  for (int r = 0; r < s.m; ++r)
    for (int g = 0; g < s.k / 4; ++g) {
      int first = position(gen), second = position(gen);
      while (second == first) second = position(gen);
      if (first > second) std::swap(first, second);
      T* group = dense.data() + static_cast<std::size_t>(r) * s.k + g * 4;
      for (int i = 0; i < 4; ++i)
        if (i != first && i != second) group[i] = T(0.0f);
      packed.data()[static_cast<std::size_t>(r) * (s.k / 2) + g * 2] = group[first];
      packed.data()[static_cast<std::size_t>(r) * (s.k / 2) + g * 2 + 1] = group[second];
      std::uint8_t& byte = meta.data()[static_cast<std::size_t>(r) * (s.k / 8) + g / 2];
      const auto code = static_cast<std::uint8_t>(first | (second << 2));
      byte = g % 2 == 0 ? code : static_cast<std::uint8_t>(byte | (code << 4));
    }
  kernel(packed.view(), meta.view(), rhs.view(), out.view());
  auto a = make_spandata<float>(s.m, s.k);
  auto b = make_spandata<float>(s.n, s.k);
  for (std::size_t i = 0; i < dense.size(); ++i) a.data()[i] = float(dense.data()[i]);
  for (std::size_t i = 0; i < rhs.size(); ++i) b.data()[i] = float(rhs.data()[i]);
  return check_gemm(a, b, out);
}

class SparseMmaGpu : public ::testing::TestWithParam<SparseGemm> {};

TEST_P(SparseMmaGpu, GemmMatchesDenseHostReference) {
  CROQ_REQUIRE_HOPPER("sparse WGMMA");
  const SparseGemm& g = GetParam();
  CompileOptions options;
  options.source_name = g.name() + ".co";
  Kernel kernel = compile(g.source(), options);
  std::uint64_t seed = 2024;
  // One tile, then 3 x 3 tiles with 4 stages of K.
  for (const GemmShape& s : {GemmShape{64, g.tile_n, g.tile_k}, GemmShape{192, 3 * g.tile_n, 4 * g.tile_k}}) {
    SCOPED_TRACE("[" + std::to_string(s.m) + ", " + std::to_string(s.k) + "] x [" + std::to_string(s.n) + ", " +
                 std::to_string(s.k) + "]^T");
    GemmCheck check;
    if (g.type == "f16") check = sparse_gemm_check<f16>(kernel, s, seed);
    else if (g.type == "bf16") check = sparse_gemm_check<bf16>(kernel, s, seed);
    else check = sparse_gemm_check<f8_e4m3>(kernel, s, seed);
    EXPECT_TRUE(check.passed()) << describe(check);
    seed += 5;
  }
}

INSTANTIATE_TEST_SUITE_P(Wgmma, SparseMmaGpu, ::testing::ValuesIn(croq::test::sparse_gemm_cases()),
                         [](const auto& info) { return info.param.name(); });

}  // namespace
}  // namespace croq
