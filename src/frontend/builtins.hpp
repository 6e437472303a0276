// Croqtile's math builtins (`__sqrt(x)`, `__pow(x, y)`, `__gelu(x)`, ...):
// their names and operand counts, shared by sema (which checks the calls)
// and lowering (which builds them).
#pragma once

#include <string_view>

#include "croq/dtype.hpp"

namespace croq::frontend {

struct MathBuiltin {
  std::string_view name;      // as Croqtile spells it: "__sqrt"
  std::string_view function;  // what it computes: "sqrt", "gelu", "alignup", ...
  int operands = 1;
  bool integers = false;  // takes and gives integers (__alignup, __aligndown)
};

inline constexpr MathBuiltin kMathBuiltins[] = {
    {"__sqrt", "sqrt"},         {"__rsqrt", "rsqrt"},       {"__exp", "exp"},           {"__exp2f", "exp2"},
    {"__expm1", "expm1"},       {"__log", "log"},           {"__log1p", "log1p"},       {"__sin", "sin"},
    {"__cos", "cos"},           {"__tan", "tan"},           {"__asin", "asin"},         {"__acos", "acos"},
    {"__atan", "atan"},         {"__sinh", "sinh"},         {"__cosh", "cosh"},         {"__tanh", "tanh"},
    {"__ceil", "ceil"},         {"__floor", "floor"},       {"__round", "round"},       {"__fabs", "fabs"},
    {"__frcp_rn", "rcp"},       {"__isfinite", "isfinite"}, {"__sign", "sign"},         {"__sigmoid", "sigmoid"},
    {"__softplus", "softplus"}, {"__gelu", "gelu"},         {"__pow", "pow", 2},        {"__atan2", "atan2", 2},
    {"__max", "max", 2},        {"__min", "min", 2},        {"__fmaf", "fma", 3},       {"__alignup", "alignup", 2, true},
    {"__aligndown", "aligndown", 2, true},
};

// The builtin called `name`, or null.
inline const MathBuiltin* find_math_builtin(std::string_view name) {
  for (const MathBuiltin& b : kMathBuiltins)
    if (b.name == name) return &b;
  return nullptr;
}

// The element type of a scalar declaration: an element type's name, or
// C++'s `float` (f32) and `double` (f64), which Croqtile also accepts.
inline bool scalar_dtype(std::string_view name, DType& out) {
  if (name == "float") return out = DType::f32, true;
  if (name == "double") return out = DType::f64, true;
  return parse_dtype(name, out);
}

}  // namespace croq::frontend
