// `croq compile` of a function whose parameters have dims without a name:
// `--shape x=E0,E1,...` gives each of them (`--shape x=E` for one dim), and a
// parameter left out, or a malformed list, is an error that says so.
#include <gtest/gtest.h>

#include <string>

#include "common/croq_command.hpp"

namespace croq::cli {
namespace {

constexpr const char* kSource = R"(
__co__ void scale_rows(f32 mdspan<2> x, f32 [?] factor, f32 [?, 5] out) {
  parallel r by x.span(0) {
    foreach c in [x.span(1)]
      out.at(r, c) = x.at(r, c) * factor.at(r);
  }
}
)";

TEST(CroqCompileParamForms, EachParameterGetsItsExtents) {
  TempDir dir;
  const std::string path = write(dir, "rows.co", kSource);
  auto ok = run_process({kCroq, "compile", path, "--emit", "cuda", "--shape", "x=3,5", "--shape", "factor=3", "--shape",
                         "out=3,5"},
                        {}, dir.path());
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("`scale_rows` for f32 [3, 5] f32 [3] f32 [3, 5]"), std::string::npos) << ok.out;
}

TEST(CroqCompileParamForms, AParameterLeftOutOrAMalformedListIsNamed) {
  TempDir dir;
  const std::string path = write(dir, "rows.co", kSource);
  auto missing = run_process({kCroq, "compile", path, "--shape", "x=3,5", "--shape", "factor=3"}, {}, dir.path());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("parameter 'out' has dims without a name; give its extents with --shape out=E0,E1,... "
                             "(one per dim)"),
            std::string::npos)
      << missing.err;
  auto zero = run_process({kCroq, "compile", path, "--shape", "x=3,0"}, {}, dir.path());
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("--shape x=E0,E1,...: each extent is a positive integer, got `3,0`"), std::string::npos)
      << zero.err;
}

}  // namespace
}  // namespace croq::cli
