// The GEMM model's shared-memory count (gemm_any::shared_bytes,
// samples/gemm_any_source.hpp) is the compiler's: for every tile width, one
// and two consumer warpgroups, the one-kernel form (its tile stored through
// shared memory or from the accumulators) and split K, the deepest
// pipeline the model picks is laid out in exactly that many bytes, and one
// stage more is refused for the device's limit. (The first --explore run on
// an H200 stopped at a candidate the old count took for 1 KiB smaller: the
// events' 1 KiB before the first 1024-aligned tile was not counted.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../samples/gemm_any.hpp"
#include "common/arg_signature.hpp"
#include "croq/croq.hpp"
#include "pipeline/pipeline.hpp"

namespace croq {
namespace {

using gemm_any::Config;

TensorView spec(DType dtype, Shape shape) { return TensorView::contiguous(nullptr, dtype, shape); }

const std::vector<Arg> kArgs{spec(DType::f16, {256, 4096}), spec(DType::f16, {4096, 4096}),
                             spec(DType::f16, {256, 4096})};

CompileOptions sm90_options(const Config& c) {
  CompileOptions base;
  base.arch = "sm_90a";
  return gemm_any::options_for(c, base);
}

// The GEMM kernel's dynamic shared memory (the first kernel of a split-K program).
std::uint64_t laid_out_bytes(const Config& c) {
  const auto checked = pipeline::check(gemm_any::source("f16"), sm90_options(c));
  const pipeline::GeneratedProgram program =
      pipeline::generate(*checked, test::signature_of(kArgs), pipeline::choose_target("sm_90a", 0));
  return program.kernels.at(0).launch.shared_bytes;
}

Config config(int consumers, int bn, int stages, int splits) {
  Config c;
  c.consumers = consumers;
  c.bn = bn;
  c.stages = stages;
  c.splits = splits;
  c.blocks = 128;
  return c;
}

TEST(GemmAnySharedMemory, TheModelsCountIsTheCompilersLayout) {
  const gemm_any::Device d = gemm_any::h100();
  for (int consumers : {1, 2})
    for (int bn = 32; bn <= 256; bn += 16)
      for (int form : {0, 1, 2}) {  // through shared memory, split K, stored from the accumulators
        const int splits = form == 1 ? 2 : 1;
        const bool through_shared = form != 2;
        if (!through_shared && consumers == 1 && bn % 64 != 0) continue;  // fewer compiles: the count is per byte
        const int stages = gemm_any::stages_for(64 * consumers, bn, splits, d, 8, through_shared);
        Config c = config(consumers, bn, stages, splits);
        c.store_through_shared = through_shared;
        SCOPED_TRACE(c.name());
        const long long counted = gemm_any::shared_bytes(c);
        ASSERT_LE(counted, d.shared_bytes);
        EXPECT_EQ(laid_out_bytes(c), static_cast<std::uint64_t>(counted));
        if (stages == 8) continue;  // the model's deepest
        Config deeper = c;
        deeper.stages = stages + 1;
        EXPECT_GT(gemm_any::shared_bytes(deeper), d.shared_bytes);
        EXPECT_THROW(laid_out_bytes(deeper), CompileError) << deeper.name();
      }
}

// Kernel::info (croq compile --emit info) of the candidate that failed, at
// the depth the model now gives it: the block's shared memory, dynamic and
// static, is the model's count, under the device's 232448 bytes.
TEST(GemmAnySharedMemory, KernelInfoOfTheRefusedCandidateAtItsNewDepth) {
  const int stages = gemm_any::stages_for(64, 144, 1, gemm_any::h100());
  EXPECT_EQ(stages, 7);
  const Config c = config(1, 144, stages, 1);
  const KernelInfo info = compile(gemm_any::source("f16"), sm90_options(c)).info(kArgs);
  ASSERT_EQ(info.kernels.size(), 1u);
  const KernelImageInfo& k = info.kernels[0];
  const std::uint64_t block = k.dynamic_shared_bytes + k.static_shared_bytes.value_or(0);
  EXPECT_EQ(block, static_cast<std::uint64_t>(gemm_any::shared_bytes(64, 144, stages, 1)));
  EXPECT_LE(block, 232448u);
}

}  // namespace
}  // namespace croq
