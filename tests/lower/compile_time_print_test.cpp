// `print!` / `println!`: messages printed while a kernel is compiled (notes
// of the generated kernel), with the values known at that specialization.
// They add nothing to the kernel: its IR is the one without them.
#include <gtest/gtest.h>

#include <string>

#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::generate;
using test::tensor;

constexpr const char* kBody =
    "  parallel p by 2 {\n"
    "    %s"
    "    foreach i in [N / 2] {\n"
    "      %s"
    "      b.at(p * (N / 2) + i) = a.at(p * (N / 2) + i) + 1;\n"
    "    }\n"
    "  }\n"
    "}\n";

std::string source(const std::string& outer, const std::string& inner) {
  char buf[1024];
  std::snprintf(buf, sizeof buf, kBody, outer.c_str(), inner.c_str());
  return "__co__ void f(s32 [N] a, s32 [N] b) {\n" + std::string(buf);
}

TEST(CompileTimePrint, PrintsKnownValuesAsNotes) {
  GeneratedKernel k = generate(source("println!(\"a: \", a.span, \" #p: \", #p, \" N+1: \", N + 1);\n",
                                      "print!(\"i: \", i, \"\\n\");\n"),
                               {tensor(DType::s32, {16}), tensor(DType::s32, {16})});
  ASSERT_EQ(k.warnings.size(), 2u);
  EXPECT_EQ(k.warnings[0].severity, Severity::note);
  EXPECT_EQ(k.warnings[0].message, "a: [16] #p: 2 N+1: 17");
  EXPECT_EQ(k.warnings[0].line, 3);
  EXPECT_EQ(k.warnings[1].message, "i: (run-time value)");
  EXPECT_EQ(k.warnings[1].line, 5);
}

TEST(CompileTimePrint, LeavesTheKernelAsWithout) {
  GeneratedKernel with = generate(source("println!(\"N: \", N);\n", "print!(i);\n"), {tensor(DType::s32, {16}), tensor(DType::s32, {16})});
  GeneratedKernel without = generate(source("// no print\n", "// no print\n"), {tensor(DType::s32, {16}), tensor(DType::s32, {16})});
  EXPECT_EQ(with.cuda_source, without.cuda_source);
  EXPECT_TRUE(without.warnings.empty());
}

}  // namespace
}  // namespace croq::pipeline
