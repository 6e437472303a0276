#include "bind/signature_check.hpp"

#include <algorithm>

#include "frontend/frontend.hpp"
#include "support/checked_int.hpp"

namespace croq::bind {

using namespace frontend::ast;

namespace {

[[noreturn]] void fail_at(const Program& program, const SourceLocation& loc, const std::string& message) {
  Diagnostic d;
  d.message = message;
  d.line = loc.line;
  d.column = loc.column;
  d.length = std::max(1, loc.length);
  throw CompileError({d}, program.source, program.source_name);
}

// A constant dimension expression: literals, integer #defines, unary +/-
// and + - * / % << >>, each step checked.
std::int64_t constant_dim(const Program& program, const Expr& e, const Expr& whole) {
  auto refuse = [&]() -> std::int64_t {
    fail_at(program, whole.location, "a parameter's dimension must be a number, a #define or a dim name such as `M`, got `" +
                                         frontend::source_text(program, whole) + "`");
  };
  if (const auto* lit = std::get_if<IntegerLiteral>(&e.node)) {
    if (lit->value > static_cast<std::uint64_t>(INT64_MAX))
      fail_at(program, e.location, "the integer literal `" + lit->spelling + "` does not fit in a 64-bit signed integer");
    return static_cast<std::int64_t>(lit->value);
  }
  if (const auto* n = std::get_if<Name>(&e.node)) {
    auto def = program.defines.find(n->name);
    if (def == program.defines.end() || !def->second.value || !std::holds_alternative<std::int64_t>(*def->second.value))
      return refuse();
    return std::get<std::int64_t>(*def->second.value);
  }
  support::CheckedInt r;
  std::string values;
  if (const auto* u = std::get_if<Unary>(&e.node)) {
    if (u->op != UnaryOp::negate && u->op != UnaryOp::plus) return refuse();
    const std::int64_t v = constant_dim(program, *u->operand, whole);
    r = u->op == UnaryOp::negate ? support::checked_neg(v) : support::CheckedInt{v};
    values = "-(" + std::to_string(v) + ")";
  } else if (const auto* b = std::get_if<Binary>(&e.node)) {
    const std::int64_t a = constant_dim(program, *b->lhs, whole), c = constant_dim(program, *b->rhs, whole);
    switch (b->op) {
      case BinaryOp::add: r = support::checked_add(a, c); break;
      case BinaryOp::sub: r = support::checked_sub(a, c); break;
      case BinaryOp::mul: r = support::checked_mul(a, c); break;
      case BinaryOp::div: r = support::checked_div(a, c); break;
      case BinaryOp::mod: r = support::checked_mod(a, c); break;
      case BinaryOp::shl: r = support::checked_shl(a, c); break;
      case BinaryOp::shr: r = support::checked_shr(a, c); break;
      default: return refuse();
    }
    values = std::to_string(a) + " " + binary_op_name(b->op) + " " + std::to_string(c);
  } else {
    return refuse();
  }
  if (!r.ok())
    fail_at(program, e.location, "`" + frontend::source_text(program, e) + "` " + support::describe(r.fault) + " (" + values + ")");
  return r.value;
}

}  // namespace

std::string shape_text(DType t, const std::vector<std::int64_t>& dims) {
  std::string s = std::string(dtype_name(t)) + " [";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return s + "]";
}

ParameterDim parameter_dim(const Program& program, const Expr& dim) {
  if (const auto* n = std::get_if<Name>(&dim.node)) {
    auto def = program.defines.find(n->name);
    if (def == program.defines.end() || !def->second.value || !std::holds_alternative<std::int64_t>(*def->second.value))
      return {std::nullopt, n->name};
  }
  const std::int64_t v = constant_dim(program, dim, dim);
  if (v < 0)
    fail_at(program, dim.location, "a parameter's dimension must not be negative; `" + frontend::source_text(program, dim) +
                                       "` is " + std::to_string(v));
  return {v, ""};
}

void check_argument_extents(const Function& fn, const std::vector<abi::ArgSignature>& args,
                            const std::vector<std::string>& dynamic_dims) {
  for (std::size_t i = 0; i < std::min(args.size(), fn.params.size()); ++i) {
    const Parameter& p = fn.params[i];
    const abi::ArgSignature& a = args[i];
    if (!a.is_tensor) continue;
    const std::string who = "argument " + std::to_string(i + 1) + " '" + p.name + "'";
    std::vector<std::int64_t> known;  // the static extents; dynamic ones are checked at launch
    for (std::size_t d = 0; d < a.shape.size(); ++d) {
      const std::int64_t extent = a.shape[d];
      if (extent == -1) {
        const auto* n = d < p.type.shape.size() ? std::get_if<Name>(&p.type.shape[d]->node) : nullptr;
        if (!n || std::find(dynamic_dims.begin(), dynamic_dims.end(), n->name) == dynamic_dims.end())
          throw ArgumentError(who + ": dimension " + std::to_string(d) + " has no extent (-1), but it is not a dynamic dim");
        continue;
      }
      if (extent < 0)
        throw ArgumentError(who + ": dimension " + std::to_string(d) + " has the negative extent " + std::to_string(extent));
      known.push_back(extent);
    }
    // Strides of the extents (an empty tensor's too) and the byte size.
    known.push_back(static_cast<std::int64_t>(dtype_size(a.dtype)));
    if (!support::stride_product(known))
      throw ArgumentError(who + ": " + shape_text(a.dtype, a.shape) + " holds more bytes than a 64-bit size can count (2^63 - 1)");
  }
}

}  // namespace croq::bind
