// The frontend's input limits (src/frontend/limits.hpp): define expansion,
// source size, the number and size of diagnostics, option defines. Each
// input here used to exhaust memory or time, or to pass silently.
#include <chrono>

#include "frontend/limits.hpp"
#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

using Clock = std::chrono::steady_clock;

// The bound every input must meet (no hang over 10 s); the inputs here took
// minutes or exhausted memory before their limits existed.
constexpr double kMaxSeconds = 10.0;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// `#define L0 1`, `#define L1 L0 + L0`, ... : L<n> expands to 2^(n+1) - 1 tokens.
std::string doubling_defines(int depth, const std::string& first = "1", const std::string& join = " + ") {
  std::string s = "#define L0 " + first + "\n";
  for (int i = 1; i <= depth; ++i)
    s += "#define L" + std::to_string(i) + " L" + std::to_string(i - 1) + join + "L" + std::to_string(i - 1) + "\n";
  return s;
}

// The only error of `source`, which must fail within kMaxSeconds.
Diagnostic single_error(const std::string& source) {
  auto start = Clock::now();
  std::vector<Diagnostic> d = parse_errors(source);
  EXPECT_LT(seconds_since(start), kMaxSeconds);
  EXPECT_EQ(d.size(), 1u) << render_diagnostics(d, source, "t.co");
  return d.empty() ? Diagnostic{} : d.front();
}

TEST(DefineLimits, ExponentialExpansionIsAnErrorNamingTheDefine) {
  for (int depth : {24, 30}) {
    SCOPED_TRACE("depth " + std::to_string(depth));
    std::string use = "L" + std::to_string(depth);
    std::string source = doubling_defines(depth) + "__co__ void k(int n) {\n  n = " + use + ";\n}\n";
    Diagnostic d = single_error(source);
    EXPECT_EQ(d.message, "the expansion of `" + use + "` grows past 65,536 tokens (the limit for one use of a define)");
    EXPECT_EQ(d.line, depth + 3);
    EXPECT_EQ(d.column, 7);
    EXPECT_NE(d.hint.find("define the value directly"), std::string::npos);
  }
}

TEST(DefineLimits, EmptyDefinesCountAgainstTheLimitToo) {
  // L40 expands to nothing, through 2^41 expansions.
  std::string source = doubling_defines(40, "", " ") + "__co__ void k(int n) {\n  n = 1 L40;\n}\n";
  Diagnostic d = single_error(source);
  EXPECT_EQ(d.message, "the expansion of `L40` grows past 65,536 tokens (the limit for one use of a define)");
}

TEST(DefineLimits, ExpansionInIfIsLimited) {
  std::string source = doubling_defines(30) + "#if L30 > 0\n#endif\n__co__ void k() { }\n";
  Diagnostic d = single_error(source);
  EXPECT_EQ(d.message, "the expansion of `L30` grows past 65,536 tokens (the limit for one use of a define)");
  EXPECT_EQ(d.line, 32);
}

TEST(DefineLimits, TheWholeSourceHasABudget) {
  // Each use stays under the per-use limit; together they pass the total.
  std::string big = "#define BIG 1";
  for (int i = 0; i < 30000; ++i) big += " + 1";
  std::string source = big + "\n__co__ void k(int n) {\n";
  for (int i = 0; i < 80; ++i) source += "  n = BIG;\n";
  source += "}\n";
  Diagnostic d = single_error(source);
  EXPECT_EQ(d.message, "defines expand to more than 4,194,304 tokens in this source; stopped at `BIG`");
}

TEST(DefineLimits, ChainsDeeperThanTheNestingLimitAreAnError) {
  std::string source = "#define A0 1\n";
  for (int i = 1; i <= 70; ++i) source += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + "\n";
  Diagnostic d = single_error(source + "__co__ void k(int n) {\n  n = A70;\n}\n");
  EXPECT_EQ(d.message, "the expansion of `A70` goes through more than 64 nested defines; `A6` is not expanded");
  EXPECT_EQ(d.line, 73);
  Diagnostic in_if = single_error(source + "#if A70 == 1\n#endif\n__co__ void k() { }\n");
  EXPECT_EQ(in_if.message, d.message);
  // 64 levels are fine.
  auto program = parse_ok(source + "__co__ void k(int n) {\n  n = A63;\n}\n");
  ASSERT_TRUE(program);
  EXPECT_EQ(std::get<std::int64_t>(*program->defines["A63"].value), 1);
}

TEST(SourceLimits, SourcesOverSixteenMibAreRefused) {
  std::string source(limits::kMaxSourceBytes + 1, ' ');
  Diagnostic d = single_error(source);
  EXPECT_EQ(d.message, "the source is 16,777,217 bytes; the limit is 16,777,216 bytes (16 MiB)");
  EXPECT_EQ(d.line, 0);
  // Exactly the limit is fine.
  source.pop_back();
  source.replace(0, 20, "__co__ void k() { }\n");
  EXPECT_TRUE(parse_ok(source));
}

