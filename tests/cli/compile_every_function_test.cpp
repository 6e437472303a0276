// `croq compile` on a source of several __co__ functions and no --entry:
// each function is compiled, in source order, under a header line; one
// that fails is reported and the others still come out.
#include <gtest/gtest.h>

#include <string>

#include "common/croq_command.hpp"

namespace croq::cli {
namespace {

// `scaled` has a symbolic dim the command does not bind, so it alone fails.
constexpr const char* kThree = R"(
__co__ f32 [64] twice(f32 [64] x) {
  f32 [x.span] y;
  parallel i by 64
    y.at(i) = x.at(i) * 2.0f;
  return y;
}
__co__ f32 [N] scaled(f32 [N] x) {
  f32 [x.span] y;
  parallel i by N
    y.at(i) = x.at(i) * 3.0f;
  return y;
}
__co__ f32 [32] plus_one(f32 [32] x) {
  f32 [x.span] y;
  parallel i by 32
    y.at(i) = x.at(i) + 1.0f;
  return y;
}
)";

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(CroqCompileEveryFunction, EachFunctionUnderItsHeaderAndTheFailureNamed) {
  TempDir dir;
  const std::string path = write(dir, "three.co", kThree);
  auto all = run_process({kCroq, "compile", path}, {}, dir.path());
  EXPECT_EQ(all.exit_code, 1);
  const std::size_t first = all.out.find("// ==== __co__ twice\n");
  const std::size_t third = all.out.find("// ==== __co__ plus_one\n");
  ASSERT_NE(first, std::string::npos) << all.out;
  ASSERT_NE(third, std::string::npos) << all.out;
  EXPECT_LT(first, third);
  EXPECT_EQ(all.out.find("__co__ scaled"), std::string::npos) << all.out;
  EXPECT_EQ(count(all.out, "__global__"), 2u) << all.out;
  EXPECT_NE(all.out.find("croq_twice("), std::string::npos);
  EXPECT_NE(all.out.find("croq_plus_one("), std::string::npos);
  EXPECT_NE(all.err.find("symbolic dim N; give it with --shape N=N"), std::string::npos) << all.err;
  EXPECT_NE(all.err.find("croq compile: 1 of 3 __co__ functions failed"), std::string::npos) << all.err;

  // Binding N, all three compile.
  auto bound = run_process({kCroq, "compile", path, "--emit", "ir", "--shape", "N=16"}, {}, dir.path());
  ASSERT_EQ(bound.exit_code, 0) << bound.err;
  EXPECT_EQ(count(bound.out, "// ==== __co__ "), 3u) << bound.out;
  EXPECT_NE(bound.out.find("// ==== __co__ scaled\nkernel croq_scaled"), std::string::npos) << bound.out;
}

TEST(CroqCompileEveryFunction, EntryChoosesOneAndCubinNeedsIt) {
  TempDir dir;
  const std::string path = write(dir, "three.co", kThree);
  auto one = run_process({kCroq, "compile", path, "--entry", "plus_one"}, {}, dir.path());
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out.find("// ===="), std::string::npos) << one.out;
  EXPECT_EQ(count(one.out, "__global__"), 1u);
  const std::string cubin = (dir.path() / "k.cubin").string();
  auto bin = run_process({kCroq, "compile", path, "--emit", "cubin", "-o", cubin}, {}, dir.path());
  EXPECT_EQ(bin.exit_code, 2);
  EXPECT_NE(bin.err.find("the source defines 3 __co__ functions (one cubin each); choose one with --entry"),
            std::string::npos)
      << bin.err;
  EXPECT_FALSE(std::filesystem::exists(cubin));
}

// Names past the short-string buffer (16 characters and more) come out
// whole: the list of functions is read from a program that is still alive.
TEST(CroqCompileEveryFunction, LongNamesAreTheFunctionsNames) {
  TempDir dir;
  const std::string path = write(dir, "long.co", R"(
__co__ f32 [8] twice_every_element_of_x(f32 [8] x) {
  f32 [x.span] y;
  parallel i by 8
    y.at(i) = x.at(i) * 2.0f;
  return y;
}
__co__ f32 [8] add_one_to_every_element(f32 [8] x) {
  f32 [x.span] y;
  parallel i by 8
    y.at(i) = x.at(i) + 1.0f;
  return y;
}
)");
  auto all = run_process({kCroq, "compile", path, "--emit", "ir"}, {}, dir.path());
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("// ==== __co__ twice_every_element_of_x\n"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("// ==== __co__ add_one_to_every_element\n"), std::string::npos) << all.out;
  EXPECT_EQ(all.err.find("no __co__ function named"), std::string::npos) << all.err;
}

}  // namespace
}  // namespace croq::cli
