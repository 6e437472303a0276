// Parameters whose dims the call gives: dims without a name (`f32 [?, 4]`)
// and a rank only (`f32 mdspan<2>`) are checked as tensors of their rank;
// a rank only of a rank libcroqjit cannot give dims to stays the limitation
// unsupported-parameter (its rule case: declaration_cases.cpp).
#include <gtest/gtest.h>

#include <string>

#include "common/error_text.hpp"
#include "sema_test_util.hpp"

namespace croq::sema::test {
namespace {

TEST(ParamFormsSema, UnnamedDimsAndRankOnlyParametersHaveNoLimitation) {
  const std::string source =
      "__co__ void f(f32 mdspan<2> x, f32 [?, 4] y, s32 mdspan<1> z) {\n"
      "  parallel p by x.span(0) {\n"
      "    foreach c in [x.span(1)]\n"
      "      x.at(p, c) = y.at(p, 0) + z.at(c);\n"
      "  }\n"
      "}\n";
  CheckedSource c = check_source(source);
  EXPECT_TRUE(c.checked.limitations.empty()) << c.checked.limitations.front().message;
  EXPECT_EQ(croq::test::compile_error(source), "");
}

TEST(ParamFormsSema, UsesOfTheRankAreChecked) {
  const std::string e = croq::test::compile_error(
      "__co__ void f(f32 mdspan<2> x) {\n"
      "  parallel p by 2 {\n"
      "    x.at(p, 0, 1) = 1.0f;\n"
      "  }\n"
      "}\n");
  EXPECT_NE(e.find("`.at` on a rank-2 tensor takes 2 indices, got 3 [at-arity]"), std::string::npos) << e;
}

TEST(ParamFormsSema, ARankOnlyOfADefineHasItsDims) {
  EXPECT_EQ(croq::test::compile_error("#define R 2\n"
                                      "__co__ void f(f32 mdspan<R> x) {\n"
                                      "  parallel p by x.span(0)\n"
                                      "    x.at(p, x.span(1) - 1) = 1.0f;\n"
                                      "}\n"),
            "");
}

}  // namespace
}  // namespace croq::sema::test
