// A parallel count computed at run time from values the host knows before
// the launch (scalar arguments, a host program's scalars, dynamic dims):
// the kernel computes it from its parameters (the level's runtime total),
// and the launch computes the same expression to size the grid
// (abi::LaunchCount). Both come from the one IR expression lowering built.
#include "lower/lowering.hpp"

namespace croq::lower::detail {

namespace {

using Op = abi::LaunchCount::Op;

// The immutable Let that declares `name` in `list` or its sequences.
const ir::Let* declared_in(const ir::StmtList& list, const std::string& name) {
  for (const ir::StmtPtr& s : list) {
    if (const auto* let = std::get_if<ir::Let>(&s->node); let && let->name == name) return let;
    if (const auto* seq = std::get_if<ir::Seq>(&s->node))
      if (const ir::Let* found = declared_in(seq->body, name)) return found;
  }
  return nullptr;
}

std::optional<Op::Kind> binary_kind(const std::string& op) {
  static const std::pair<const char*, Op::Kind> kinds[] = {
      {"+", Op::Kind::add},   {"-", Op::Kind::sub},         {"*", Op::Kind::mul},   {"/", Op::Kind::div},
      {"%", Op::Kind::mod},   {"<", Op::Kind::less},        {"<=", Op::Kind::less_equal},
      {"==", Op::Kind::equal}, {"!=", Op::Kind::not_equal}, {"min", Op::Kind::min}, {"max", Op::Kind::max}};
  for (const auto& [text, kind] : kinds)
    if (op == text) return kind;
  return std::nullopt;
}

}  // namespace

abi::LaunchCount LevelLowering::launch_count(const ExprRef& value, const Expr& source) {
  abi::LaunchCount count;
  count.text = source_text(source);
  launch_ops(value, count, source);
  return count;
}

void LevelLowering::launch_ops(const ExprRef& e, abi::LaunchCount& count, const Expr& source) {
  auto push = [&](Op::Kind kind, std::int64_t v = 0) { count.ops.push_back(Op{kind, v}); };
  auto operands = [&](std::initializer_list<std::size_t> order) {
    for (std::size_t i : order) launch_ops(e->operands[i], count, source);
  };
  switch (e->kind) {
    case ir::ExprKind::int_const: push(Op::Kind::constant, e->value); return;
    case ir::ExprKind::var: {
      for (std::size_t p = 0; p < kernel_.params.size(); ++p)
        if (kernel_.params[p].name == e->text && (kernel_.abi.params[p].kind == abi::KernelParam::Kind::integer ||
                                                  kernel_.abi.params[p].kind == abi::KernelParam::Kind::dim)) {
          push(Op::Kind::param, static_cast<std::int64_t>(p));
          return;
        }
      // A scalar every kernel computes before its parallel statement.
      for (const ir::StmtList* list : out_)
        if (const ir::Let* let = declared_in(*list, e->text); let && let->is_const && let->init) {
          launch_ops(let->init, count, source);
          return;
        }
      break;
    }
    case ir::ExprKind::unary:
      if (e->op == "-") {
        operands({0});
        push(Op::Kind::neg);
        return;
      }
      if (e->op == "+") return operands({0});
      break;
    case ir::ExprKind::binary:
      if (e->op == ">" || e->op == ">=") {  // b < a, b <= a
        operands({1, 0});
        push(e->op == ">" ? Op::Kind::less : Op::Kind::less_equal);
        return;
      }
      if (std::optional<Op::Kind> kind = binary_kind(e->op)) {
        operands({0, 1});
        push(*kind);
        return;
      }
      break;
    case ir::ExprKind::math:
      if (std::optional<Op::Kind> kind = binary_kind(e->op); kind && e->operands.size() == 2 && !e->type.is_float()) {
        operands({0, 1});
        push(*kind);
        return;
      }
      break;
    case ir::ExprKind::select: operands({0, 1, 2}); push(Op::Kind::select); return;
    case ir::ExprKind::by_index_width: return operands({1});  // 64-bit: what the host computes in
    case ir::ExprKind::convert:
      operands({0});
      switch (e->type.kind) {
        case ir::Type::Kind::i32: push(Op::Kind::to_s32); return;
        case ir::Type::Kind::u32: push(Op::Kind::to_u32); return;
        case ir::Type::Kind::boolean: push(Op::Kind::to_bool); return;
        case ir::Type::Kind::i64: case ir::Type::Kind::index: return;
        default: break;
      }
      break;
    default: break;
  }
  unchecked(source.location, sema::Rule::unsupported_runtime_value);
}

}  // namespace croq::lower::detail
