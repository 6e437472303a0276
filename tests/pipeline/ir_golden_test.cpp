// Lowering decisions, reviewed as IR: each sample kernel, specialized for
// the shapes its host code uses, must lower to exactly the IR in
// tests/data/ir/<case>.ir (CROQ_UPDATE_GOLDEN=1 rewrites them; review the
// diff). The IR shows the parallel mapping, buffers and their layouts,
// copies with their access width, events with their arrival counts, and
// the MMA instruction chosen for the target.
#include <gtest/gtest.h>

#include "common/golden.hpp"
#include "common/sample_cases.hpp"

namespace croq::ir {
namespace {

class IrGolden : public ::testing::TestWithParam<test::SampleCase> {};

TEST_P(IrGolden, MatchesReviewedIr) {
  const test::SampleCase& c = GetParam();
  pipeline::GeneratedProgram generated = test::generate_case(c);
  ASSERT_EQ(generated.kernels.size(), 1u);
  const std::string path = std::string(CROQ_TEST_DATA_DIR) + "/ir/" + c.name + ".ir";
  CROQ_EXPECT_GOLDEN(generated.kernels[0].ir, path);
}

INSTANTIATE_TEST_SUITE_P(Samples, IrGolden, ::testing::ValuesIn(test::golden_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace croq::ir
