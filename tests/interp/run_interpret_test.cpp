// `croq run --interpret` and CROQ_INTERPRET=1: a program runs on the CPU with
// the same .npy inputs and output as on the GPU (no GPU here).
#include <gtest/gtest.h>

#include <fstream>

#include "cli/npy.hpp"
#include "common/process.hpp"
#include "croq/croq.hpp"

namespace {

const char* kAdd = R"croq(__co__ s32 [M, N] ele_add(s32 [M, N] lhs, s32 [M, N] rhs) {
  s32 [lhs.span] output;
  parallel {i, j} by [M, N]
    output.at(i, j) = lhs.at(i, j) + rhs.at(i, j);
  return output;
}
)croq";

class RunInterpret : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir.path() / "add.co") << kAdd;
    lhs = croq::Tensor::empty(croq::DType::s32, {6, 9}, croq::MemoryKind::host);
    rhs = croq::Tensor::empty(croq::DType::s32, {6, 9}, croq::MemoryKind::host);
    for (int i = 0; i < 54; ++i) {
      static_cast<std::int32_t*>(lhs.data())[i] = i * 7 - 100;
      static_cast<std::int32_t*>(rhs.data())[i] = 3 - i;
    }
    croq::cli::write_npy((dir.path() / "lhs.npy").string(), lhs);
    croq::cli::write_npy((dir.path() / "rhs.npy").string(), rhs);
  }

  croq::test::ProcessResult run(std::vector<std::string> extra, std::map<std::string, std::string> env = {}) {
    std::vector<std::string> argv = {std::string(CROQ_BINARY_DIR) + "/croq", "run", (dir.path() / "add.co").string(),
                                     "--arg", "lhs=" + (dir.path() / "lhs.npy").string(), "--arg",
                                     "rhs=" + (dir.path() / "rhs.npy").string(), "--out",
                                     (dir.path() / "out.npy").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return croq::test::run_process(argv, env, dir.path());
  }

  void expect_sum() {
    croq::Tensor out = croq::cli::read_npy((dir.path() / "out.npy").string());
    ASSERT_EQ(out.shape(), croq::Shape({6, 9}));
    for (int i = 0; i < 54; ++i)
      EXPECT_EQ(static_cast<const std::int32_t*>(out.data())[i], (i * 7 - 100) + (3 - i)) << i;
  }

  croq::test::TempDir dir;
  croq::Tensor lhs, rhs;
};

TEST_F(RunInterpret, TheInterpretFlagRunsOnTheCpu) {
  auto r = run({"--interpret"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("result: s32 [6, 9]"), std::string::npos) << r.out;
  expect_sum();
}

TEST_F(RunInterpret, TheEnvironmentVariableRunsOnTheCpu) {
  auto r = run({}, {{"CROQ_INTERPRET", "1"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_sum();
}

}  // namespace
