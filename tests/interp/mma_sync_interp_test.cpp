// Interpret mode: mma.sync, a warpgroup's (sm_80, no WGMMA) and each warp's
// own (`: group` levels, any arch), on the GPU tests' kernels
// (tests/common/mma_sync_sources.hpp), against the host's product.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/mma_sync_sources.hpp"
#include "croq/croq.hpp"

namespace {

// A host tensor of `dtype` with random values in [-1, 1], and their values.
struct Operand {
  croq::Tensor tensor;
  std::vector<float> values;
};

Operand random_operand(croq::DType dtype, std::size_t rows, std::size_t cols, unsigned seed) {
  Operand o{croq::Tensor::empty(dtype, {rows, cols}, croq::MemoryKind::host), {}};
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (std::size_t i = 0; i < rows * cols; ++i) {
    const float v = value(gen);
    if (dtype == croq::DType::f16) {
      static_cast<croq::f16*>(o.tensor.data())[i] = croq::f16(v);
      o.values.push_back(static_cast<float>(croq::f16(v)));
    } else {
      static_cast<croq::bf16*>(o.tensor.data())[i] = croq::bf16(v);
      o.values.push_back(static_cast<float>(croq::bf16(v)));
    }
  }
  return o;
}

croq::DType dtype_of(const std::string& name) {
  croq::DType t{};
  EXPECT_TRUE(croq::parse_dtype(name, t)) << name;
  return t;
}

// out [M, N] = lhs [M, K] x rhs ([N, K], or [K, N] when rhs_k_major is false)
// + added.
void expect_product(const std::string& source, const std::string& arch, const std::string& in,
                    const std::string& out_type, bool f16_acc, bool rhs_kn, std::size_t M = 72, std::size_t N = 40,
                    std::size_t K = 96, double added = 0) {
  croq::CompileOptions options;
  options.interpret = true;
  options.arch = arch;
  croq::Kernel k = croq::compile(source, options);
  const croq::DType t = dtype_of(in);
  Operand lhs = random_operand(t, M, K, 1), rhs = rhs_kn ? random_operand(t, K, N, 2) : random_operand(t, N, K, 2);
  croq::Tensor out = croq::Tensor::empty(dtype_of(out_type), {M, N}, croq::MemoryKind::host);
  k(lhs.tensor.view(), rhs.tensor.view(), out.view());
  const double tolerance = f16_acc ? 2e-2 : out_type == "bf16" ? 1e-2 : out_type == "f16" ? 2e-3 : 1e-4;
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      double want = added;
      for (std::size_t x = 0; x < K; ++x)
        want += static_cast<double>(lhs.values[i * K + x]) * (rhs_kn ? rhs.values[x * N + j] : rhs.values[j * K + x]);
      ASSERT_NEAR(out[i][j].as_double(), want, tolerance * (1 + std::fabs(want))) << i << ", " << j;
    }
}

class InterpretMmaSync : public ::testing::TestWithParam<croq::test::MmaSyncGemm> {};

TEST_P(InterpretMmaSync, WarpgroupTileOnSm80) {
  const auto& g = GetParam();
  expect_product(g.source(), "sm_80", g.in, g.out, g.acc == "f16", false);
}

INSTANTIATE_TEST_SUITE_P(Cases, InterpretMmaSync, ::testing::ValuesIn(croq::test::mma_sync_gemm_cases()));

class InterpretWarpMma : public ::testing::TestWithParam<croq::test::WarpMmaGemm> {};

TEST_P(InterpretWarpMma, EachWarpItsOwnTile) {
  const auto& g = GetParam();
  expect_product(g.source(), "sm_90a", g.in, g.out, g.acc == "f16", g.row_col);
}

INSTANTIATE_TEST_SUITE_P(Cases, InterpretWarpMma, ::testing::ValuesIn(croq::test::warp_mma_gemm_cases()));

// The GPU tests' gather kernels of f16 and bf16 tiles (C = A B + 1, operands
// straight from global memory), the accumulator a block-scope one, one of an
// array, or one of an array declared at the kernel's top (`frag mc[2][2]`
// before the parallel statement).
TEST(InterpretWarpGather, EachWarpGathersItsOwnTile) {
  for (const croq::test::WarpGatherGemm& g : croq::test::warp_gather_gemm_cases()) {
    if ((g.in != "f16" && g.in != "bf16") || g.transpose) continue;
    SCOPED_TRACE(g.name());
    expect_product(g.source(), "sm_90a", g.in, g.out, g.acc == "f16", g.row_col, 4 * g.tm, 4 * g.tn, 3 * g.tk, 1);
  }
}

}  // namespace
