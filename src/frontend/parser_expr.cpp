// Parser, part 3: expressions. Precedence, loosest first:
//   ?:   ||   &&   |   ^   &   == !=   < > <= >=   << >>   + -   * / %   # (compose)
//   unary (- + ! ~ # ++ -- & *)   postfix (.name  .name(args)  (args)  [index]  ++ --)
// `#` between operands composes a tile coordinate with an in-tile one and
// binds tighter than `*`, so `p # m * 2` is `(p # m) * 2`; prefix `#p` is an
// extent.
#include <array>
#include <limits>

#include "frontend/parser.hpp"

namespace croq::frontend {

using namespace ast;

namespace {

template <typename Payload>
ExprPtr make_expr(SourceLocation location, Payload payload) {
  return make_node<Expr>(location, std::move(payload));
}

struct BinaryOperator {
  std::string_view text;
  BinaryOp op;
  int precedence;
};

constexpr std::array<BinaryOperator, 19> kBinaryOperators = {{
    {"||", BinaryOp::logical_or, 1}, {"&&", BinaryOp::logical_and, 2}, {"|", BinaryOp::bit_or, 3},
    {"^", BinaryOp::bit_xor, 4},     {"&", BinaryOp::bit_and, 5},      {"==", BinaryOp::eq, 6},
    {"!=", BinaryOp::ne, 6},         {"<", BinaryOp::lt, 7},           {">", BinaryOp::gt, 7},
    {"<=", BinaryOp::le, 7},         {">=", BinaryOp::ge, 7},          {"<<", BinaryOp::shl, 8},
    {">>", BinaryOp::shr, 8},        {"+", BinaryOp::add, 9},          {"-", BinaryOp::sub, 9},
    {"*", BinaryOp::mul, 10},        {"/", BinaryOp::div, 10},         {"%", BinaryOp::mod, 10},
    {"#", BinaryOp::compose, 11},
}};

}  // namespace

// expr = conditional
ExprPtr ExpressionParser::parse_expression() { return parse_conditional(); }

// expr_list = expr { "," expr }
ExprList ExpressionParser::parse_expression_list() {
  ExprList list;
  do {
    list.push_back(parse_expression());
  } while (accept(","));
  return list;
}

// conditional = binary [ "?" expr ":" conditional ]
ExprPtr ExpressionParser::parse_conditional() {
  const int begin = peek().offset;
  ExprPtr condition = parse_binary(0);
  if (!at_punct("?")) return condition;
  NestingGuard guard(*this, peek());
  advance();
  Conditional node;
  SourceLocation loc = condition->location;
  node.condition = std::move(condition);
  node.then_value = parse_expression();
  if (!accept_colon()) fail(peek(), "expected `:` in the conditional expression, found " + describe(peek()));
  node.else_value = parse_conditional();
  ExprPtr e = make_expr(loc, std::move(node));
  set_extent(*e, begin);
  return e;
}

// binary = unary { binary_op unary }   (precedence climbing over the table above)
ExprPtr ExpressionParser::parse_binary(int min_precedence) {
  const int begin = peek().offset;
  ExprPtr lhs = parse_unary();
  while (peek().kind == TokenKind::punct) {
    const Token& t = peek();
    const BinaryOperator* found = nullptr;
    for (const BinaryOperator& b : kBinaryOperators)
      if (b.text == t.text) found = &b;
    if (!found || found->precedence <= min_precedence) break;
    if (bar_closes_ && found->op == BinaryOp::bit_or) break;
    if (angle_closes_ && (found->op == BinaryOp::gt || found->op == BinaryOp::shr || found->op == BinaryOp::ge))
      break;
    advance();
    BinaryOp op = found->op;
    // `i #- c`, `i #+ c` (no space after `#`): i with its count moved by c.
    const Token& after = peek();
    const bool moves_bound = op == BinaryOp::compose && after.kind == TokenKind::punct &&
                             (after.is("-") || after.is("+")) && after.offset == t.offset + 1;
    if (moves_bound) {
      op = after.is("-") ? BinaryOp::sub : BinaryOp::add;
      advance();
    }
    ExprPtr rhs = parse_binary(found->precedence);
    SourceLocation loc = lhs->location;
    lhs = make_expr(loc, Binary{op, std::move(lhs), std::move(rhs), moves_bound});
    set_extent(*lhs, begin);
  }
  return lhs;
}

// unary = ( "-" | "+" | "!" | "~" | "#" | "++" | "--" | "&" | "*" ) unary | postfix
ExprPtr ExpressionParser::parse_unary() {
  const Token& t = peek();
  NestingGuard guard(*this, t);
  count_operand(t);
  if (t.kind == TokenKind::punct) {
    static const std::pair<std::string_view, UnaryOp> ops[] = {
        {"-", UnaryOp::negate},         {"+", UnaryOp::plus},          {"!", UnaryOp::logical_not},
        {"~", UnaryOp::bit_not},        {"#", UnaryOp::extent},        {"++", UnaryOp::pre_increment},
        {"--", UnaryOp::pre_decrement}, {"&", UnaryOp::address_of},    {"*", UnaryOp::dereference}};
    for (const auto& [text, op] : ops) {
      if (t.text == text) {
        advance();
        const SourceLocation loc = location(t);
        ExprPtr operand = parse_unary();
        ExprPtr e = make_expr(loc, Unary{op, std::move(operand)});
        set_extent(*e, loc.offset);
        return e;
      }
    }
  }
  return parse_postfix();
}

// postfix = primary { "." IDENT [ "<" IDENT ">" ] [ "(" [ args ] ")" ] | "(" [ args ] ")" | "[" args "]" | tuple_pick | "++" | "--" }
ExprPtr ExpressionParser::parse_postfix() {
  const int begin = peek().offset;
  ExprPtr e = parse_primary();
  while (true) {
    set_extent(*e, begin);
    const Token& t = peek();
    if (at_punct(".")) {
      count_operand(t);
      advance();
      const Token& name = peek();
      if (!name.is_identifier())
        fail(name, "expected a member name after `.`, found " + describe(name),
             "members are `.at`, `.chunkat`, `.subspan`, `.modspan`, `.step`, `.view`, `.from`, `.span`, `.span_as`, `.data`, `.zfill`");
      advance();
      Member m;
      m.object = std::move(e);
      m.name = std::string(name.text);
      m.kind = member_kind(m.name);
      // Explicit buffer mapping names its space: `src.map<local>(offset, size)`.
      if ((m.name == "map" || m.name == "remap") && at_punct("<") && peek(1).is_identifier() && peek(2).is(">") &&
          peek(3).is("(")) {
        advance();
        m.space = std::string(peek().text);
        advance();
        advance();
      }
      if (at_punct("(")) {
        m.has_args = true;
        m.args = parse_call_arguments("the arguments of `." + m.name + "`");
      }
      e = make_expr(location(name), std::move(m));
    } else if (at_punct("(")) {
      Call call;
      SourceLocation loc = e->location;
      const auto* name = std::get_if<Name>(&e->node);
      call.intrinsic = name && is_intrinsic(name->name);
      call.callee = std::move(e);
      call.args = parse_call_arguments("the call arguments");
      e = make_expr(loc, std::move(call));
    } else if (at_punct("[") && !peek(1).is("[")) {
      advance();
      Subscript s;
      SourceLocation loc = e->location;
      s.object = std::move(e);
      bool saved_bar = bar_closes_, saved_angle = angle_closes_;
      bar_closes_ = angle_closes_ = false;
      do {
        s.indices.push_back(parse_call_argument());
      } while (accept(","));
      bar_closes_ = saved_bar;
      angle_closes_ = saved_angle;
      expect("]", "to close the subscript");
      e = make_expr(loc, std::move(s));
    } else if (at_punct("{") && peek(1).is("(") && std::holds_alternative<Name>(e->node)) {
      e = parse_tuple_pick(std::move(e));
    } else if (at_punct("++") || at_punct("--")) {
      advance();
      e = make_expr(location(t), Unary{t.text == "++" ? UnaryOp::post_increment : UnaryOp::post_decrement,
                                       std::move(e)});
    } else {
      return e;
    }
  }
}

// primary = INTEGER | FLOAT | STRING | CHAR | "true" | "false" | "_" | convert
//         | scoped_name [ template_arguments ] | "(" expr ")" | "{" [ expr_list ] "}" | "[" [ expr_list ] "]"
//         | "|" expr "|"
ExprPtr ExpressionParser::parse_primary() {
  const Token& t = peek();
  SourceLocation loc = location(t);
  switch (t.kind) {
    case TokenKind::integer: {
      advance();
      // A literal the language cannot use is reported and read as 0, so parsing goes on.
      std::uint64_t value = 0;
      if (auto problem = integer_literal_problem(t.text)) report(t, problem->message, problem->hint);
      else value = integer_value(t.text).value_or(0);
      return make_expr(loc, IntegerLiteral{std::string(t.text), value, std::string(literal_suffix(t.text, false))});
    }
    case TokenKind::floating: {
      advance();
      if (auto problem = floating_literal_problem(t.text)) {
        report(t, problem->message, problem->hint);
        return make_expr(loc, FloatLiteral{"0.0", 0.0, ""});
      }
      return make_expr(loc, FloatLiteral{std::string(t.text), floating_value(t.text),
                                         std::string(literal_suffix(t.text, true))});
    }
    case TokenKind::string:
    case TokenKind::character:
      advance();
      return make_expr(loc, StringLiteral{std::string(t.text)});
    case TokenKind::identifier:
      if (t.text == "true" || t.text == "false") {
        advance();
        return make_expr(loc, BoolLiteral{t.text == "true"});
      }
      if (t.text == "_") {
        advance();
        return make_expr(loc, Wildcard{});
      }
      if (t.text == "inf") {  // infinity, as a float
        advance();
        return make_expr(loc, FloatLiteral{"inf", std::numeric_limits<double>::infinity(), ""});
      }
      if (t.text == "__to") return parse_convert();
      if (t.text == "call" && peek(1).is_identifier()) return parse_call_expression();
      if (t.text == "call" && (peek(1).is(";") || peek(1).is("(")))
        fail(peek(1), "expected a function name after `call`, found " + describe(peek(1)),
             "a call's value reads `x = call f(args);`");
      if (t.text == "stage" && peek(1).is("<") && peek(2).kind == TokenKind::integer && peek(3).is(">") && peek(4).is("("))
        fail(t, "`stage<N>(order)` was removed from Croqtile", "compute the slot: `order % N`");
      if ((t.text == "dma" || t.text == "tma" || t.text == "mma") && peek(1).is("."))
        fail(t, "`" + std::string(t.text) + ".` operations are statements, not values",
             "write the operation on its own line: `f = " + std::string(t.text) + ".copy src => dst;`");
      {
        std::string name = parse_scoped_name();
        loc.length = std::max(1, static_cast<int>(name.size()));
        ExprPtr e = make_expr(loc, Name{std::move(name)});
        if (std::get<Name>(e->node).name.rfind("__is_", 0) == 0 && at_punct("<")) {
          // Type traits of templates: __is_same<T, f16>.
          Call trait;
          trait.template_args = parse_template_arguments("`" + std::get<Name>(e->node).name + "`");
          trait.callee = std::move(e);
          return make_expr(loc, std::move(trait));
        }
        return e;
      }
    case TokenKind::punct:
      break;
    default:
      fail(t, "expected an expression, found " + describe(t));
  }
  bool saved_bar = bar_closes_, saved_angle = angle_closes_;
  if (t.text == "(" || t.text == "{" || t.text == "[") {
    std::string close = t.text == "(" ? ")" : t.text == "{" ? "}" : "]";
    advance();
    bar_closes_ = angle_closes_ = false;
    ExprList items;
    if (!accept(close)) {
      items = parse_expression_list();
      if (!accept(close))
        fail(peek(), "expected `" + close + "` to close the `" + std::string(t.text) + "` at line " +
                         std::to_string(t.line) + ", column " + std::to_string(t.column) + ", found " +
                         describe(peek()));
    } else if (t.text == "(") {
      fail(tokens_[pos_ - 1], "expected an expression inside `()`, found `)`");
    }
    bar_closes_ = saved_bar;
    angle_closes_ = saved_angle;
    if (t.text == "(") {
      if (items.size() != 1) fail(t, "expected one expression inside `()`, found " + std::to_string(items.size()));
      return std::move(items[0]);
    }
    if (t.text == "{") return make_expr(loc, ITuple{std::move(items)});
    return make_expr(loc, ShapeList{std::move(items)});
  }
  if (t.text == "|") {
    advance();
    bar_closes_ = true;
    angle_closes_ = false;
    ExprPtr operand = parse_expression();
    bar_closes_ = saved_bar;
    angle_closes_ = saved_angle;
    expect("|", "to close the element count `|...|`");
    return make_expr(loc, ElementCount{std::move(operand)});
  }
  if (t.text == "=>")
    fail(t, "expected an expression, found `=>`", "`=>` belongs in a copy: `dma.copy src => dst;`");
  fail(t, "expected an expression, found " + describe(t));
}

// tuple_pick = IDENT "{" expr { "," expr } "}"   as in `t {(2), (0), 1}`: inside
// the braces `(i)` is element i of t. Only after a plain name and before `(`,
// so that the braces of a body (`foreach i in n { ... }`) are never read as one.
ExprPtr ExpressionParser::parse_tuple_pick(ExprPtr object) {
  const Token& open = advance();
  Subscript pick;
  SourceLocation loc = object->location;
  pick.object = std::move(object);
  pick.braces = true;
  bool saved_bar = bar_closes_, saved_angle = angle_closes_;
  bar_closes_ = angle_closes_ = false;
  while (true) {
    pick.indices.push_back(parse_expression());
    if (accept("}")) break;
    if (!accept(","))
      fail(peek(), "expected `,` or `}` in the tuple pick, found " + describe(peek()),
           "the `{` at line " + std::to_string(open.line) + ", column " + std::to_string(open.column) +
               " is not closed");
  }
  bar_closes_ = saved_bar;
  angle_closes_ = saved_angle;
  return make_expr(loc, std::move(pick));
}

// convert = "__to" "<" ( type_name | STRING ) ">" "(" expr ")"
ExprPtr ExpressionParser::parse_convert() {
  const Token& keyword = advance();
  Convert node;
  expect("<", "after `__to`", "write `__to<f16>(x)`");
  const Token& type = peek();
  if (type.kind == TokenKind::string) {
    node.foreign = true;
    node.target = std::string(advance().text);
  } else if (type.is_identifier()) {
    node.target = parse_scoped_name();
  } else {
    fail(type, "bad template argument of `__to`: expected a type, found " + describe(type));
  }
  if (!accept_closing_angle()) fail(peek(), "expected `>` after the type of `__to`, found " + describe(peek()));
  expect("(", "after `__to<" + node.target + ">`");
  node.operand = parse_expression();
  expect(")", "to close `__to`");
  return make_expr(location(keyword), std::move(node));
}

// scoped_name = IDENT { "::" IDENT }
std::string ExpressionParser::parse_scoped_name() {
  std::string name(advance().text);
  while (at_punct("::") && peek(1).is_identifier() && !peek().space_before) {
    advance();
    name += "::";
    name += advance().text;
  }
  return name;
}

// args = "(" [ argument { "," argument } ] ")"
ExprList ExpressionParser::parse_call_arguments(std::string_view what) {
  const Token& open = advance();
  ExprList args;
  bool saved_bar = bar_closes_, saved_angle = angle_closes_;
  bar_closes_ = angle_closes_ = false;
  if (!accept(")")) {
    while (true) {
      args.push_back(parse_call_argument());
      if (accept(")")) break;
      if (!at_punct(","))
        fail(peek(), "expected `,` or `)` in " + std::string(what) + ", found " + describe(peek()),
             "the `(` at line " + std::to_string(open.line) + ", column " + std::to_string(open.column) +
                 " is not closed");
      advance();
    }
  }
  bar_closes_ = saved_bar;
  angle_closes_ = saved_angle;
  return args;
}

// argument = expr | [ expr ] ":" [ expr ] [ ":" [ expr ] ]    (a range: `1::`, `ext : stride`)
ExprPtr ExpressionParser::parse_call_argument() {
  const Token& first = peek();
  ExprPtr start;
  if (!(first.kind == TokenKind::punct && !first.text.empty() && first.text[0] == ':')) start = parse_expression();
  if (!(peek().kind == TokenKind::punct && !peek().text.empty() && peek().text[0] == ':')) return start;
  Range range;
  range.start = std::move(start);
  accept_colon();
  auto part = [&]() -> ExprPtr {
    const Token& t = peek();
    if (t.is(")") || t.is(",") || t.is("]") || (t.kind == TokenKind::punct && !t.text.empty() && t.text[0] == ':'))
      return nullptr;
    return parse_expression();
  };
  range.end = part();
  if (accept_colon()) range.stride = part();
  ExprPtr e = make_expr(location(first), std::move(range));
  set_extent(*e, e->location.offset);
  return e;
}

// range = "(" argument ")"   as in `foreach y(1::)`
ExprPtr ExpressionParser::parse_range(const Token& open) {
  bool saved_bar = bar_closes_, saved_angle = angle_closes_;
  bar_closes_ = angle_closes_ = false;
  ExprPtr range = parse_call_argument();
  bar_closes_ = saved_bar;
  angle_closes_ = saved_angle;
  if (!std::holds_alternative<Range>(range->node)) {
    Range r;
    r.start = std::move(range);
    range = make_expr(location(open), std::move(r));
  }
  expect(")", "to close the range");
  return range;
}

// template_arguments = "<" expr { "," expr } ">"
ExprList ExpressionParser::parse_template_arguments(std::string_view what) {
  const Token& open = advance();
  ExprList args;
  bool saved_angle = angle_closes_, saved_bar = bar_closes_;
  angle_closes_ = true;
  bar_closes_ = false;
  if (peek().kind == TokenKind::punct && !peek().text.empty() && peek().text[0] == '>')
    fail(peek(), "expected a template argument of " + std::string(what) + ", found `>`");
  while (true) {
    args.push_back(parse_expression());
    if (accept_closing_angle()) break;
    if (!accept(","))
      fail(peek(), "expected `,` or `>` in the template arguments of " + std::string(what) + ", found " +
                       describe(peek()),
           "the `<` at line " + std::to_string(open.line) + ", column " + std::to_string(open.column) +
               " is not closed");
  }
  angle_closes_ = saved_angle;
  bar_closes_ = saved_bar;
  return args;
}

}  // namespace croq::frontend
