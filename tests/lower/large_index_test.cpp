// Index arithmetic past 2^31: kernels whose tensors, counts or coordinates
// can pass 2^31 - 1 index in 64 bits (those that provably fit keep `int`,
// so the samples' code is unchanged: see the goldens), launches of more
// blocks than a grid holds loop over block indices, and what cannot be
// launched is a CompileError. The kernels also compile with NVRTC.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/specialize_test_util.hpp"
#include "pipeline/specialize.hpp"
#include "common/large_tensor_kernels.hpp"
#include "croq/error.hpp"
#include "frontend/frontend.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::generate_cuda;
using test::tensor;

constexpr std::int64_t kLarge = (std::int64_t{1} << 31) + 4099;

GeneratedKernel generate(const std::string& source, const std::vector<ArgSignature>& args,
                         const std::vector<std::string>& dynamic = {}) {
  CompileOptions options;
  options.source_name = "large.co";
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  GeneratedKernel k = generate_cuda(*program, fn, args, 227 * 1024, dynamic);
  EXPECT_FALSE(jit::nvrtc_compile(k.cuda_source, "large.cu", k.entry, {"compute_90", false, {}}).ptx.empty());
  return k;
}

// In the CUDA text (how the backend prints) / in the IR (what lowering decided).
bool has(const GeneratedKernel& k, const std::string& text) { return k.cuda_source.find(text) != std::string::npos; }
bool ir_has(const GeneratedKernel& k, const std::string& text) { return k.ir.find(text) != std::string::npos; }

using croq::test::kLargeFlatAdd;
using croq::test::kLargeBlockAdd;

std::vector<ArgSignature> three(std::vector<std::int64_t> shape) {
  return {tensor(DType::u8, shape), tensor(DType::u8, shape), tensor(DType::u8, shape)};
}

// Row-major decomposition and strides of a 2-D tensor past 2^31 elements:
// the terms are 64-bit before they are multiplied. (The read of the row's
// first element keeps one element a thread: an add of own elements only
// runs as vectors over a flat view, vectorize_elementwise.)
TEST(LargeIndex, TwoDimensionalStridesAre64Bit) {
  const std::string source = R"(__co__ void add(u8 [M, N] a, u8 [M, N] out) {
  parallel {i, j} by [M, N]
    out.at(i, j) = a.at(i, j) + a.at(i, 0);
}
)";
  GeneratedKernel k = generate(source, {tensor(DType::u8, {524289, 4096}), tensor(DType::u8, {524289, 4096})});
  EXPECT_TRUE(has(k, "((long long)(i_2) * 4096)")) << k.cuda_source;
}

// More blocks than a grid's 2^31 - 1: the launch takes the most it can and
// the kernel loops over block indices, fencing shared memory between them.
// (M = 2^32 + 1 used to launch 1 block.)
TEST(LargeIndex, BlockLevelPastTheGridLimitLoops) {
  for (std::int64_t n : {kLarge, (std::int64_t{1} << 32) + 1}) {
    GeneratedKernel k = generate(kLargeBlockAdd, three({n}));
    EXPECT_EQ(k.launch.grid, (std::array<unsigned, 3>{0x7fffffff, 1, 1})) << n;
    EXPECT_TRUE(ir_has(k, "looping over block indices, 64-bit indices")) << k.ir;
    EXPECT_TRUE(ir_has(k, "for lin_0 in [blockIdx.x, " + std::to_string(n) + ") step gridDim.x:")) << k.ir;
    EXPECT_TRUE(has(k, "      __syncthreads();\n    }\n  }\n}")) << k.cuda_source;
  }
}

// A flat level whose blocks would pass the grid limit loops too.
TEST(LargeIndex, FlatLevelPastTheGridLimitLoops) {
  const std::string source = R"(__co__ void count(u8 [N] a) {
  parallel {i, j} by [N, N]
    a.at(i) = 1;
}
)";
  GeneratedKernel k = generate(source, {tensor(DType::u8, {1 << 20})});
  EXPECT_EQ(k.launch.grid, (std::array<unsigned, 3>{0x7fffffff, 1, 1}));
  EXPECT_TRUE(ir_has(k, "for lin_0 in [((convert<i64>(blockIdx.x) * 256) + threadIdx.x), 1099511627776) step "
                        "(convert<i64>(gridDim.x) * 256):")) << k.ir;
}

