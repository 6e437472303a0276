// Preprocessing: defines, conditionals, option precedence, locations.
#include "frontend/preprocess.hpp"
#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

struct Preprocessed {
  PreprocessedTokens result;
  std::vector<Diagnostic> diags;
  std::string text;  // token texts joined by spaces
};

Preprocessed run(const std::string& source, std::map<std::string, DefineValue> options = {}) {
  static std::vector<std::string> keep;  // tokens point into the source
  keep.push_back(source);
  Preprocessed p;
  auto tokens = tokenize(keep.back(), p.diags);
  p.result = preprocess(tokens, options, p.diags);
  for (const Token& t : p.result.tokens) {
    if (t.kind == TokenKind::end_of_file) break;
    if (!p.text.empty()) p.text += " ";
    p.text += t.text;
  }
  return p;
}

TEST(Preprocess, ExpandsObjectLikeDefines) {
  auto p = run("#define M 128\n#define K (M * 2)\nx = M + K;");
  EXPECT_EQ(p.text, "x = 128 + ( 128 * 2 ) ;");
  EXPECT_TRUE(p.diags.empty());
  ASSERT_EQ(p.result.defines.count("K"), 1u);
  EXPECT_EQ(p.result.defines["K"].text, "(M * 2)");
  EXPECT_EQ(std::get<std::int64_t>(*p.result.defines["K"].value), 256);
  EXPECT_EQ(p.result.defines["M"].line, 1);
}

TEST(Preprocess, ExpandedTokensKeepTheLocationOfTheUse) {
  auto p = run("#define M 128\n\n   y = M;");
  const Token& t = p.result.tokens[2];
  EXPECT_EQ(t.text, "128");
  EXPECT_EQ(t.line, 3);
  EXPECT_EQ(t.column, 8);
  EXPECT_EQ(t.offset, 22);
}

TEST(Preprocess, SelfReferenceStops) {
  auto p = run("#define A A + 1\n#define B C\n#define C B\nA B");
  EXPECT_EQ(p.text, "A + 1 B");
}

TEST(Preprocess, OptionDefinesOverrideSourceDefines) {
  // CompileOptions::defines win over `#define` of the same name and supply
  // names the source does not define.
  auto p = run("#define M 128\n#if M == 64\nsmall\n#else\nbig\n#endif\nM N", {{"M", std::int64_t{64}}, {"N", 2.5}});
  EXPECT_EQ(p.text, "small 64 2.5");
  EXPECT_TRUE(p.result.defines["M"].from_options);
  EXPECT_EQ(p.result.defines["M"].line, 1);
  EXPECT_EQ(std::get<std::int64_t>(*p.result.defines["M"].value), 64);
  EXPECT_EQ(std::get<double>(*p.result.defines["N"].value), 2.5);
}

TEST(Preprocess, NegativeOptionValuesAreParenthesized) {
  auto p = run("x - N", {{"N", std::int64_t{-3}}});
  EXPECT_EQ(p.text, "x - ( - 3 )");
}

TEST(Preprocess, Conditionals) {
  auto p = run(
      "#define A 1\n"
      "#if A && (2 * 3 == 6)\n one\n#elif 1\n two\n#else\n three\n#endif\n"
      "#ifdef A\n four\n#endif\n"
      "#ifndef A\n five\n#elif defined(A) && !defined B\n six\n#endif\n"
      "#if 0\n #if 1\n seven\n #endif\n#else\n eight\n#endif\n");
  EXPECT_EQ(p.text, "one four six eight");
  EXPECT_TRUE(p.diags.empty());
}

TEST(Preprocess, UndefRemovesADefine) {
  auto p = run("#define A 1\n#undef A\n#ifdef A\nyes\n#else\nno\n#endif\nA");
  EXPECT_EQ(p.text, "no A");
  EXPECT_EQ(p.result.defines.count("A"), 0u);
}

TEST(Preprocess, HostDirectivesAreDropped) {
  auto p = run("#include <cstdio>\n#pragma once\n#include \"croqtile.h\"\nint x;");
  EXPECT_EQ(p.text, "int x ;");
  EXPECT_TRUE(p.result.tokens[0].follows_directive);
}

TEST(Preprocess, HashOperatorIsNotADirective) {
  auto p = run("foreach i in [128 /\n#tile]");
  EXPECT_EQ(p.text, "foreach i in [ 128 / # tile ]");
}

TEST(Preprocess, FunctionLikeDefinesAreRecordedNotExpanded) {
  auto p = run("#define SQ(x) ((x) * (x))\nSQ(3)");
  EXPECT_EQ(p.text, "SQ ( 3 )");
  EXPECT_TRUE(p.result.defines["SQ"].function_like);
}

TEST(Preprocess, Errors) {
  auto p = run("#endif\n#if\n#endif\n#if 1 / 0\n#endif\n#else\n#ifdef X\n");
  ASSERT_EQ(p.diags.size(), 5u);
  EXPECT_EQ(p.diags[0].message, "`#endif` without `#if`");
  EXPECT_EQ(p.diags[0].line, 1);
  EXPECT_EQ(p.diags[0].column, 2);
  EXPECT_EQ(p.diags[1].message, "expected an expression after `#if`");
  EXPECT_EQ(p.diags[1].line, 2);
  EXPECT_EQ(p.diags[2].message, "`1 / 0` divides by zero in the `#if` condition");
  EXPECT_EQ(p.diags[2].line, 4);
  EXPECT_EQ(p.diags[3].message, "`#else` without `#if`");
  EXPECT_EQ(p.diags[4].message, "unterminated `#ifdef`: no matching `#endif`");
  EXPECT_EQ(p.diags[4].line, 7);
}

