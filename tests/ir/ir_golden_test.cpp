// Lowering decisions, reviewed as IR: each sample kernel, specialized for
// the shapes its host code uses, must lower to exactly the IR in
// tests/data/ir/<case>.ir (CROQ_UPDATE_GOLDEN=1 rewrites them; review the
// diff). The IR shows the parallel mapping, buffers and their layouts,
// copies with their access width, events with their arrival counts, and
// the MMA instruction chosen for the target.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

#include "common/golden.hpp"
#include "ir/ir_test_util.hpp"

namespace croq::ir {
namespace {

using test::tensor;

struct GoldenCase {
  std::string name;
  std::string sample;
  std::vector<abi::ArgSignature> args;
  std::string arch = "sm_90a";
  bool bf16 = false;  // the f16 sample with its element type swapped
};

// gtest prints parameters with this instead of their bytes.
void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

class IrGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(IrGolden, MatchesReviewedIr) {
  const GoldenCase& c = GetParam();
  std::string source = test::sample_kernel(c.sample);
  if (c.bf16) source = std::regex_replace(source, std::regex(R"(\bf16 \[)"), "bf16 [");
  pipeline::GeneratedKernel k = test::lower_for(source, c.args, c.arch);
  const std::string path = std::string(CROQ_TEST_DATA_DIR) + "/ir/" + c.name + ".ir";
  CROQ_EXPECT_GOLDEN(k.ir, path);
}

INSTANTIATE_TEST_SUITE_P(
    Samples, IrGolden,
    ::testing::Values(
        GoldenCase{"ele_add", "ele_add", {tensor(DType::s32, {100, 300}), tensor(DType::s32, {100, 300})}},
        GoldenCase{"tiled_add", "tiled_add", {tensor(DType::s32, {64, 128}), tensor(DType::s32, {64, 128})}},
        GoldenCase{"matmul_dma", "matmul_dma", {tensor(DType::s32, {128, 256}), tensor(DType::s32, {256, 256})}},
        GoldenCase{"transpose", "transpose", {tensor(DType::f32, {256, 512})}},
        GoldenCase{"view_from", "view_from", {tensor(DType::f32, {300, 70}), tensor(DType::f32, {8})}},
        GoldenCase{"pad", "pad", {tensor(DType::f32, {64, 128})}},
        GoldenCase{"matmul_tma_sm90a", "matmul_tma",
                   {tensor(DType::f16, {300, 136}), tensor(DType::f16, {200, 136}), tensor(DType::f16, {300, 200})}},
        GoldenCase{"matmul_wgmma_sm90a", "matmul_wgmma",
                   {tensor(DType::f16, {256, 256}), tensor(DType::f16, {256, 256}), tensor(DType::f16, {256, 256})}},
        GoldenCase{"matmul_persistent_sm90a", "matmul_persistent",
                   {tensor(DType::bf16, {4096, 4096}), tensor(DType::bf16, {4096, 4096}), tensor(DType::bf16, {4096, 4096})},
                   "sm_90a", true}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace croq::ir