// Dynamic dims can pass 2^31 at any call: 64-bit indices, and grids that
// loop so the launch can cap the block count.
TEST(LargeIndex, DynamicDimsIndex64BitAndLoop) {
  GeneratedKernel k = generate(kLargeFlatAdd, three({-1}), {"N"});
  EXPECT_TRUE(ir_has(k, "for lin_0 in [((convert<i64>(blockIdx.x) * 256) + threadIdx.x), dim_N) step")) << k.ir;
  EXPECT_TRUE(k.runtime_grid.dynamic());
  EXPECT_TRUE(k.runtime_grid.grid_stride);
  k = generate(kLargeBlockAdd, three({-1}), {"N"});
  EXPECT_TRUE(ir_has(k, "for lin_0 in [blockIdx.x, dim_N) step gridDim.x:")) << k.ir;
  EXPECT_TRUE(k.runtime_grid.grid_stride);
}

// Tile origins t * 4096 pass 2^31 for the last tiles: 64-bit products, and
// the tail tile is guarded against the 64-bit extent.
TEST(LargeIndex, TileOriginsAre64Bit) {
  const std::string source = R"(__co__ void add(u8 [N] a, u8 [N] out) {
  parallel t by cdiv(N, 4096) : block {
    ta = dma.copy a.subspan(4096).at(t).zfill => shared;
    parallel r by 256 : thread {
      foreach k in [16]
        out.subspan(4096).at(t).at(k # r) = ta.data.at(k # r) + 1;
    }
  }
}
)";
  GeneratedKernel k = generate(source, {tensor(DType::u8, {kLarge}), tensor(DType::u8, {kLarge})});
  EXPECT_TRUE(has(k, "((long long)(t_1) * 4096)")) << k.cuda_source;
  EXPECT_TRUE(has(k, "< 2147487747")) << k.cuda_source;
}

// A loop bound or a copy past 2^31 iterations counts in 64 bits.
TEST(LargeIndex, LoopsAndCopiesPast2To31Count64Bit) {
  GeneratedKernel k = generate(R"(__co__ void f(u8 [N] a) {
  parallel p by 1 : block {
    foreach i in [N]
      a.at(i) = 1;
  }
}
)", {tensor(DType::u8, {kLarge})});
  EXPECT_TRUE(ir_has(k, "64-bit indices")) << k.ir;
  EXPECT_TRUE(has(k, "for (long long i_")) << k.cuda_source;
  k = generate(R"(__co__ void f(u8 [N] a, u8 [N] b) {
  parallel p by 1 : block {
    dma.copy a => b;
  }
}
)", {tensor(DType::u8, {kLarge}), tensor(DType::u8, {kLarge})});
  EXPECT_TRUE(ir_has(k, "64-bit indices")) << k.ir;
  EXPECT_FALSE(has(k, "for (int ")) << k.cuda_source;
  EXPECT_FALSE(has(k, "const int ")) << k.cuda_source;
}

// Launches that cannot be expressed are CompileErrors at the level: Hopper
// kernels set up their barriers once per block and cannot loop, and a
// cluster launch needs every block in the grid.
TEST(LargeIndex, UnlaunchableGridsAreCompileErrors) {
  auto error = [](const std::string& source, std::int64_t n) -> std::string {
    try {
      CompileOptions options;
      auto program = frontend::parse_program(source, options);
      generate_cuda(*program, frontend::select_entry(*program, options, program->source), {tensor(DType::u8, {n})},
                    227 * 1024);
    } catch (const CompileError& e) {
      EXPECT_EQ(e.diagnostics().at(0).line, 2) << e.what();
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error("__co__ void f(u8 [N] a) {\n  parallel p by N : block {\n    shared event e;\n    a.at(p) = 1;\n  }\n}\n", kLarge)
                .find("more than a grid holds (2^31 - 1); kernels with events, TMA or mma cannot loop over block indices"),
            std::string::npos);
  EXPECT_NE(error("__co__ void f(u8 [N] a) {\n  parallel c by 2 : cluster, b by N : block {\n    a.at(b) = 1;\n  }\n}\n",
                  kLarge)
                .find("blocks, more than a grid holds (2^31 - 1)"),
            std::string::npos);
}

}  // namespace
}  // namespace croq::pipeline