TEST(SourceLimits, TokensAreCounted) {
  // 5M one-byte tokens of host code.
  Diagnostic d = single_error("__co__ void k() { }\n" + std::string(5 << 20, '('));
  EXPECT_EQ(d.message, "the source has more than 4,194,304 tokens, the limit");
  EXPECT_EQ(d.line, 2);
  EXPECT_EQ(d.column, 4194298);  // line 1 has 7 tokens
}

TEST(SourceLimits, UnclosedTemplateHeadersInHostCodeStayLinear) {
  std::string source;
  for (int i = 0; i < 400000; ++i) source += "template<";
  source += "\ntemplate <typename T> __co__ void k(T [4] x) { }\n";
  auto start = Clock::now();
  auto program = parse_ok(source);
  EXPECT_LT(seconds_since(start), kMaxSeconds);
  ASSERT_TRUE(program);
  ASSERT_EQ(program->functions.size(), 1u);
  EXPECT_EQ(program->functions[0].name, "k");
}

TEST(DiagnosticLimits, AtMostFiftyAndACount) {
  std::string source;
  for (int i = 0; i < 10000; ++i) source += "#endif\n";
  std::vector<Diagnostic> d = parse_errors(source);
  ASSERT_EQ(d.size(), limits::kMaxDiagnostics + 1);
  EXPECT_EQ(d[0].message, "`#endif` without `#if`");
  EXPECT_EQ(d.back().severity, Severity::note);
  EXPECT_EQ(d.back().message, "too many diagnostics: 9,950 more not shown");
  // Constant faults are bounded the same way.
  std::string faults = "__co__ void k(int n) {\n";
  for (int i = 0; i < 500; ++i) faults += "  n = n / 0;\n";
  d = parse_errors(faults + "}\n");
  ASSERT_EQ(d.size(), limits::kMaxDiagnostics + 1);
  EXPECT_EQ(d.back().message, "too many diagnostics: 450 more not shown");
}

TEST(DiagnosticLimits, MessagesAboutHugeTextStaySmall) {
  std::string name(2 << 20, 'a');
  std::string source = "__co__ void k(int n) {\n  n = 1 " + name + ";\n}\n";
  try {
    parse_program(source, {});
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    EXPECT_LT(std::string(e.what()).size(), 2000u) << std::string(e.what()).substr(0, 2000);
    EXPECT_NE(std::string(e.what()).find("expected `;`"), std::string::npos) << std::string(e.what()).substr(0, 500);
    EXPECT_LT(e.to_json().size(), 2000u);
  }
}

TEST(DiagnosticLimits, LongListsOfNamesAreCut) {
  std::string source;
  for (int i = 0; i < 10000; ++i) source += "__co__ void f" + std::to_string(i) + "() { }\n";
  auto program = parse_ok(source);
  ASSERT_TRUE(program);
  CompileOptions options;
  options.entry = "nope";
  try {
    select_entry(*program, options, program->source);
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    std::string message = e.diagnostics().at(0).message;
    EXPECT_EQ(message,
              "no __co__ function named `nope`; the source defines `f0`, `f1`, `f2`, `f3`, `f4`, `f5`, `f6`, `f7`, "
              "`f8`, `f9` and 9,990 more");
  }
  options.entry = std::string(1 << 20, 'x');
  try {
    select_entry(*program, options, program->source);
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    EXPECT_LT(std::string(e.what()).size(), 1000u);
  }
}

TEST(OptionDefines, NonFiniteValuesAndBadNamesAreErrors) {
  const std::string source = "__co__ void k(int n) {\n  n = X;\n}\n";
  struct Case {
    std::string name;
    DefineValue value;
    std::string message;
  };
  const Case cases[] = {
      {"X", std::numeric_limits<double>::infinity(),
       "the define `X` (CompileOptions::defines, --define) is inf, not a finite number"},
      {"X", -std::numeric_limits<double>::infinity(),
       "the define `X` (CompileOptions::defines, --define) is -inf, not a finite number"},
      {"X", std::numeric_limits<double>::quiet_NaN(),
       "the define `X` (CompileOptions::defines, --define) is nan, not a finite number"},
      {"1X", std::int64_t{1}, "the define `1X` (CompileOptions::defines, --define) is not a name"},
      {"X Y", std::int64_t{1}, "the define `X Y` (CompileOptions::defines, --define) is not a name"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    CompileOptions options;
    options.defines[c.name] = c.value;
    std::vector<Diagnostic> d = parse_errors(source, options);
    ASSERT_FALSE(d.empty());
    EXPECT_EQ(d.back().message, c.message);
    EXPECT_EQ(d.back().line, 0);
  }
}

TEST(OptionDefines, TheSmallestIntegerIsWrittenSoItFits) {
  CompileOptions options;
  options.defines["LOWEST"] = std::numeric_limits<std::int64_t>::min();
  options.defines["TINY"] = 1e-300;
  EXPECT_TRUE(parse_ok("__co__ void k(int n) {\n  n = LOWEST + 1;\n  n = TINY;\n}\n", options));
  std::vector<Diagnostic> d = parse_errors("__co__ void k(int n) {\n  n = LOWEST - 1;\n}\n", options);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "`LOWEST - 1` overflows a 64-bit signed integer (-9223372036854775808 - 1)");
}

}  // namespace
}  // namespace croq::frontend::testing
