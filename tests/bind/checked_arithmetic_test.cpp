// Integer arithmetic on source values during specialization (constant folding,
// shapes, counts, tile arithmetic, parameter dims) is checked: overflow,
// INT64_MIN / -1, division by zero and bad shifts are CompileErrors at the
// expression, never SIGFPE or undefined behaviour, and every value that
// folds is the exact mathematical result.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/specialize_test_util.hpp"
#include "pipeline/specialize.hpp"
#include "croq/error.hpp"

namespace croq::pipeline {
namespace {

using test::generate;
using test::tensor;

constexpr const char* kInt64Min = "(-9223372036854775807-1)";

// The error specialization reports for `source` with one u8 [N] argument, or
// nothing when it generates.
std::optional<CompileError> error_of(const std::string& source, std::int64_t n = 16) {
  try {
    generate(source, {tensor(DType::u8, {n})});
  } catch (const CompileError& e) {
    return e;
  }
  return std::nullopt;
}

struct FaultCase {
  std::string name;
  std::string body;  // statements of `__co__ void f(u8 [N] a) { ... }`, starting on line 2
  std::string message_part;
  int line = 2;
};

class ArithmeticFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(ArithmeticFaults, AreCompileErrorsAtTheExpression) {
  const FaultCase& c = GetParam();
  std::optional<CompileError> e = error_of("__co__ void f(u8 [N] a) {\n" + c.body + "\n}\n", std::int64_t{1} << 62);
  ASSERT_TRUE(e) << c.body;
  ASSERT_EQ(e->diagnostics().size(), 1u) << e->what();
  const Diagnostic& d = e->diagnostics()[0];
  EXPECT_NE(d.message.find(c.message_part), std::string::npos) << e->what();
  EXPECT_EQ(d.line, c.line) << e->what();
  EXPECT_GT(d.column, 0) << e->what();
}

INSTANTIATE_TEST_SUITE_P(
    Codegen, ArithmeticFaults,
    ::testing::Values(
        // The two reproducers: INT64_MIN / -1 as a parallel count traps on x86.
        FaultCase{"MinDivMinusOneAsParallelCount",
                  "  parallel p by " + std::string(kInt64Min) + " / -1 : block { a.at(0) = 1; }",
                  "overflows a 64-bit signed integer (-9223372036854775808 / -1)"},
        FaultCase{"DivisionByZeroInALoopBound", "  foreach i in [4 / 0] { a.at(0) = 1; }", "divides by zero"},
        FaultCase{"RemainderByZero", "  foreach i in [4 % (2 - 2)] { a.at(0) = 1; }", "divides by zero"},
        FaultCase{"RuntimeDivisionByConstantZero", "  parallel i by 4 { a.at(i) = i / 0; }", "divides by zero"},
        FaultCase{"CdivByZero", "  foreach i in [cdiv(N, 0)] { a.at(0) = 1; }", "divides by zero"},
        FaultCase{"AdditionOverflow", "  foreach i in [9223372036854775807 + 1] { a.at(0) = 1; }",
                  "`9223372036854775807 + 1` overflows a 64-bit signed integer"},
        FaultCase{"BoundDimProductOverflow", "  foreach i in [N * 4] { a.at(0) = 1; }",
                  "overflows a 64-bit signed integer (4611686018427387904 * 4)"},
        FaultCase{"NegationOfMin", "  foreach i in [-" + std::string(kInt64Min) + "] { a.at(0) = 1; }",
                  "overflows a 64-bit signed integer"},
        FaultCase{"ShiftBy64", "  foreach i in [1 << 64] { a.at(0) = 1; }", "shifts by a negative amount or by 64 bits"},
        FaultCase{"ShiftByNegative", "  foreach i in [1 >> -1] { a.at(0) = 1; }", "shifts by a negative amount"},
        FaultCase{"ShiftOverflow", "  foreach i in [3 << 62] { a.at(0) = 1; }", "overflows a 64-bit signed integer"},
        FaultCase{"ParallelTotalOverflow", "  parallel {p, q} by [N, 4] : block { a.at(0) = 1; }",
                  "overflows a 64-bit signed integer"},
        FaultCase{"ComposedIndexCountOverflow",
                  "  foreach {i, j} in [N, 4] { a.at(0) = i # j; }", "overflows a 64-bit signed integer"},
        FaultCase{"ElementCountOverflow", "  foreach i in [|[N, 8]|] { a.at(0) = 1; }", "overflows a 64-bit signed integer"},
        FaultCase{"SpanAsOverflow", "  parallel p by 1 : block { b = a.span_as([N, 4]); }", "overflows a 64-bit signed integer"},
        FaultCase{"LiteralPastInt64", "  foreach i in [18446744073709551615] { a.at(0) = 1; }",
                  "does not fit in a 64-bit signed integer"},
        FaultCase{"NegativeShapeExtent", "  parallel p by 1 : block { local u8 [4 - 8] t; }", "is -4; a dimension must be positive"},
        FaultCase{"NegativeTileExtent", "  parallel p by 1 : block { t = dma.copy a.subspan(-4).at(0) => shared; }",
                  "must not be negative"},
        FaultCase{"NegativeTileCoordinate", "  parallel p by 1 : block { t = dma.copy a.subspan(4).at(-1) => shared; }",
                  "tile coordinate -1 is negative"},
        FaultCase{"StepOfTheWrongRank",
                  "  parallel p by 1 : block { t = dma.copy a.subspan(4).step(4, 4).at(0) => shared; }",
                  "`.step` on a rank-1 tile takes 1 steps, got 2"},
        FaultCase{"HugeLocalTile", "  parallel p by 1 : block { local u8 [1 << 40] t; }",
                  "a thread's local memory holds at most"},
        FaultCase{"SharedTileLargerThanAnyMemory", "  parallel p by 1 : block { shared u8 [1 << 50] t; }",
                  "larger than any device memory"}),
    [](const auto& info) { return info.param.name; });

// Every operator on every pair of extreme operands either folds to the exact
// result or is a CompileError saying why; nothing traps or wraps.
TEST(CheckedArithmetic, ExtremeOperandsFoldExactlyOrFail) {
  const std::vector<std::pair<std::string, __int128>> operands = {
      {kInt64Min, INT64_MIN}, {"(-1)", -1}, {"0", 0}, {"1", 1}, {"63", 63}, {"64", 64}, {"4294967296", 4294967296},
      {"9223372036854775807", INT64_MAX}};
  const std::vector<std::string> ops = {"+", "-", "*", "/", "%", "<<", ">>"};
  auto exact = [](const std::string& op, __int128 a, __int128 b) -> std::optional<__int128> {
    if ((op == "/" || op == "%") && b == 0) return std::nullopt;
    // C++ leaves a % b undefined where a / b is: INT64_MIN % -1 is an error too.
    if (op == "%" && a == INT64_MIN && b == -1) return std::nullopt;
    if ((op == "<<" || op == ">>") && (b < 0 || b >= 64)) return std::nullopt;
    if (op == "<<" && a < 0) return std::nullopt;
    __int128 r = op == "+" ? a + b : op == "-" ? a - b : op == "*" ? a * b : op == "/" ? a / b : op == "%" ? a % b
                 : op == "<<" ? a << static_cast<int>(b) : a >> static_cast<int>(b);
    if (r < INT64_MIN || r > INT64_MAX) return std::nullopt;
    return r;
  };
  for (const auto& [a_text, a] : operands) {
    for (const auto& [b_text, b] : operands) {
      for (const std::string& op : ops) {
        const std::string expr = "(" + a_text + " " + op + " " + b_text + ")";
        const std::string source = "__co__ void f(s64 [4] out) {\n  parallel p by 1 : block { out.at(0) = " + expr + "; }\n}\n";
        std::optional<__int128> want = exact(op, a, b);
        try {
          GeneratedKernel k = generate(source, {tensor(DType::s64, {4})});
          ASSERT_TRUE(want) << expr << " folded, but it has no 64-bit value";
          // INT64_MIN has no literal: 9223372036854775808 is not a signed value.
          const std::string value = *want == INT64_MIN ? "(-9223372036854775807LL - 1)" : std::to_string(static_cast<std::int64_t>(*want));
          const std::string store = "arg_out[0] = " + value + ";";
          EXPECT_NE(k.cuda_source.find(store), std::string::npos) << expr << "\n" << k.cuda_source;
        } catch (const CompileError& e) {
          EXPECT_FALSE(want) << expr << " is " << static_cast<std::int64_t>(want.value_or(0)) << ", got " << e.what();
          EXPECT_EQ(e.diagnostics().at(0).line, 2) << e.what();
        }
      }
    }
  }
}

// INT64_MIN % -1 is undefined in C++ as INT64_MIN / -1 is (x86 traps on
// both): a CompileError at the expression, never a trap.
TEST(CheckedArithmetic, MinRemainderMinusOneIsAnError) {
  std::optional<CompileError> e =
      error_of("__co__ void f(u8 [N] a) {\n  foreach i in [" + std::string(kInt64Min) + " % -1] { a.at(0) = 1; }\n}\n");
  ASSERT_TRUE(e);
  EXPECT_NE(std::string(e->what()).find("overflows a 64-bit signed integer"), std::string::npos) << e->what();
  EXPECT_EQ(e->diagnostics().at(0).line, 2);
  EXPECT_EQ(e->diagnostics().at(0).column, 17);
}

// A tile far past its tensor is guarded, with 64-bit coordinates; one
// whose coordinates have no 64-bit value at all is an error, not a guard
// that a wrapped coordinate would pass.
TEST(CheckedArithmetic, FarTilesAreGuardedAndUnrepresentableOnesRefused) {
  GeneratedKernel k = generate("__co__ void f(u8 [N] a) {\n  parallel p by 4 : block { a.subspan(1 << 40).at(p).at(0) = 1; }\n}\n",
                               {tensor(DType::u8, {16})});
  EXPECT_NE(k.cuda_source.find("((long long)(p_1) * 1099511627776) < 16"), std::string::npos) << k.cuda_source;
  std::optional<CompileError> e =
      error_of("__co__ void f(u8 [N] a) {\n  parallel p by 4 : block { a.subspan(1 << 62).at(p).at(0) = 1; }\n}\n");
  ASSERT_TRUE(e);
  EXPECT_NE(std::string(e->what()).find("overflows a 64-bit signed integer"), std::string::npos) << e->what();
  EXPECT_EQ(e->diagnostics().at(0).line, 2);
}

// Each guarded read inside an index repeats the index in its guard: 30
// nested reads would be 2^30 copies. Refused at 1 MiB of text, at once.
TEST(CheckedArithmetic, RunawayExpressionTextIsRefused) {
  std::string index = "i";
  for (int k = 0; k < 30; ++k) index = "a.at(i + " + index + ")";
  std::optional<CompileError> e = error_of("__co__ void f(u8 [N] a) {\n  parallel i by N\n    a.at(i) = " + index + ";\n}\n");
  ASSERT_TRUE(e);
  EXPECT_NE(std::string(e->what()).find("generates more than 1 MiB of CUDA"), std::string::npos) << e->what();
  EXPECT_EQ(e->diagnostics().at(0).line, 3);
}

// Statements of expressions just below that cap add up: the kernel's text
// is capped too, at the statement that passes it.
TEST(CheckedArithmetic, RunawayKernelTextIsRefused) {
  std::string index = "i";
  for (int k = 0; k < 11; ++k) index = "a.at(i + " + index + ")";
  std::string body;
  for (int k = 0; k < 60; ++k) body += "    a.at(i) = " + index + ";\n";
  std::optional<CompileError> e = error_of("__co__ void f(u8 [N] a) {\n  parallel i by N {\n" + body + "  }\n}\n");
  ASSERT_TRUE(e);
  EXPECT_NE(std::string(e->what()).find("the kernel's CUDA passes 4 MiB"), std::string::npos) << e->what();
  EXPECT_GT(e->diagnostics().at(0).line, 3);
}

// Parameter dims are evaluated checked: `[4/0]`, `[-4]` and `[1<<64]` are
// CompileErrors at the dim (the frontend may report them first), never a
// division or shift on the bad value.
TEST(CheckedArithmetic, BadParameterDimsAreCompileErrors) {
  for (const std::string dim : {"4/0", "-4", "1<<64", "(-9223372036854775807-1)/-1", "2*N"}) {
    const std::string source = "__co__ void f(u8 [" + dim + "] a) {\n  parallel p by 1 : block { a.at(0) = 1; }\n}\n";
    try {
      generate(source, {tensor(DType::u8, {4})});
      ADD_FAILURE() << dim << " was accepted";
    } catch (const CompileError& e) {
      ASSERT_FALSE(e.diagnostics().empty());
      EXPECT_EQ(e.diagnostics()[0].line, 1) << e.what();
    }
  }
  // Constant arithmetic that does have a value is a dim like any other.
  EXPECT_NO_THROW(generate("__co__ void f(u8 [2*3] a) {\n  parallel p by 1 : block { a.at(0) = 1; }\n}\n",
                           {tensor(DType::u8, {6})}));
  EXPECT_THROW(generate("__co__ void f(u8 [2*3] a) {\n  parallel p by 1 : block { a.at(0) = 1; }\n}\n",
                        {tensor(DType::u8, {7})}),
               ArgumentError);
}

}  // namespace
}  // namespace croq::pipeline
