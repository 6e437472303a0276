// Host programs in sema: which host statements are a limitation
// (program-host-statement), reported by croq::compile as errors and by
// `croq check` as warnings, and which are accepted.
#include <gtest/gtest.h>

#include <string>

#include "common/error_text.hpp"
#include "croq/croq.hpp"

namespace croq {
namespace {

using test::compile_error;

TEST(HostProgramSema, PrintsScalarsLoopsAndBranchesAroundKernelsAreAccepted) {
  EXPECT_EQ(compile_error("__co__ void f(f32 [8] a, int n) {\n"
                          "  mutable int t = 0;\n"
                          "  foreach i in [n] {\n"
                          "    parallel p by 8\n"
                          "      a.at(p) = a.at(p) + i;\n"
                          "    t += i;\n"
                          "  }\n"
                          "  if (t > 3) println(\"big \", t); else println(\"small\");\n"
                          "}\n"),
            "");
}

// Host code the host cannot run (here a store into a shared tensor, which
// no other kernel sees) keeps the function on its earlier path: between two
// kernels it is the limitation, named.
TEST(HostProgramSema, SharedStoreBetweenKernelsIsALimitation) {
  const std::string e = compile_error("__co__ void f(s32 [4] a) {\n"
                                      "  shared s32 [4] s;\n"
                                      "  parallel p by 4\n"
                                      "    a.at(p) = 1;\n"
                                      "  println(\"x\");\n"
                                      "  s.at(0) = 2;\n"
                                      "  parallel q by 4\n"
                                      "    a.at(q) = 1;\n"
                                      "}\n");
  EXPECT_NE(e.find(":6:3: error: a store into a tensor in shared or local memory is not supported in host code yet "
                   "[program-host-statement]"),
            std::string::npos)
      << e;
}

// With no kernel around it, device work at the host level runs as one
// kernel of one thread, prints included, as before host programs.
TEST(HostProgramSema, DeviceWorkWithoutKernelsStaysOneKernel) {
  EXPECT_EQ(compile_error("__co__ void f(s32 [4] a) {\n  a.at(0) = 2;\n  println(\"x\", a.at(0));\n}\n"), "");
}

// A host statement in error (a shape name bound again) is that error, not
// also the limitation.
TEST(HostProgramSema, HostStatementInErrorIsNotALimitationToo) {
  const std::string e = compile_error("__co__ void f(s32 [4] a) {\n"
                                      "  parallel p by 4\n"
                                      "    a.at(p) = 1;\n"
                                      "  m : [3, 4];\n"
                                      "  m = [7, 8];\n"
                                      "  parallel q by 4\n"
                                      "    a.at(q) = 1;\n"
                                      "}\n");
  EXPECT_NE(e.find(":5:3: error: cannot assign to `m` [assign-target]"), std::string::npos) << e;
  EXPECT_EQ(e.find("program-host-statement"), std::string::npos) << e;
}

TEST(HostProgramSema, TensorDeclaredInAHostLoopIsALimitation) {
  const std::string e = compile_error("__co__ void f(s32 [4] a) {\n"
                                      "  foreach i in [2] {\n"
                                      "    s32 [4] t;\n"
                                      "    parallel p by 4\n"
                                      "      a.at(p) = i;\n"
                                      "  }\n"
                                      "}\n");
  EXPECT_NE(e.find(":3:5: error: a tensor or event declared inside host control flow is not supported in host code "
                   "yet [program-host-statement]"),
            std::string::npos)
      << e;
}

TEST(HostProgramSema, HostOnlyFunctionReturningATensorIsALimitation) {
  const std::string e = compile_error("__co__ s32 [4] f(s32 [4] a) {\n"
                                      "  s32 [a.span] out;\n"
                                      "  println(\"x\");\n"
                                      "  return out;\n"
                                      "}\n");
  EXPECT_NE(e.find("error: a function with no parallel statement returns no tensor yet [program-host-statement]"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace croq
