// Integer arithmetic on constants, literals and constant dims: every fault
// is an error at the expression (line, column, message), never a trap, a
// wrapped value or text NVRTC sees.
#include <string>
#include <vector>

#include "frontend/error_cases.hpp"

namespace croq::frontend {
namespace {

using testing::ErrorCase;

const std::string kHead = "__co__ void k(f16 [M, K] x, int n) {\n";
const std::string kOverflowHint = "integer constants are 64-bit signed integers";
const std::string kShift = "shifts by a negative amount or by 64 bits or more";

// Sources with a statement are line 2 of a kernel that starts with kHead.
std::string body(const std::string& statement) { return kHead + statement + "\n}\n"; }

const std::vector<ErrorCase>& constant_error_cases() {
  static const std::vector<ErrorCase> cases = {
    // ---- #if arithmetic
    {"if_min_divided_by_minus_one",
     "#if (-9223372036854775807 - 1) / -1\n#endif\n__co__ void k() { }\n",
     {{1, 32, "`-9223372036854775808 / -1` overflows a 64-bit signed integer in the `#if` condition", ""}}},
    {"if_min_modulo_minus_one",
     "#if (-9223372036854775807 - 1) % -1\n#endif\n__co__ void k() { }\n",
     {{1, 32, "`-9223372036854775808 % -1` overflows a 64-bit signed integer in the `#if` condition", ""}}},
    {"if_shift_by_64",
     "#if 1 << 64\n#endif\n__co__ void k() { }\n",
     {{1, 7, "`1 << 64` " + kShift + " in the `#if` condition", ""}}},
    {"if_shift_by_negative",
     "#if 8 >> -1\n#endif\n__co__ void k() { }\n",
     {{1, 7, "`8 >> -1` " + kShift + " in the `#if` condition", ""}}},
    {"if_addition_overflows",
     "#if 9223372036854775807 + 1\n#endif\n__co__ void k() { }\n",
     {{1, 25, "`9223372036854775807 + 1` overflows a 64-bit signed integer in the `#if` condition", ""}}},
    {"if_negating_the_minimum",
     "#if -(-9223372036854775807 - 1)\n#endif\n__co__ void k() { }\n",
     {{1, 5, "`-(-9223372036854775808)` overflows a 64-bit signed integer in the `#if` condition", ""}}},
    {"if_fault_through_a_define",
     "#define LOWEST (-9223372036854775807 - 1)\n#if LOWEST / -1 > 0\n#endif\n__co__ void k() { }\n",
     {{2, 12, "`-9223372036854775808 / -1` overflows a 64-bit signed integer in the `#if` condition", ""}}},
    {"if_literal_too_large",
     "#if 18446744073709551615\n#endif\n__co__ void k() { }\n",
     {{1, 5, "integer literal `18446744073709551615` does not fit in a 64-bit signed integer",
       "the largest is 9223372036854775807; write the smallest as `(-9223372036854775807 - 1)`"}}},
    // ---- constant folding of expressions
    {"foreach_bound_min_modulo_minus_one",
     body("  foreach i in [(-9223372036854775807-1) % -1] { n = i; }"),
     {{2, 17, "`(-9223372036854775807-1) % -1` overflows a 64-bit signed integer (-9223372036854775808 % -1)",
       kOverflowHint}}},
    {"parallel_count_min_divided_by_minus_one",
     body("  parallel p by (-9223372036854775807-1) / -1 : block { n = 1; }"),
     {{2, 17, "`(-9223372036854775807-1) / -1` overflows a 64-bit signed integer (-9223372036854775808 / -1)",
       kOverflowHint}}},
    {"multiplication_overflows",
     body("  n = 4611686018427387904 * 2;"),
     {{2, 7, "`4611686018427387904 * 2` overflows a 64-bit signed integer", kOverflowHint}}},
    {"shift_into_the_sign_bit",
     body("  n = 1 << 63;"),
     {{2, 7, "`1 << 63` overflows a 64-bit signed integer", kOverflowHint}}},
    {"negating_the_minimum",
     body("  n = -(-9223372036854775807-1);"),
     {{2, 7, "`-(-9223372036854775807-1)` overflows a 64-bit signed integer (-(-9223372036854775808))",
       kOverflowHint}}},
    {"division_by_constant_zero",
     body("  n = n / 0;"),
     {{2, 7, "`n / 0` divides by zero", ""}}},
    {"remainder_by_folded_zero",
     body("  n = n % (4 - 4);"),
     {{2, 7, "`n % (4 - 4)` divides by zero", ""}}},
    {"shift_by_64",
     body("  n = n << 64;"),
     {{2, 7, "`n << 64` " + kShift, ""}}},
    {"compound_division_by_zero",
     body("  n /= 0;"),
     {{2, 8, "`/= 0` divides by zero", ""}}},
    {"cdiv_by_zero",
     body("  n = cdiv(n, 0);"),
     {{2, 7, "`cdiv(n, 0)` divides by zero", ""}}},
    {"overflow_through_a_define",
     "#define BIG 9223372036854775807\n__co__ void k(int n) {\n  n = BIG + 1;\n}\n",
     {{3, 7, "`BIG + 1` overflows a 64-bit signed integer (9223372036854775807 + 1)", kOverflowHint}}},
    // ---- constant dims
    {"parameter_dim_divides_by_zero",
     "__co__ void k(f16 [4/0] x) { }\n",
     {{1, 20, "`4/0` divides by zero", ""}}},
    {"parameter_dim_negative",
     "__co__ void k(f16 [-4] x) { }\n",
     {{1, 20, "dimension 0 of parameter `x` is -4; a dimension must be positive", ""}}},
    {"parameter_dim_zero",
     "__co__ void k(f16 [8, 0] x) { }\n",
     {{1, 23, "dimension 1 of parameter `x` is 0; a dimension must be positive", ""}}},
    {"parameter_dim_shift_by_64",
     "__co__ void k(f16 [1<<64] x) { }\n",
     {{1, 20, "`1<<64` " + kShift, ""}}},
    {"parameter_shape_too_many_elements",
     "__co__ void k(f16 [1 << 40, 1 << 40] x) { }\n",
     {{1, 29, "the shape of parameter `x` has more than 2^63 elements; no tensor that large exists", ""}}},
    {"return_dim_negative",
     "__co__ s32 [-1] k() { }\n",
     {{1, 13, "dimension 0 of the returned tensor is -1; a dimension must be positive", ""}}},
    {"declared_dim_negative",
     body("  shared f16 [64, -64] buffer;"),
     {{2, 19, "dimension 1 of `buffer` is -64; a dimension must be positive", ""}}},
    // ---- literals
    {"integer_literal_too_large",
     body("  n = 18446744073709551615;"),
     {{2, 7, "integer literal `18446744073709551615` does not fit in a 64-bit signed integer",
       "the largest is 9223372036854775807; write the smallest as `(-9223372036854775807 - 1)`"}}},
    {"integer_literal_past_64_bits",
     body("  n = 0x1ffffffffffffffff;"),
     {{2, 7, "integer literal `0x1ffffffffffffffff` does not fit in a 64-bit signed integer",
       "the largest is 9223372036854775807; write the smallest as `(-9223372036854775807 - 1)`"}}},
    {"integer_literal_unknown_suffix",
     body("  n = 1_trap;"),
     {{2, 7, "integer literal `1_trap` has the unknown suffix `_trap`",
       "integer suffixes are `u`, `l`, `ll` and their combinations (`10u`, `10ull`)"}}},
    {"float_literal_unknown_suffix",
     body("  n = 1.5_trap;"),
     {{2, 7, "floating literal `1.5_trap` has the unknown suffix `_trap`",
       "a floating literal takes `f` (float) or no suffix (double)"}}},
    {"double_literal_out_of_range",
     body("  n = 1e999;"),
     {{2, 7, "floating literal `1e999` is out of range for double", "the largest double is about 1.8e308"}}},
    {"float_literal_out_of_range",
     body("  n = 1e39f;"),
     {{2, 7, "floating literal `1e39f` is out of range for float", "the largest float is about 3.4e38"}}},
    {"hex_float_without_exponent",
     body("  n = 0x1.8;"),
     {{2, 7, "hexadecimal floating literal `0x1.8` needs a `p` exponent",
       "write the power of two after `p`, as in `0x1.8p0`"}}},
  };
  return cases;
}

class ConstantErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ConstantErrors, ReportsExactDiagnostics) { testing::expect_exact_diagnostics(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Frontend, ConstantErrors, ::testing::ValuesIn(constant_error_cases()),
                         testing::error_case_name);

// What C and CUDA accept stays accepted.
TEST(ConstantErrors, WellDefinedConstantsParse) {
  const std::string source =
      "#if 0 && 1 / 0\n#error unevaluated operands do not fault\n#endif\n"
      "#if 1 || (1 << 64)\n#else\n#error\n#endif\n"
      "#if (1 ? 2 : 1 / 0) != 2\n#error\n#endif\n"
      "#if 9223372036854775807 - 1 + 1 != 9223372036854775807\n#error\n#endif\n"
      "__co__ void k(f16 [M, 64] x, int n) {\n"
      "  n = (-9223372036854775807-1) % 7 + (-9223372036854775807-1) / 2;\n"
      "  n = 10u + 10ull + 10LL + 0x10 + 0b11 + 1'000 + (1 << 62) + (-8 >> 1);\n"
      "  n = n / 2 + n % 3 + (n << 3) + (n >> 63);\n"
      "  x.at(0, 0) = 1.5f + 2.5 + 1e308 + 3.4e38f + 0x1.8p3;\n"
      "}\n";
  try {
    parse_program(source, {});
  } catch (const CompileError& e) {
    FAIL() << e.what();
  }
}

}  // namespace
}  // namespace croq::frontend
