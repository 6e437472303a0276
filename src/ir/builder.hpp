// Constructors for IR expressions. The arithmetic ones fold the identities
// that keep generated index math short (x + 0, x * 1, x * 0) and nothing
// else; constant folding of source values happens in lowering, where an
// overflow can be reported at its source location.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.hpp"

namespace croq::ir {

// Of Type::index(), the kernel's index type not chosen yet (ir.hpp), a
// constant, a conversion or a coercion is the by_index_width of its i32
// and its i64 form, and a variable is an index variable (read as i32).
ExprRef int_const(std::int64_t v, Type t = Type::i32());
ExprRef float_literal(const std::string& text);
ExprRef var(const std::string& name, Type t = Type::i32());
// `narrow` where the kernel's indices are 32-bit, `wide` where they are
// 64-bit (`narrow` itself when both are the same expression).
ExprRef by_index_width(ExprRef narrow, ExprRef wide);
// A call of the C++ function `callee`; `result`: its value's type, none for void.
ExprRef device_call(const std::string& callee, std::vector<ExprRef> template_args, std::vector<ExprRef> args,
                    std::optional<Type> result);
ExprRef special(const std::string& name);  // threadIdx.x, blockIdx.x, blockDim.x, gridDim.x
ExprRef unary(const std::string& op, ExprRef operand);
ExprRef binary(const std::string& op, ExprRef lhs, ExprRef rhs);
ExprRef select(ExprRef condition, ExprRef then_value, ExprRef else_value);
ExprRef element(int buffer, DType dtype, ExprRef slot, std::vector<ExprRef> coords);
ExprRef address_of(ExprRef element);
ExprRef typed_zero(DType t, const std::string& value = "0");
ExprRef zero_like(ExprRef e);
ExprRef convert(ExprRef e, Type t);
// `e` as a value of type `t` where C++ would not convert implicitly (to or
// from a narrow type); `e` itself otherwise. unary, binary, select and math
// compute narrow operands in their compute type on their own.
ExprRef coerce(ExprRef e, Type t);
// The type of `a op b` under C++'s usual arithmetic conversions, as far as
// generated code needs them (what binary() gives its operands once widened).
Type common_type(const Type& a, const Type& b);
// binary()'s result type for operands of these types: boolean for
// comparisons, the lhs's for shifts, else their common type.
Type binary_type(const std::string& op, const Type& lhs, const Type& rhs);
// Element types with no arithmetic of their own on the device: fp8 (CUDA's
// types convert only explicitly) and the sub-byte types (the prelude's
// structs). They compute as f32 (floats) or i32 (integers).
bool is_narrow(const Type& t);
Type compute_type(const Type& t);  // f32 or i32 for a narrow type; `t` otherwise
// `e` usable as a condition (a narrow element tests as its computed value).
ExprRef truth(ExprRef e);

// A math function of operands of type `t` (isfinite: a boolean of one).
ExprRef math(const std::string& op, std::vector<ExprRef> operands, Type t);
// The operands of math function `op` (-1: no such function): unary sqrt,
// rsqrt, exp, exp2, expm1, log, log1p, sin, cos, tan, asin, acos, atan,
// sinh, cosh, tanh, ceil, floor, round, fabs, rcp, isfinite; binary pow,
// atan2, max, min; ternary fma.
int math_arity(const std::string& op);
// The values of atomic `op` besides the element (-1: no such atomic).
int atomic_arity(const std::string& op);
// An atomic read-modify-write of `element`; the values are of its type.
ExprRef atomic(const std::string& op, ExprRef element, std::vector<ExprRef> values);

// a + b, dropping a zero side.
ExprRef add(ExprRef a, ExprRef b);
// a * k for a constant k: 0 when either is zero, a when k is 1, the product
// when a is a constant too (and it fits in 64 bits).
ExprRef mul(ExprRef a, std::int64_t k);
// a && b, where a null side is "true".
ExprRef all_of(ExprRef a, ExprRef b);
ExprRef less(ExprRef a, ExprRef b);

bool is_zero(const ExprRef& e);
bool is_const(const ExprRef& e, std::int64_t* value = nullptr);

}  // namespace croq::ir