TEST(Preprocess, ErrorAndWarningDirectives) {
  auto p = run("#if 0\n#error \"inactive\"\n#endif\n#warning slow path\n#error \"need sm_90\"\n");
  ASSERT_EQ(p.diags.size(), 2u);
  EXPECT_EQ(p.diags[0].severity, Severity::warning);
  EXPECT_EQ(p.diags[0].message, "#warning: slow path");
  EXPECT_EQ(p.diags[0].line, 4);
  EXPECT_EQ(p.diags[1].severity, Severity::error);
  EXPECT_EQ(p.diags[1].message, "#error: \"need sm_90\"");
  EXPECT_EQ(p.diags[1].line, 5);
  EXPECT_EQ(p.diags[1].column, 2);
}

TEST(Preprocess, WarningsAreReturnedNotThrown) {
  auto program = parse_ok("#warning check tiles\n__co__ void f() { }\n");
  ASSERT_NE(program, nullptr);
  ASSERT_EQ(program->warnings.size(), 1u);
  EXPECT_EQ(program->warnings[0].message, "#warning: check tiles");
}

TEST(Preprocess, DefinesReachTheProgram) {
  CompileOptions options;
  options.defines["TILE"] = std::int64_t{32};
  auto program = parse_ok("#define TILE 64\n#define WIDTH 128\n__co__ void f(s32 [WIDTH] x) { }", options);
  ASSERT_NE(program, nullptr);
  EXPECT_EQ(std::get<std::int64_t>(*program->defines.at("TILE").value), 32);
  EXPECT_EQ(std::get<std::int64_t>(*program->defines.at("WIDTH").value), 128);
  EXPECT_EQ(print_expression(*program->functions[0].params[0].type.shape[0]), "128");
}

}  // namespace
}  // namespace croq::frontend::testing

namespace croq::frontend::testing {
namespace {

// `#if` computes as C does: a `u` literal is unsigned and makes the
// operation unsigned (wrapping), comparisons and `!` give a signed 0 or 1,
// a shift has its left operand's type (issue 30: these wrapped silently).
TEST(Preprocess, UnsignedArithmeticInIfFollowsC) {
  struct Case {
    const char* condition;
    bool taken;
  };
  for (const Case& c : std::vector<Case>{
           {"18446744073709551615u == -1", true},
           {"9223372036854775808u > 0", true},
           {"-1 < 0u", false},  // -1 converts to UINT64_MAX
           {"-1 < 0", true},
           {"0u - 1 == 18446744073709551615u", true},  // wraps, no overflow error
           {"-1u == 18446744073709551615u", true},
           {"~0u == 18446744073709551615u", true},
           {"(1 ? -1 : 0u) > 0", true},  // ?: converts both branches
           {"18446744073709551615u / 2 == 9223372036854775807", true},
           {"1u << 63 == 9223372036854775808u", true},
           {"!0u == 1 && (0u < 1) == 1", true},
           {"(-1 >> 1) < 0", true},  // a signed left operand stays signed
           {"0 && 1u / 0u", false},
       }) {
    auto p = run(std::string("#if ") + c.condition + "\nyes\n#else\nno\n#endif\n");
    EXPECT_TRUE(p.diags.empty()) << c.condition << ": " << (p.diags.empty() ? "" : p.diags[0].message);
    EXPECT_EQ(p.text, c.taken ? "yes" : "no") << c.condition;
  }
}

TEST(Preprocess, UnsignedFaultsAndSignedOverflowInIf) {
  auto p = run("#if 1u / 0\n#endif\n#if 1u << 64\n#endif\n#if 9223372036854775807 + 1\n#endif\n"
               "#if 18446744073709551616u\n#endif\n#if 9223372036854775808\n#endif\n");
  ASSERT_EQ(p.diags.size(), 5u);
  EXPECT_EQ(p.diags[0].message, "`1u / 0` divides by zero in the `#if` condition");
  EXPECT_EQ(p.diags[1].message, "`1u << 64` shifts by a negative amount or by 64 bits or more in the `#if` condition");
  EXPECT_EQ(p.diags[2].message, "`9223372036854775807 + 1` overflows a 64-bit signed integer in the `#if` condition");
  EXPECT_EQ(p.diags[3].message,
            "integer literal `18446744073709551616u` does not fit in a 64-bit unsigned integer");
  EXPECT_EQ(p.diags[4].message,
            "integer literal `9223372036854775808` does not fit in a 64-bit signed integer");
}

// A define whose value is unsigned beyond INT64_MAX is no signed constant.
TEST(Preprocess, UnsignedDefineValuesAboveTheSignedRange) {
  auto p = run("#define BIG 18446744073709551615u\n#define SMALL 5u\n#if BIG == -1\nyes\n#endif\n");
  EXPECT_EQ(p.text, "yes");
  EXPECT_FALSE(p.result.defines["BIG"].value.has_value());
  EXPECT_EQ(std::get<std::int64_t>(*p.result.defines["SMALL"].value), 5);
}

}  // namespace
}  // namespace croq::frontend::testing
