// Error recovery: one run reports every error of a source, in source order,
// and the statements between errors still parse.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "croq/error.hpp"
#include "frontend/frontend.hpp"

namespace croq::frontend {
namespace {

std::vector<Diagnostic> errors_of(const std::string& source, CompileOptions options = {}) {
  try {
    parse_program(source, options);
  } catch (const CompileError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected errors";
  return {};
}

TEST(Recovery, ReportsEveryErrorInOneFunction) {
  const std::string source =
      "__co__ void k(f16 [M, K] x, int n) {\n"  // 1
      "  f = dma.copy x shared;\n"               // 2: missing =>
      "  parallel p in 4 {\n"                    // 3: in instead of by
      "    n = 1;\n"                             // 4
      "  }\n"                                    // 5
      "  foreach i by [4] { n = 2; }\n"          // 6: by instead of in
      "  shard f16 [64] buf;\n"                  // 7: unknown memory specifier
      "  g = dma.copy x => shared;\n"            // 8: fine
      "  wait;\n"                                // 9: no future
      "}\n";
  auto d = errors_of(source);
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0].line, 2);
  EXPECT_EQ(d[0].column, 18);
  EXPECT_EQ(d[0].message, "expected `=>` after the copy source, found `shared`");
  EXPECT_EQ(d[0].length, 6);
  EXPECT_EQ(d[1].line, 3);
  EXPECT_EQ(d[1].column, 14);
  EXPECT_EQ(d[1].message, "expected `by` after the parallel index, found `in`");
  EXPECT_EQ(d[2].line, 6);
  EXPECT_EQ(d[2].column, 13);
  EXPECT_EQ(d[2].message, "expected `in` after the foreach index, found `by`");
  EXPECT_EQ(d[3].line, 7);
  EXPECT_EQ(d[3].column, 3);
  EXPECT_EQ(d[3].message, "unknown memory specifier `shard`; expected `global`, `shared` or `local`");
  EXPECT_EQ(d[4].line, 9);
  EXPECT_EQ(d[4].column, 7);
  EXPECT_EQ(d[4].message, "expected a future or event after `wait`, found `;`");
}

TEST(Recovery, ReportsErrorsOfEveryFunctionAndStage) {
  const std::string source =
      "#endif\n"                                     // 1: preprocessor
      "__co__ void a(s32 [8] x) {\n"                 // 2
      "  x.at(0) = ;\n"                              // 3: parser
      "}\n"                                          // 4
      "int main() { return 0; }\n"                   // 5: host code, skipped
      "__co__ void b(s32 [8] x) {\n"                 // 6
      "  dma.copy.swiz<100> x => shared;\n"          // 7: bad template argument
      "  mma.row.rwo c, a, b;\n"                     // 8: bad layout
      "  y = 1 @ 2;\n"                               // 9: stray character
      "}\n";
  auto d = errors_of(source);
  ASSERT_EQ(d.size(), 5u);
  std::vector<std::pair<int, int>> where;
  for (const Diagnostic& x : d) where.emplace_back(x.line, x.column);
  EXPECT_EQ(where, (std::vector<std::pair<int, int>>{{1, 2}, {3, 13}, {7, 17}, {8, 11}, {9, 9}}));
  EXPECT_EQ(d[0].message, "`#endif` without `#if`");
  EXPECT_EQ(d[1].message, "expected a value after `=`, found `;`");
  EXPECT_EQ(d[2].message, "bad template argument of `.swiz`: 100 is not a swizzle; expected 0, 1, 2, 3, 32, 64 or 128");
  EXPECT_EQ(d[3].message, "expected `row` or `col` after `mma.row.`, found `rwo`");
  EXPECT_EQ(d[4].message, "stray `@` in program");
}

TEST(Recovery, BrokenFunctionDoesNotHideTheNextOne) {
  const std::string source =
      "__co__ void a() {\n"
      "  parallel p by 4 {\n"
      "    n = 1;\n"
      "\n"
      "__co__ void b() {\n"
      "  wait;\n"
      "}\n";
  auto d = errors_of(source);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].line, 5);
  EXPECT_EQ(d[0].column, 1);
  EXPECT_EQ(d[0].message, "expected `}`, found `__co__`");
  EXPECT_EQ(d[0].hint, "the `{` at line 2, column 19 is never closed");
  EXPECT_EQ(d[1].line, 6);
  EXPECT_EQ(d[1].message, "expected a future or event after `wait`, found `;`");
}

TEST(Recovery, BrokenSignatureSkipsToTheNextFunction) {
  const std::string source =
      "__co__ void a(s32 [8] x y) { wait; }\n"
      "__co__ void b(s32 [8] 5) { }\n"
      "__co__ void c() { n = ; }\n";
  auto d = errors_of(source);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].message, "expected `,` or `)` after the parameter `x`, found `y`");
  EXPECT_EQ(d[1].message, "expected a parameter name, found `5`");
  EXPECT_EQ(d[2].message, "expected a value after `=`, found `;`");
  EXPECT_EQ(d[2].line, 3);
}

TEST(Recovery, StopsAfterFiftyErrors) {
  std::string source = "__co__ void k() {\n";
  for (int i = 0; i < 80; ++i) source += "  wait;\n";
  source += "}\n";
  auto d = errors_of(source);
  ASSERT_EQ(d.size(), 51u);
  EXPECT_EQ(d[49].line, 51);
  EXPECT_EQ(d[50].severity, Severity::note);
  EXPECT_EQ(d[50].message, "too many errors; stopping after 50");
}

TEST(Recovery, OverlongStatementIsAnErrorNotADeepTree) {
  std::string sum = "n = 0";
  for (int i = 0; i < 5000; ++i) sum += " + 1";
  auto d = errors_of("__co__ void k() {\n  " + sum + ";\n  wait;\n}\n");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].line, 2);
  EXPECT_EQ(d[0].message, "statement is too long (more than 4096 operands)");
  EXPECT_EQ(d[1].line, 3);  // the next statement is parsed again
}

TEST(Recovery, RenderedWithCaretAndHint) {
  const std::string source = "__co__ void k(f16 [8] x) {\n  parallel p in 4 { }\n}\n";
  try {
    CompileOptions options;
    options.source_name = "k.co";
    parse_program(source, options);
    FAIL() << "expected errors";
  } catch (const CompileError& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("k.co:2:14: error: expected `by` after the parallel index, found `in`"), std::string::npos)
        << text;
    EXPECT_NE(text.find("  parallel p in 4 { }"), std::string::npos) << text;
    EXPECT_NE(text.find("^~"), std::string::npos) << text;
    EXPECT_NE(text.find("hint: `parallel` takes `by`, `foreach` takes `in`"), std::string::npos) << text;
  }
}

TEST(Recovery, LocationsInsideDefinesPointAtTheUse) {
  // The error is in the expansion of BAD; it is reported where BAD is written.
  auto d = errors_of("#define BAD ) + 1\n__co__ void k() {\n  n = BAD;\n}\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 3);
  EXPECT_EQ(d[0].column, 7);
  EXPECT_EQ(d[0].message, "expected an expression, found `)`");
}

}  // namespace
}  // namespace croq::frontend
