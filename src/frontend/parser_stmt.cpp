// Parser, part 2: statements.
#include <algorithm>

#include "frontend/frontend.hpp"
#include "frontend/parser.hpp"

namespace croq::frontend {

using namespace ast;

namespace {

const std::vector<std::string_view> kCopyOps = {"copy", "transp", "pad", "load", "store", "any"};
const std::vector<std::string_view> kCopyModifiers = {
    "async", "zfill", "swiz", "multicast", "evict_first", "evict_last", "evict_normal", "im2col", "sp", "promote"};
const std::vector<std::string_view> kMmaOps = {"fill", "load", "store", "commit", "row", "col", "scale"};
const std::vector<std::string_view> kSpaces = {"block", "thread", "group", "cluster", "device", "term"};

std::optional<AssignOp> assign_op(const Token& t) {
  if (t.kind != TokenKind::punct) return std::nullopt;
  static const std::pair<std::string_view, AssignOp> ops[] = {
      {"=", AssignOp::assign}, {"+=", AssignOp::add},     {"-=", AssignOp::sub},
      {"*=", AssignOp::mul},   {"/=", AssignOp::div},     {"%=", AssignOp::mod},
      {"&=", AssignOp::bit_and}, {"|=", AssignOp::bit_or}, {"^=", AssignOp::bit_xor},
      {"<<=", AssignOp::shl},  {">>=", AssignOp::shr}};
  for (const auto& [text, op] : ops)
    if (t.text == text) return op;
  return std::nullopt;
}

bool is_integer_literal(const Expr& e, std::uint64_t* value = nullptr) {
  const auto* lit = std::get_if<IntegerLiteral>(&e.node);
  if (lit && value) *value = lit->value;
  return lit != nullptr;
}

}  // namespace

void TokenCursor::expect_semicolon(std::string_view after_what) {
  if (accept(";")) return;
  std::string hint;
  if (peek().line > tokens_[pos_ - 1].line) hint = "add `;` at the end of the previous line";
  fail(peek(), "expected `;` after " + std::string(after_what) + ", found " + describe(peek()), hint);
}

// statement = attributes statement | block | ";" | parallel | loop | while | if
//           | copy | mma | wait | trigger | inthreads | sync | return
//           | "break" ";" | "continue" ";" | call | assert | swap | yield | asm
//           | declaration | expression_statement
StmtPtr StatementParser::parse_statement() {
  NestingGuard guard(*this, peek());
  operands_ = 0;
  const Token& t = peek();
  if (at_punct("[") && peek(1).is("[")) {
    std::vector<Attribute> attributes = parse_attributes();
    StmtPtr stmt = parse_statement();
    if (stmt) stmt->attributes = std::move(attributes);
    return stmt;
  }
  if (at_punct("{")) return parse_block();
  if (accept(";")) return nullptr;
  if (t.kind == TokenKind::pragma) {
    parse_pragma();
    return nullptr;
  }
  if (t.is_identifier()) {
    std::string_view w = t.text;
    bool dotted = peek(1).is(".");
    if (w == "parallel") return parse_parallel();
    if (w == "foreach" || w == "with" || w == "apply") return parse_loop();
    if (w == "while") return parse_while();
    if (w == "if") return parse_if();
    if ((w == "dma" || w == "tma") && dotted) return parse_copy(nullptr, t);
    if (w == "mma" && dotted) return parse_mma(nullptr, t);
    if (w == "frag" && at_frag_accumulators()) return parse_frag_accumulators();
    if (w == "wait") return parse_wait();
    if (w == "trigger") return parse_trigger();
    if (w == "inthreads") return parse_inthreads();
    if (w == "sync" && dotted) return parse_sync();
    if (w == "return") return parse_return();
    if (w == "break" || w == "continue") {
      advance();
      SourceLocation loc = location(t);
      expect_semicolon("`" + std::string(w) + "`");
      return w == "break" ? make_stmt(loc, Break{}) : make_stmt(loc, Continue{});
    }
    if (w == "call") return parse_call_statement();
    if (w == "assert" || w == "static_assert") return parse_assert();
    if (w == "swap" || (w == "rotate" && !peek(1).is("=") && !peek(1).is("."))) return parse_swap();
    if ((w == "print" || w == "println") && peek(1).is("!") && !peek(1).space_before) return parse_compile_time_print();
    if (w == "yield") return parse_yield();
    if (w == "__asm__" || w == "asm" || w == "__asm") return parse_asm();
    if (w == "else") fail(t, "`else` without a matching `if`", "check the braces of the `if` before it");
    if (w == "for")
      fail(t, "`for` loops are not Croqtile; expected a statement, found `for`",
           "use `foreach i in [N]` for a sequential loop");
    if (at_declaration()) return parse_declaration();
  }
  if (at_punct("}")) fail(t, "expected a statement, found `}`");
  return parse_expression_statement();
}

// block = "{" { statement } "}"
StmtPtr StatementParser::parse_block() {
  const Token& open = expect("{", "to begin a block");
  const size_t intrinsics_outside = intrinsics_in_scope_.size();  // the block's registrations end with it
  Block block;
  while (!at_punct("}")) {
    if (at_eof() || at_function_start()) {
      report(peek(), "expected `}`, found " + describe(peek()),
             "the `{` at line " + std::to_string(open.line) + ", column " + std::to_string(open.column) +
                 " is never closed");
      throw FunctionAbandoned{};
    }
    try {
      if (StmtPtr s = parse_statement()) block.statements.push_back(std::move(s));
    } catch (const SyntaxError&) {
      bar_closes_ = angle_closes_ = false;
      synchronize();
    }
  }
  advance();
  intrinsics_in_scope_.resize(intrinsics_outside);
  return make_stmt(location(open), std::move(block));
}

// attributes = "[[" IDENT [ "(" [ expr_list ] ")" ] { "," ... } "]]"
std::vector<Attribute> StatementParser::parse_attributes() {
  std::vector<Attribute> attributes;
  advance();
  advance();
  while (true) {
    Attribute a;
    const Token& name = expect_identifier("an attribute name");
    a.name = std::string(name.text);
    a.location = location(name);
    if (at_punct("(")) a.args = parse_call_arguments("the attribute arguments");
    attributes.push_back(std::move(a));
    if (!accept(",")) break;
  }
  expect("]", "to close the attribute");
  expect("]", "to close the attribute");
  return attributes;
}

// parallel = "parallel" [ "." "async" ] [ "<" expr ">" ] parallel_level { "," parallel_level } body
StmtPtr StatementParser::parse_parallel() {
  const Token& keyword = advance();
  Parallel parallel;
  if (at_punct(".") && !peek().space_before) {
    advance();
    if (!at_word("async")) fail(peek(), "expected `async` after `parallel.`, found " + describe(peek()));
    advance();
    parallel.is_async = true;
  }
  if (at_punct("<")) {
    ExprList stream = parse_template_arguments("the stream of `parallel`");
    if (stream.size() != 1 || !std::holds_alternative<Name>(stream[0]->node))
      fail_at(stream[0]->location, "`parallel<...>` takes one stream, named by a `stream` parameter",
              "write `parallel<s> p by N`");
    parallel.stream = std::move(stream[0]);
  }
  do {
    parallel.levels.push_back(parse_parallel_level());
  } while (accept(","));
  parallel.body = parse_body();
  return make_stmt(location(keyword), std::move(parallel));
}

// parallel_level = [ index_group ] "by" expr [ ":" space_specifier ]
// index_group    = IDENT | [ IDENT "=" ] "{" IDENT { "," IDENT } "}"
ParallelLevel StatementParser::parse_parallel_level() {
  ParallelLevel level;
  level.location = location(peek());
  if (peek().is_identifier() && peek(1).is("=") && peek(2).is("{")) {
    const Token& name = advance();
    level.tuple_name = Identifier{location(name), std::string(name.text)};
    advance();
  }
  if (accept("{")) {
    level.braced = true;
    do {
      const Token& index = expect_identifier("a parallel index name");
      level.indices.push_back(Identifier{location(index), std::string(index.text)});
    } while (accept(","));
    expect("}", "to close the parallel index group");
  } else if (peek().is_identifier() && !at_word("by")) {
    const Token& index = advance();
    level.indices.push_back(Identifier{location(index), std::string(index.text)});
  }
  if (!at_word("by")) {
    std::string hint;
    if (at_word("in")) hint = "`parallel` takes `by`, `foreach` takes `in`";
    fail(peek(), "expected `by` after the parallel index, found " + describe(peek()), hint);
  }
  advance();
  if (at_punct(";") || at_punct("{") || at_punct(":"))
    fail(peek(), "expected the count after `by`, found " + describe(peek()), "write `parallel p by 4`, or a shape `by [2, 4]`");
  level.count = parse_expression();
  if (accept_colon()) parse_level_annotation(level);
  return level;
}

// space_specifier = "block" | "thread" | "group" | "group-4" | "cluster" | "device" | "term"
SpaceSpecifier StatementParser::parse_space_specifier() {
  const Token& t = peek();
  if (t.is_identifier()) {
    if (t.text == "group" && peek(1).is("-") && peek(2).text == "4" && !peek(1).space_before) {
      advance();
      advance();
      advance();
      return SpaceSpecifier::group4;
    }
    if (t.text == "group" && peek(1).is("-") && peek(2).kind == TokenKind::integer) {
      SourceLocation wide = location(t);
      if (peek(2).offset > t.offset) wide.length = peek(2).offset + peek(2).length() - t.offset;
      fail_at(wide, "unknown space specifier `group-" + std::string(peek(2).text) +
                     "`; expected `block`, `thread`, `group`, `group-4`, `cluster`, `device` or `term`",
           "a warpgroup is `group-4`");
    }
    if (t.text == "block") return advance(), SpaceSpecifier::block;
    if (t.text == "thread") return advance(), SpaceSpecifier::thread;
    if (t.text == "group") return advance(), SpaceSpecifier::group;
    if (t.text == "cluster") return advance(), SpaceSpecifier::cluster;
    if (t.text == "device") return advance(), SpaceSpecifier::device;
    if (t.text == "term") return advance(), SpaceSpecifier::term;
  }
  std::string guess = t.is_identifier() ? closest_name(t.text, kSpaces) : "";
  fail(t, "unknown space specifier " + describe(t) + "; expected `block`, `thread`, `group`, `group-4`, `cluster`, `device` or `term`",
       guess.empty() ? "" : "did you mean `" + guess + "`?");
}

// while = "while" expr statement
StmtPtr StatementParser::parse_while() {
  const Token& keyword = advance();
  While w;
  w.condition = parse_expression();
  w.body = parse_body();
  return make_stmt(location(keyword), std::move(w));
}

// if = "if" [ "constexpr" ] "(" expr ")" statement [ "else" statement ]
StmtPtr StatementParser::parse_if() {
  const Token& keyword = advance();
  If node;
  node.is_constexpr = accept("constexpr");
  expect("(", "after `if`", "write the condition in parentheses: `if (cond)`");
  node.condition = parse_expression();
  expect(")", "to close the `if` condition");
  node.then_branch = parse_body();
  if (accept("else")) node.else_branch = parse_body();
  return make_stmt(location(keyword), std::move(node));
}

// copy        = [ postfix "=" ] ( "dma" | "tma" ) "." copy_op [ template_arguments ]
//               modifiers [ expr "=>" destination ] [ "after" expr_list ] ";"
// destination = "shared" | "local" | "global" | expr
StmtPtr StatementParser::parse_copy(ExprPtr future, const Token& first) {
  Copy copy;
  copy.future = std::move(future);
  const Token& engine = advance();
  copy.engine = engine.text == "tma" ? Engine::tma : Engine::dma;
  advance();  // "."
  const Token& op = expect_identifier("a " + std::string(engine.text) + " operation after `" +
                                      std::string(engine.text) + ".`");
  copy.op_location = location(op);
  auto found = std::find(kCopyOps.begin(), kCopyOps.end(), op.text);
  if (found == kCopyOps.end()) {
    std::string guess = closest_name(op.text, kCopyOps);
    fail(op, "unknown " + std::string(engine.text) + " operation " + describe(op) +
                 "; expected `copy`, `transp`, `pad`, `load`, `store` or `any`",
         guess.empty() ? "" : "did you mean `" + guess + "`?");
  }
  copy.op = static_cast<CopyOp>(found - kCopyOps.begin());
  reject_removed_copy(engine, op);
  if (at_punct("<")) copy.op_args = parse_template_arguments("`" + std::string(op.text) + "`");
  if (!copy.op_args.empty() && (copy.op == CopyOp::copy || copy.op == CopyOp::load))
    fail_at(copy.op_args[0]->location,
            "`" + std::string(engine.text) + "." + std::string(op.text) + "` takes no template arguments",
            "an event is bound to a copy with `trigger e after f`");
  if (copy.op == CopyOp::pad && copy.op_args.size() != 4)
    fail(op, "`" + std::string(engine.text) + ".pad` expects 4 template arguments (low, high, mid, value), found " +
                 std::to_string(copy.op_args.size()));
  if (copy.op == CopyOp::transp && copy.op_args.empty())
    fail(op, "`" + std::string(engine.text) + ".transp` expects the dimension order as template arguments",
         "for a 2-D transpose write `transp<1, 0>`");
  for (const ExprPtr& arg : copy.op_args)
    if (copy.op == CopyOp::transp && !is_integer_literal(*arg) && !std::holds_alternative<Name>(arg->node))
      fail_at(arg->location, "bad template argument of `transp`: expected a dimension index, found `" +
                                 written_text(*arg) + "`");
  copy.modifiers = parse_modifiers(true);
  check_copy_modifiers(copy, engine);
  if (copy.op != CopyOp::any && !at_punct(";")) {
    copy.source = parse_expression();
    if (!accept("=>")) {
      std::string hint = "did you mean `=>`?";
      if (peek().is("shared") || peek().is("local") || peek().is("global"))
        hint = "did you mean `=> " + std::string(peek().text) + "`?";
      fail(peek(), "expected `=>` after the copy source, found " + describe(peek()), hint);
    }
    if ((at_word("shared") || at_word("local") || at_word("global")) &&
        (peek(1).is(";") || peek(1).is("after"))) {
      const Token& storage = advance();
      copy.destination_storage_location = location(storage);
      copy.destination_storage = storage.text == "shared" ? Storage::shared
                                 : storage.text == "local" ? Storage::local
                                                           : Storage::global;
    } else if (at_punct(";")) {
      fail(peek(), "expected a destination after `=>`, found `;`",
           "name a buffer, or `shared` / `local` for a new one");
    } else {
      copy.destination = parse_expression();
    }
  } else if (copy.op != CopyOp::any) {
    fail(peek(), "expected the copy source after `" + std::string(engine.text) + "." + std::string(op.text) +
                     "`, found `;`");
  }
  if (accept("after")) copy.after = parse_after_list();
  SourceLocation loc = location_from(first);
  expect_semicolon("the " + std::string(engine.text) + " statement");
  return make_stmt(loc, std::move(copy));
}

// after_list = expr_list    (following `after`)
ExprList StatementParser::parse_after_list() {
  if (at_punct(";")) fail(peek(), "expected a future after `after`, found `;`");
  return parse_expression_list();
}

// modifiers = { "." IDENT [ template_arguments ] }
std::vector<Modifier> StatementParser::parse_modifiers(bool for_copy) {
  std::vector<Modifier> modifiers;
  while (at_punct(".")) {
    advance();
    const Token& name = expect_identifier("a modifier name after `.`");
    Modifier m;
    m.name = std::string(name.text);
    m.location = location(name);
    if (for_copy && std::find(kCopyModifiers.begin(), kCopyModifiers.end(), name.text) == kCopyModifiers.end()) {
      std::string guess = closest_name(name.text, kCopyModifiers);
      if (!guess.empty())
        fail(name, "unknown copy modifier `." + m.name + "`", "did you mean `." + guess + "`?");
    }
    if (at_punct("<") && m.name == "sp") {
      m.has_template_args = true;
      m.template_args = parse_sparsity();
    } else if (at_punct("<")) {
      m.has_template_args = true;
      m.template_args = parse_template_arguments("`." + m.name + "`");
    }
    if (!for_copy && m.name == "order" && m.has_template_args)
      fail(name, "`.order<...>` was removed from Croqtile",
           "set the issue order of the K tiles with `[[schedule(k_tiles(...))]]`");
    if (m.name == "swiz") {
      if (m.template_args.size() != 1)
        fail(name, "`.swiz` expects one template argument, found " + std::to_string(m.template_args.size()),
             "write `.swiz<128>` (bytes) or `.swiz<3>` (mode)");
      std::uint64_t v = 0;
      if (is_integer_literal(*m.template_args[0], &v) && v > 3 && v != 32 && v != 64 && v != 128) {
        fail_at(m.template_args[0]->location, "bad template argument of `.swiz`: " + std::to_string(v) +
                                                  " is not a swizzle; expected 0, 1, 2, 3, 32, 64 or 128");
      }
    }
    modifiers.push_back(std::move(m));
  }
  return modifiers;
}

// mma    = [ postfix "=" ] "mma" "." mma_op modifiers [ expr_list ] ";"
// mma_op = "fill" | "load" | "store" | "commit" | "scale" | ( "row" | "col" ) "." ( "row" | "col" )
StmtPtr StatementParser::parse_mma(ExprPtr result, const Token& first) {
  Mma mma;
  mma.result = std::move(result);
  advance();
  advance();  // "."
  const Token& op = expect_identifier("an mma operation after `mma.`");
  if (op.text == "fill") mma.op = MmaOp::fill;
  else if (op.text == "load") mma.op = MmaOp::load;
  else if (op.text == "store") mma.op = MmaOp::store;
  else if (op.text == "commit") mma.op = MmaOp::commit;
  else if (op.text == "row" || op.text == "col") {
    mma.op = MmaOp::multiply;
    expect(".", "after `mma." + std::string(op.text) + "`", "write `mma.row.col`, `mma.row.row`, ...");
    const Token& b = peek();
    if (!b.is("row") && !b.is("col"))
      fail(b, "expected `row` or `col` after `mma." + std::string(op.text) + ".`, found " + describe(b));
    advance();
    mma.layout = std::string(op.text) + "." + std::string(b.text);
  } else if (op.text == "scale") {
    mma.op = MmaOp::scale;
  } else {
    std::string guess = closest_name(op.text, kMmaOps);
    fail(op, "unknown mma operation " + describe(op) +
                 "; expected `fill`, `load`, `row.row`, `row.col`, `col.row`, `col.col`, `commit`, `scale` or `store`",
         guess.empty() ? "" : "did you mean `" + guess + "`?");
  }
  mma.modifiers = parse_modifiers(false);
  if (!at_punct(";")) mma.operands = parse_expression_list();
  SourceLocation loc = location_from(first);
  expect_semicolon("the mma statement");
  return make_stmt(loc, std::move(mma));
}

// wait = "wait" expr_list ";"
StmtPtr StatementParser::parse_wait() {
  const Token& keyword = advance();
  if (at_punct(";")) fail(peek(), "expected a future or event after `wait`, found `;`");
  Wait wait;
  wait.targets = parse_expression_list();
  SourceLocation loc = location_from(keyword);
  expect_semicolon("`wait`");
  return make_stmt(loc, std::move(wait));
}

// inthreads = "inthreads" [ "." "async" ] "(" expr ")" statement
StmtPtr StatementParser::parse_inthreads() {
  const Token& keyword = advance();
  InThreads node;
  if (accept(".")) {
    const Token& m = peek();
    if (!m.is("async")) fail(m, "expected `async` after `inthreads.`, found " + describe(m));
    advance();
    node.is_async = true;
  }
  expect("(", "after `inthreads`", "write the thread condition in parentheses: `inthreads (p == 0)`");
  node.condition = parse_expression();
  expect(")", "to close the `inthreads` condition");
  node.body = parse_body();
  return make_stmt(location(keyword), std::move(node));
}

// return = "return" [ expr ] ";"
StmtPtr StatementParser::parse_return() {
  const Token& keyword = advance();
  Return ret;
  if (!at_punct(";")) ret.value = parse_expression();
  SourceLocation loc = location_from(keyword);
  expect_semicolon("`return`");
  return make_stmt(loc, std::move(ret));
}

// call = "call" scoped_name [ template_arguments ] "(" [ expr_list ] ")" ";"
StmtPtr StatementParser::parse_call_statement() {
  const Token& keyword = advance();
  CallStatement call;
  if (!peek().is_identifier()) fail(peek(), "expected a function name after `call`, found " + describe(peek()));
  call.callee = parse_scoped_name();
  if (at_punct("<")) call.template_args = parse_template_arguments("the call");
  if (!at_punct("("))
    fail(peek(), "expected `(` after `call " + call.callee + "`, found " + describe(peek()));
  call.args = parse_call_arguments("the call arguments");
  SourceLocation loc = location_from(keyword);
  expect_semicolon("the call");
  return make_stmt(loc, std::move(call));
}

// assert = ( "assert" | "static_assert" ) "(" expr [ "," expr ] ")" ";"
StmtPtr StatementParser::parse_assert() {
  const Token& keyword = advance();
  Assert node;
  node.is_static = keyword.text == "static_assert";
  expect("(", "after `" + std::string(keyword.text) + "`");
  node.condition = parse_expression();
  if (accept(",")) node.message = parse_expression();
  expect(")", "to close `" + std::string(keyword.text) + "`");
  SourceLocation loc = location_from(keyword);
  expect_semicolon("`" + std::string(keyword.text) + "`");
  return make_stmt(loc, std::move(node));
}

// yield = "yield" [ expr ] ";"
StmtPtr StatementParser::parse_yield() {
  const Token& keyword = advance();
  Yield node;
  if (!at_punct(";")) node.value = parse_expression();
  SourceLocation loc = location_from(keyword);
  expect_semicolon("`yield`");
  return make_stmt(loc, std::move(node));
}

// asm = ( "__asm__" | "asm" ) [ "volatile" ] "(" STRING { STRING }
//       [ ":" asm_operands [ ":" asm_operands [ ":" [ STRING { "," STRING } ] ] ] ] ")" ";"
StmtPtr StatementParser::parse_asm() {
  const Token& keyword = advance();
  Asm node;
  node.is_volatile = accept("volatile") || accept("__volatile__");
  expect("(", "after `" + std::string(keyword.text) + "`");
  if (peek().kind != TokenKind::string)
    fail(peek(), "expected the assembly string, found " + describe(peek()));
  while (peek().kind == TokenKind::string) node.templates.emplace_back(advance().text);
  if (accept_colon()) {
    node.outputs = parse_asm_operands();
    if (accept_colon()) {
      node.inputs = parse_asm_operands();
      if (accept_colon()) {
        while (peek().kind == TokenKind::string) {
          node.clobbers.emplace_back(advance().text);
          if (!accept(",")) break;
        }
      }
    }
  }
  expect(")", "to close `" + std::string(keyword.text) + "`");
  SourceLocation loc = location_from(keyword);
  expect_semicolon("the inline assembly");
  return make_stmt(loc, std::move(node));
}

// asm_operands = [ asm_operand { "," asm_operand } ]
// asm_operand  = [ "[" IDENT "]" ] STRING "(" expr ")"
std::vector<AsmOperand> StatementParser::parse_asm_operands() {
  std::vector<AsmOperand> operands;
  while (peek().kind == TokenKind::string || at_punct("[")) {
    AsmOperand op;
    op.location = location(peek());
    if (accept("[")) {
      op.symbolic_name = std::string(expect_identifier("an operand name").text);
      expect("]", "after the operand name");
    }
    if (peek().kind != TokenKind::string)
      fail(peek(), "expected an operand constraint string, found " + describe(peek()));
    op.constraint = std::string(advance().text);
    expect("(", "after the operand constraint");
    op.value = parse_expression();
    expect(")", "to close the operand");
    operands.push_back(std::move(op));
    if (!accept(",")) break;
  }
  return operands;
}

// expression_statement = postfix assign_op ( copy | mma | expr ) ";" | expr ";"
StmtPtr StatementParser::parse_expression_statement() {
  const Token& first = peek();
  ExprPtr target = parse_expression();
  std::optional<AssignOp> op = assign_op(peek());
  if (!op) {
    if (at_punct("=>"))
      fail(peek(), "unexpected `=>` outside a copy",
           "a copy reads `dma.copy src => dst;`");
    SourceLocation loc = location_from(first);
    if (!at_punct(";") && peek().line == tokens_[pos_ - 1].line)
      fail(peek(), "unexpected " + describe(peek()) + " after the expression; expected `;` or `=`");
    expect_semicolon("the expression");
    if (auto* u = std::get_if<Unary>(&target->node)) {
      // `x++;`, `--x;` as statements are `x += 1;` / `x -= 1;`: every rule
      // of compound assignment applies (a mutable scalar or element).
      const bool up = u->op == UnaryOp::pre_increment || u->op == UnaryOp::post_increment;
      if (up || u->op == UnaryOp::pre_decrement || u->op == UnaryOp::post_decrement) {
        Assignment step;
        step.op = up ? AssignOp::add : AssignOp::sub;
        step.value = make_node<Expr>(target->location, IntegerLiteral{"1", 1, ""});
        step.target = std::move(u->operand);
        return make_stmt(loc, std::move(step));
      }
    }
    return make_stmt(loc, ExprStatement{std::move(target)});
  }
  advance();
  if (*op == AssignOp::assign && (at_word("dma") || at_word("tma")) && peek(1).is("."))
    return parse_copy(std::move(target), first);
  if (*op == AssignOp::assign && at_word("mma") && peek(1).is("."))
    return parse_mma(std::move(target), first);
  Assignment assignment;
  assignment.target = std::move(target);
  assignment.op = *op;
  if (at_punct(";")) fail(peek(), "expected a value after `" + std::string(assign_op_name(*op)) + "`, found `;`");
  assignment.value = parse_expression();
  SourceLocation loc = location_from(first);
  expect_semicolon("the assignment");
  return make_stmt(loc, std::move(assignment));
}

}  // namespace croq::frontend
