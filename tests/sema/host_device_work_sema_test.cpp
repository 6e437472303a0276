// Device work in host code (frontend/host_code.hpp: element stores and
// copies between kernels, each a kernel of its own) and host `while` loops:
// what sema accepts, and what stays the limitation program-host-statement.
#include <gtest/gtest.h>

#include <string>

#include "common/error_text.hpp"
#include "croq/croq.hpp"

namespace croq {
namespace {

using test::compile_error;

TEST(HostDeviceWorkSema, ElementStoreBetweenKernelsIsAccepted) {
  EXPECT_EQ(compile_error("__co__ void f(s32 [4] a) {\n"
                          "  parallel p by 4\n"
                          "    a.at(p) = 1;\n"
                          "  a.at(0) = 2;\n"
                          "  parallel q by 4\n"
                          "    a.at(q) = a.at(q) + 1;\n"
                          "}\n"),
            "");
}

TEST(HostDeviceWorkSema, CopiesAndStoresInAHostLoopAreAccepted) {
  EXPECT_EQ(compile_error("__co__ void f(f32 [4, 8] a, f32 [4, 8] b) {\n"
                          "  foreach i in [4] {\n"
                          "    dma.copy a.subspan(1, 8).at(i, 0) => b.subspan(1, 8).at(i, 0);\n"
                          "    b.at(i, 0) = i;\n"
                          "    parallel p by 8\n"
                          "      a.at(i, p) = b.at(i, p) * 2.0f;\n"
                          "  }\n"
                          "  dma.copy a => b;\n"
                          "}\n"),
            "");
}

TEST(HostDeviceWorkSema, HostWhileAroundAKernelIsAccepted) {
  EXPECT_EQ(compile_error("__co__ void f(f32 [8] a, int n) {\n"
                          "  mutable int left = n;\n"
                          "  while (left > 0) {\n"
                          "    parallel p by 8\n"
                          "      a.at(p) = a.at(p) + left;\n"
                          "    left -= 3;\n"
                          "  }\n"
                          "}\n"),
            "");
}

TEST(HostDeviceWorkSema, AsyncCopyBetweenKernelsIsALimitation) {
  const std::string e = compile_error("__co__ void f(f32 [8] a, f32 [8] b) {\n"
                                      "  parallel p by 8\n"
                                      "    a.at(p) = 1.0f;\n"
                                      "  println(\"x\");\n"
                                      "  f = dma.copy.async a => b;\n"
                                      "  wait f;\n"
                                      "  parallel q by 8\n"
                                      "    b.at(q) = 2.0f;\n"
                                      "}\n");
  EXPECT_NE(e.find(":5:3: error: this copy (the host copies with a synchronous `dma.copy a => b;`) is not supported "
                   "in host code yet [program-host-statement]"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace croq
