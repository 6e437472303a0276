// The vocabulary of the IR's text form, shared by the printer and the
// parser so that each word is spelled in one place: names of spaces,
// mappings, types, MMA instructions and parameter kinds, quoted strings,
// source positions, and the type the parser gives an expression whose text
// carries no type.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ir/ir.hpp"

namespace croq::ir::text {

const char* space_name(Space s);
std::optional<Space> parse_space(std::string_view name);

const char* mapping_name(Mapping m);
std::optional<Mapping> parse_mapping(std::string_view name);

// "wgmma", "mma.sync", "mma.sync.gather", or "mma" (not selected yet).
const char* instruction_name(MmaInstruction i);
std::optional<MmaInstruction> parse_instruction(std::string_view name);

const char* param_kind_name(abi::KernelParam::Kind k);
std::optional<abi::KernelParam::Kind> parse_param_kind(std::string_view name);

// i32, i64, u32, f32, f64, bool, index, or an element type's dtype name. The
// element types whose dtype name is also a scalar type's (u32, f32, f64)
// are `element.u32` and so on where the text must tell them apart (`exact`).
std::string type_name(const Type& t, bool exact);
std::optional<Type> parse_type(std::string_view name);

// A string between double quotes, with `"`, `\` and control bytes escaped
// (\n, \t, \r, \xHH); other bytes as they are.
std::string quote(std::string_view s);

// "L:C", with "+N" when the length is not 1.
std::string position(const SourcePos& p);
inline bool is_default(const SourcePos& p) { return p.line == 0 && p.column == 0 && p.length == 1; }

// The phase variable of an event, as lowering names it; the text leaves
// this one out.
inline std::string default_phase(const Event& e) { return e.name + "_phase"; }

// The types of the variables declared so far (Let, For), by name.
using VarTypes = std::map<std::string, Type, std::less<>>;

// The type the parser gives `e` when its text carries none: the printed
// type where the text has one (convert, math, atomic), a declared
// variable's type (i32 when undeclared or an index variable), i32 for integer and f32 for
// floating literals, u32 for special registers, the element type of an
// element's buffer, and what ir::binary gives for the operands' types. The
// printer writes `:type` after an expression whose type differs.
Type natural_type(const Expr& e, const Kernel& kernel, const VarTypes& vars);

}  // namespace croq::ir::text
