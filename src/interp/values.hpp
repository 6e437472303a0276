// Scalar values of the IR's types: C++'s and CUDA's rounding and wrapping
// for each type, and element bytes in memory.
#pragma once

#include <cstddef>
#include <string>

#include "interp/machine.hpp"

namespace croq::interp {

// A buffer's name as the Croqtile source spells it: without lowering's
// `arg_` prefix of parameters and `_N` suffix of fresh names.
std::string shown_name(const std::string& name);

bool is_unsigned(const ir::Type& t);
// The type arithmetic of `t` happens in: narrow integers (below 32 bits)
// compute as i32, as C++ promotes them.
ir::Type arithmetic_type(const ir::Type& t);
// `v` (a float in f, an integer in i) brought to type `t`: integers wrap
// to its width, floats round to its precision.
Value normalized(const ir::Type& t, Value v);
double as_double(const ir::Type& t, const Value& v);
std::int64_t as_int(const ir::Type& t, const Value& v);
bool as_bool(const ir::Type& t, const Value& v);
// A C-style conversion from `from` to `to`.
Value converted(const ir::Type& from, const ir::Type& to, const Value& v);
Value from_double(const ir::Type& t, double d);
Value from_int(const ir::Type& t, std::int64_t i);

// An element of `dtype` at `at` (its computed value: floats widened, integers sign- or zero-extended).
Value load_element(DType dtype, const std::byte* at);
// Stores `v` of type `from` as an element of `dtype` (converted as C++ would).
void store_element(DType dtype, std::byte* at, const ir::Type& from, const Value& v);
double load_double(DType dtype, const std::byte* at);
void store_double(DType dtype, std::byte* at, double d);

}  // namespace croq::interp
