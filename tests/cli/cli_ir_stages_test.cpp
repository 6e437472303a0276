// croq compile --emit ir --after STAGE [--full]: the IR between stages.
#include <gtest/gtest.h>

#include "common/croq_command.hpp"
#include "passes/passes.hpp"

namespace croq::cli {
namespace {

croq::test::ProcessResult compile_ir(const std::vector<std::string>& extra, const TempDir& dir) {
  std::vector<std::string> argv{kCroq, "compile", kAdd, "--shape", "M=8", "--shape", "N=8", "--emit", "ir"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run_process(argv, {}, dir.path());
}

TEST(CroqCompileIr, AfterAStage) {
  TempDir dir;
  auto last = compile_ir({}, dir);
  ASSERT_EQ(last.exit_code, 0) << last.err;
  auto after_layout = compile_ir({"--after", "lay_out_shared_memory"}, dir);
  ASSERT_EQ(after_layout.exit_code, 0) << after_layout.err;
  EXPECT_EQ(after_layout.out, last.out) << "the last pass's IR is --emit ir's";
  auto lowered = compile_ir({"--after", "lower"}, dir);
  ASSERT_EQ(lowered.exit_code, 0) << lowered.err;
  // Before choose_index_width: the largest index lowering found, no width yet.
  EXPECT_EQ(lowered.out.rfind("kernel croq_add: grid 1, block 64, shared 0 bytes, indices up to 64\n", 0), 0u)
      << lowered.out;
  EXPECT_NE(lowered.out.find("let index "), std::string::npos) << lowered.out;
  auto full = compile_ir({"--after", "vectorize_copies", "--full"}, dir);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_EQ(full.out.rfind("kernel croq_add: grid 1, block 64, shared 0 bytes {function=\"add\"", 0), 0u) << full.out;
  EXPECT_NE(full.out.find("{pos="), std::string::npos) << full.out;
}

TEST(CroqCompileIr, UnknownStagesAndMisplacedFlagsAreUsageErrors) {
  TempDir dir;
  auto unknown = compile_ir({"--after", "vectorise"}, dir);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "croq: compile: --after takes a stage (" + passes::stage_names() +
                             "), got `vectorise`\n(run `croq --help` for usage)\n");
  auto cuda = run_process({kCroq, "compile", kAdd, "--shape", "M=8", "--shape", "N=8", "--after", "lower"}, {}, dir.path());
  EXPECT_EQ(cuda.exit_code, 2);
  EXPECT_EQ(cuda.err, "croq: compile: --after goes with --emit ir\n(run `croq --help` for usage)\n");
  auto full = run_process({kCroq, "compile", kAdd, "--shape", "M=8", "--shape", "N=8", "--full"}, {}, dir.path());
  EXPECT_EQ(full.exit_code, 2);
  EXPECT_EQ(full.err, "croq: compile: --full goes with --emit ir\n(run `croq --help` for usage)\n");
  auto twice = compile_ir({"--after", "lower", "--after", "vectorize_copies"}, dir);
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("--after is given twice (`lower` and `vectorize_copies`); give it once"), std::string::npos)
      << twice.err;
}

}  // namespace
}  // namespace croq::cli
