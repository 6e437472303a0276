// A warp's mma operands read straight from global memory are gathered
// element by element (mma_warp_gather); where the shapes leave tail tiles,
// lowering bounds each operand by the rows and columns its tensor has from
// the tile's origin, so the gather reads 0 past the edge. Chunks that stay
// inside (`chunkat` of shapes the chunks divide) carry no bounds. NVRTC
// compiles the bounded gather for sm_80 and sm_90a.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/mma_block_warp_sources.hpp"
#include "common/mma_gather_tail_sources.hpp"
#include "common/mma_sync_sources.hpp"
#include "common/specialize_test_util.hpp"
#include "ir/walk.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::contains;
using test::tensor;

GeneratedKernel generate_for(const std::string& source, std::int64_t m, std::int64_t n, std::int64_t k, bool rhs_k_by_n,
                             const std::string& arch, DType out = DType::f32) {
  CompileOptions options;
  options.source_name = "gather_tail.co";
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  const std::vector<std::int64_t> rhs = rhs_k_by_n ? std::vector<std::int64_t>{k, n} : std::vector<std::int64_t>{n, k};
  GenerateOptions generate;
  generate.verify_ir = true;
  generate.keep_kernel = true;  // the IR after the passes, for its operands' bounds
  return pipeline::generate(*program, fn, {tensor(DType::f16, {m, k}), tensor(DType::f16, rhs), tensor(out, {m, n})},
                            target::parse_target(arch), generate);
}

// Whether each gathered operand (lhs, rhs) of the kernel's mmas is bounded.
std::vector<bool> bounded_operands(const GeneratedKernel& g) {
  std::vector<bool> bounded;
  if (!g.kernel) return bounded;
  ir::for_each<ir::Mma>(*g.kernel->body, [&](const ir::Mma& mma, const ir::Stmt&) {
    EXPECT_EQ(mma.instruction, ir::MmaInstruction::mma_sync_gather);
    for (const ir::MmaOperand* op : {&mma.a, &mma.b}) {
      EXPECT_EQ(!op->rows, !op->cols);
      bounded.push_back(op->rows != nullptr);
    }
  });
  return bounded;
}

TEST(GatherTail, TailShapesBoundBothOperandsAndCompile) {
  for (const std::string arch : {"sm_80", "sm_90a"}) {
    SCOPED_TRACE(arch);
    GeneratedKernel g = generate_for(croq::test::kGatherTailRowCol, 45, 21, 37, true, arch);
    EXPECT_EQ(bounded_operands(g), (std::vector<bool>{true, true}));
    EXPECT_TRUE(contains(g.cuda_source, "croq_dev::mma_warp_gather<16, 8, 16, true>(")) << g.cuda_source;
    try {
      jit::NvrtcOutput out = jit::nvrtc_compile(g.cuda_source, "gather_tail.cu", g.entry, {arch, false, {}});
      EXPECT_TRUE(contains(out.ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
    } catch (const CompileError& e) {
      ADD_FAILURE() << "NVRTC rejected the kernel:\n" << e.what() << "\n" << g.cuda_source;
    }
  }
  GeneratedKernel rows = generate_for(croq::test::kBlockWarpGemm, 45, 21, 37, false, "sm_80");
  EXPECT_EQ(bounded_operands(rows), (std::vector<bool>{true, true}));
}

TEST(GatherTail, ChunksThatDivideTheTensorsAreNotBounded) {
  const croq::test::WarpGatherGemm c = croq::test::warp_gather_gemm_cases().front();  // f16, row.col, 16 x 16 x 16
  GeneratedKernel g = generate_for(c.source(), 4 * c.tm, 4 * c.tn, 3 * c.tk, c.row_col, "sm_80", DType::f16);
  EXPECT_EQ(bounded_operands(g), (std::vector<bool>{false, false}));
  EXPECT_TRUE(contains(g.cuda_source, "croq_dev::mma_warp_gather<16, 16, 16, true>(")) << g.cuda_source;
}

}  // namespace
}  // namespace croq::pipeline
