// Integer constant expressions of `#if` / `#elif` lines and of define values:
// C's grammar (?:, ||, &&, |, ^, &, == !=, < > <= >=, << >>, + -, * / %,
// unary - + ! ~) and C's types: values are 64-bit signed (intmax_t) with
// checked arithmetic (overflow is an error), or unsigned (uintmax_t) where a
// `u` literal takes part, converted and wrapping as C does
// (`18446744073709551615u == -1` is 1, `9223372036854775808u > 0` is 1). As
// in C, the operand that is not evaluated (`0 && 1 / 0`, the untaken side of
// ?:) may not fault.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontend/lexer.hpp"

namespace croq::frontend {

struct ConstantResult {
  std::optional<std::int64_t> value;  // nullopt: not a well-formed, defined expression
  bool is_unsigned = false;           // `value` holds the bits of an unsigned result
  bool arithmetic_fault = false;      // overflow, division by zero, bad shift
  std::string error;                  // why there is no value ("" for a plain syntax error)
  std::string hint;
  std::size_t error_token = 0;        // the token to underline
};

// Evaluates tokens that are already expanded; names left are 0, `true` is 1.
ConstantResult evaluate_constant(const std::vector<Token>& tokens);

}  // namespace croq::frontend
