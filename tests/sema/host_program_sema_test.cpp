// Host programs in sema: which host statements are a limitation
// (program-host-statement), reported by croq::compile as errors and by
// `croq check` as warnings, and which are accepted.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "common/error_text.hpp"
#include "sema_test_util.hpp"
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

// `__to<T>(x)` and scalars of element types are host code: a function of
// them alone returns its number from the host.
TEST(HostProgramSema, ConversionsAreHostCode) {
  EXPECT_EQ(compile_error("__co__ auto f(int i, float x) {\n"
                          "  bf16 z = __to<bf16>(x);\n"
                          "  u64 w = __to<u64>(i);\n"
                          "  return __to<f32>(z) + __to<f32>(w);\n"
                          "}\n"),
            "");
}

// `croq check`: a limitation in a statement (on its line) that has an error
// already, and a returned number beside a statement in error, add nothing.
TEST(HostProgramSema, LimitationsBesideAnErrorAreLeftOut) {
  sema::Options options;
  options.limitations_are_errors = false;
  const auto compile_error = [](const std::string& source, const sema::Options& o) {
    const std::optional<CompileError> e = sema::test::sema_error(source, o);
    return e ? std::string(e->what()) : std::string();
  };
  const std::string never_waited = compile_error("__co__ void f(s8 [1, 2] input) {\n"
                                                 "  parallel p by 1 {\n"
                                                 "    f = dma.copy.async input => global;\n"
                                                 "  }\n"
                                                 "}\n",
                                                 options);
  EXPECT_NE(never_waited.find(":3:5: error: `f` is the future of an asynchronous copy that is never waited for"),
            std::string::npos)
      << never_waited;
  EXPECT_EQ(never_waited.find("warning"), std::string::npos) << never_waited;
  const std::string beside = compile_error("#pragma croq intrinsic prefix outer_\n"
                                           "__co__ auto f(s32 [4] a) {\n"
                                           "  parallel p by 4\n"
                                           "    a.at(p) = 1;\n"
                                           "  outer_pass();\n"
                                           "  return 0;\n"
                                           "}\n",
                                           options);
  EXPECT_NE(beside.find(":5:3: error: intrinsic `outer_pass(...)` outside a parallel statement"), std::string::npos)
      << beside;
  EXPECT_EQ(beside.find("unsupported-return"), std::string::npos) << beside;
}

// Between kernels, the statement the host cannot run is named where it
// stands (inside a host loop too), and the host code beside it points there.
TEST(HostProgramSema, HostCodeBesideAStatementTheHostCannotRunNamesIt) {
  const std::string e = compile_error("__co__ void f(s32 [4] a, s32 [8] b) {\n"
                                      "  with x in [2] {\n"
                                      "    foreach x {}\n"
                                      "  }\n"
                                      "  with i in [2] {\n"
                                      "    foreach i {\n"
                                      "      t = dma.copy b.chunkat(i) => global;\n"
                                      "    }\n"
                                      "  }\n"
                                      "  parallel p by 4\n"
                                      "    a.at(p) = 1;\n"
                                      "  parallel q by 4\n"
                                      "    a.at(q) = 2;\n"
                                      "}\n");
  EXPECT_NE(e.find(":2:3: error: statements between the kernels of a program (host code) are not supported yet beside "
                   "this copy (the host copies with a synchronous `dma.copy a => b;`) at 7:7, which the host cannot run "
                   "[program-host-statement]"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find(":7:7: error: this copy (the host copies with a synchronous `dma.copy a => b;`) is not supported in "
                   "host code yet [program-host-statement]"),
            std::string::npos)
      << e;
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
