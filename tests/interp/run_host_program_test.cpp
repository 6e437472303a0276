// `croq run --interpret` of host programs: the host statements print on
// standard output around the kernels, in order, before the run's summary.
#include <gtest/gtest.h>

#include <fstream>

#include "common/process.hpp"

namespace {

croq::test::ProcessResult run_file(const croq::test::TempDir& dir, const std::string& source,
                                   std::vector<std::string> extra) {
  std::ofstream(dir.path() / "program.co") << source;
  std::vector<std::string> argv = {std::string(CROQ_BINARY_DIR) + "/croq", "run", (dir.path() / "program.co").string(),
                                   "--interpret"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return croq::test::run_process(argv, {}, dir.path());
}

TEST(RunHostProgram, FunctionWithoutParallelStatementPrints) {
  croq::test::TempDir dir;
  auto r = run_file(dir, "__co__ void hello() {\n  int a = 3;\n  println(\"Hello \", a, \" \", __max(a, 7));\n}\n", {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Hello 3 7\n");
}

TEST(RunHostProgram, HostLoopAroundAKernelPrintsEachIteration) {
  croq::test::TempDir dir;
  auto r = run_file(dir,
                    "__co__ void steps(s32 [N] a) {\n"
                    "  foreach i in [3] {\n"
                    "    parallel p by N\n"
                    "      a.at(p) = a.at(p) + i;\n"
                    "    println(\"step \", i);\n"
                    "  }\n"
                    "}\n",
                    {"--random", "1", "--shape", "N=16"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("step 0\nstep 1\nstep 2\n", 0), 0u) << r.out;
}

// A returned number prints as the run's result: its type and value.
TEST(RunHostProgram, ReturnedNumberIsTheResult) {
  croq::test::TempDir dir;
  auto r = run_file(dir,
                    "__co__ auto counted(s32 [N] a) {\n"
                    "  mutable int total = 0;\n"
                    "  foreach i in [3] {\n"
                    "    parallel p by N\n"
                    "      a.at(p) = a.at(p) + i;\n"
                    "    total += i;\n"
                    "  }\n"
                    "  return total * 0.5f;\n"
                    "}\n",
                    {"--random", "1", "--shape", "N=16"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("result: f32 1.5\n"), std::string::npos) << r.out;
}

}  // namespace
