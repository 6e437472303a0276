// Parser, part 2b: the statements with several spellings: loops (bindings,
// local names, `where`, hints), statement bodies (`;` is an empty one),
// parallel-level annotations, sync/barrier/fence, swap/rotate, trigger and
// the compile-time prints.
#include "frontend/frontend.hpp"
#include "frontend/parser.hpp"

namespace croq::frontend {

using namespace ast;

namespace {

const std::vector<std::string_view> kLoopHints = {"unroll", "vectorize"};
const std::vector<std::string_view> kSyncKinds = {"shared", "global", "local", "barrier", "fence"};

}  // namespace

// body = ";" | statement          (`;` is an empty body)
StmtPtr StatementParser::parse_body() {
  if (at_punct(";")) {
    const Token& semicolon = advance();
    return make_stmt(location(semicolon), Block{});
  }
  StmtPtr body = parse_statement();
  if (!body) body = make_stmt(location(tokens_[pos_ - 1]), Block{});
  return body;
}

// level_annotation = ":" space_specifier [ "(" IDENT ")" ] [ "<" "cooperative" ">" ]
void StatementParser::parse_level_annotation(ParallelLevel& level) {
  const Token& word = peek();
  level.space_location = location(word);
  level.space = parse_space_specifier();
  if (at_punct("(")) {
    const Token& open = advance();
    if (level.space != SpaceSpecifier::device)
      fail(open, "only a `: device` level takes an argument, as in `: device(gpu)`");
    const Token& target = expect_identifier("a device kind (`cpu` or `gpu`) after `device(`");
    if (!target.is("cpu") && !target.is("gpu"))
      fail(target, "unknown device " + describe(target) + "; expected `cpu` or `gpu`");
    level.device = std::string(target.text);
    expect(")", "to close `device(`");
  } else if (level.space == SpaceSpecifier::device) {
    fail(peek(), "expected `(` after `: device`, found " + describe(peek()), "name the device: `: device(gpu)`");
  }
  if (at_punct("<")) {
    const Token& open = advance();
    if (!at_word("cooperative"))
      fail(peek(), "expected `cooperative` after `<` in the level annotation, found " + describe(peek()));
    advance();
    if (!accept_closing_angle()) fail(peek(), "expected `>` after `cooperative`, found " + describe(peek()));
    // On another level Croqtile ignores it: sema says so.
    level.cooperative = true;
    level.cooperative_location = location(open);
  }
}

// loop         = ( "foreach" | "with" | "apply" ) loop_binding { "," loop_binding } [ "in" expr ]
//                { "," loop_binding { "," loop_binding } "in" expr } [ where ] [ ":" hints ] body
// loop_binding = [ IDENT "=" ] IDENT [ "(" range ")" ] | [ IDENT "=" ] "{" IDENT { "," IDENT } "}"
StmtPtr StatementParser::parse_loop() {
  const Token& keyword = advance();
  Loop loop;
  loop.kind = keyword.text == "with" ? LoopKind::with : keyword.text == "apply" ? LoopKind::apply : LoopKind::foreach_;
  const std::string what(keyword.text);
  // The names of one binding group (up to its `in`); true when more follow a `,`.
  auto names = [&](std::optional<Identifier>& tuple_name, std::vector<LoopIndex>& indices, bool& braced) {
    do {
      if (peek().is_identifier() && peek(1).is("=") && peek(2).is("{")) {
        const Token& name = advance();
        tuple_name = Identifier{location(name), std::string(name.text)};
        advance();
      }
      if (accept("{")) {
        braced = true;
        do {
          const Token& index = expect_identifier("a loop index name");
          indices.push_back(LoopIndex{Identifier{location(index), std::string(index.text)}, nullptr, std::nullopt});
        } while (accept(","));
        expect("}", "to close the loop index group");
      } else {
        const Token& first = expect_identifier("a loop index name after `" + what + "`");
        LoopIndex li{Identifier{location(first), std::string(first.text)}, nullptr, std::nullopt};
        if (at_punct("=") && peek(1).is_identifier()) {  // `c = a(1:)`: c is the body's name for a
          // `_` and a local name used twice are sema's rules (names, not syntax).
          advance();
          const Token& source = advance();
          li.local_name = li.name;
          li.name = Identifier{location(source), std::string(source.text)};
        }
        if (at_punct("(")) li.range = parse_range(advance());
        indices.push_back(std::move(li));
      }
    } while (!at_word("in") && accept(","));
  };
  auto bound = [&]() -> ExprPtr {
    if (at_punct("|"))
      fail(peek(), "a loop bound is a shape or a count, not an element count `|...|`",
           "write the shape, e.g. `" + what + " i in x.span`");
    return parse_expression();
  };
  names(loop.tuple_name, loop.indices, loop.braced);
  if (accept("in")) {
    loop.bound = bound();
    while (accept(",")) {
      LoopBinding more;
      names(more.tuple_name, more.indices, more.braced);
      if (!accept("in"))
        fail(peek(), "expected `in` after the " + what + " index, found " + describe(peek()),
             "each binding after the first reads `name in bound`");
      more.bound = bound();
      loop.more_bindings.push_back(std::move(more));
    }
  } else if (at_word("by")) {
    fail(peek(), "expected `in` after the " + what + " index, found `by`", "`foreach` takes `in`, `parallel` takes `by`");
  } else if (loop.kind != LoopKind::foreach_) {
    fail(peek(), "expected `in` after the " + what + " index, found " + describe(peek()));
  }
  if (loop.kind == LoopKind::with && accept("where")) {
    do {
      const Token& first = expect_identifier("a `with` index name after `where`");
      if (!(accept("<") && accept("->")))
        fail(peek(), "expected `<->` between the two indices of `where`, found " + describe(peek()));
      const Token& second = expect_identifier("a `with` index name after `<->`");
      loop.where.push_back({Identifier{location(first), std::string(first.text)},
                            Identifier{location(second), std::string(second.text)}});
    } while (accept(","));
  }
  if (loop.kind == LoopKind::foreach_ && accept_colon()) {
    do {
      const Token& name = expect_identifier("a loop hint (`unroll` or `vectorize`) after `:`");
      if (!name.is("unroll") && !name.is("vectorize")) {
        std::string guess = closest_name(name.text, kLoopHints);
        fail(name, "unknown loop hint " + describe(name) + "; expected `unroll`, `unroll(N)` or `vectorize(v, N)`",
             guess.empty() ? "" : "did you mean `" + guess + "`?");
      }
      Attribute hint;
      hint.location = location(name);
      hint.name = std::string(name.text);
      if (at_punct("(")) hint.args = parse_call_arguments("the loop hint");
      if (name.is("vectorize") && hint.args.size() != 2)
        fail(name, "`vectorize` takes an index and a width, as in `vectorize(i, 4)`");
      if (name.is("unroll") && hint.args.size() > 1)
        fail(name, "`unroll` takes at most one factor, as in `unroll(2)`");
      if (name.is("unroll") && hint.args.size() == 1) {
        const auto* factor = std::get_if<IntegerLiteral>(&hint.args[0]->node);
        if (!factor || factor->value == 0)
          fail_at(hint.args[0]->location, "the unroll factor must be a positive integer");
      }
      loop.hints.push_back(std::move(hint));
    } while (accept(","));
  }
  loop.body = parse_body();
  return make_stmt(location(keyword), std::move(loop));
}

// sync = "sync" "." IDENT [ ":" space_specifier [ "<" IDENT ">" ] ] ";"
//        (the level after `barrier` and `fence`)
StmtPtr StatementParser::parse_sync() {
  const Token& keyword = advance();
  advance();
  Sync sync;
  const Token& kind = expect_identifier("a scope after `sync.` (`shared`, `global`, `barrier`, `fence`)");
  sync.scope = std::string(kind.text);
  const bool leveled = kind.is("barrier") || kind.is("fence");
  if (leveled) {
    if (!accept_colon())
      fail(peek(), "expected `:` and a level after `sync." + sync.scope + "`, found " + describe(peek()),
           "write `sync." + sync.scope + " : block` (or `: group`, `: thread`)");
    sync.level_location = location(peek());
    sync.level = parse_space_specifier();
    if (kind.is("fence") && at_punct("<")) {
      advance();
      const Token& storage = expect_identifier("a memory (`shared`, `global`, `local`) after `<`");
      if (!storage.is("shared") && !storage.is("global") && !storage.is("local"))
        fail(storage, "unknown memory " + describe(storage) + " in the fence; expected `shared`, `global` or `local`");
      sync.storage = std::string(storage.text);
      if (!accept_closing_angle()) fail(peek(), "expected `>` after the memory of the fence, found " + describe(peek()));
    }
  } else if (!kind.is("shared") && !kind.is("global") && !kind.is("local")) {
    std::string guess = closest_name(kind.text, kSyncKinds);
    fail(kind, "unknown synchronization `sync." + sync.scope + "`; expected `sync.shared`, `sync.global`, "
               "`sync.local`, `sync.barrier` or `sync.fence`",
         guess.empty() ? "" : "did you mean `sync." + guess + "`?");
  }
  SourceLocation loc = location_from(keyword);
  expect_semicolon("`sync." + sync.scope + "`");
  return make_stmt(loc, std::move(sync));
}

// swap = ( "swap" | "rotate" ) ( "(" expr_list ")" | expr_list ) ";"
StmtPtr StatementParser::parse_swap() {
  const Token& keyword = advance();
  Swap node;
  node.rotate = keyword.is("rotate");
  const std::string what(keyword.text);
  ExprList names;
  if (at_punct("(") ) {
    names = parse_call_arguments("`" + what + "`");
  } else {
    if (at_punct(";")) fail(peek(), "expected the futures to " + what + " after `" + what + "`, found `;`");
    names = parse_expression_list();
  }
  if (!node.rotate && names.size() != 2)
    fail(keyword, "`swap` exchanges two futures, found " + std::to_string(names.size()),
         "write `swap(a, b)`; `rotate(a, b, c)` cycles more");
  if (node.rotate && names.size() < 2)
    fail(keyword, "`rotate` takes two or more futures, found " + std::to_string(names.size()));
  node.first = std::move(names[0]);
  node.second = std::move(names[1]);
  for (std::size_t i = 2; i < names.size(); ++i) node.more.push_back(std::move(names[i]));
  SourceLocation loc = location_from(keyword);
  expect_semicolon("`" + what + "`");
  return make_stmt(loc, std::move(node));
}

// trigger = "trigger" [ "." "cluster" ] expr_list [ "after" expr_list ] ";"
StmtPtr StatementParser::parse_trigger() {
  const Token& keyword = advance();
  Trigger trigger;
  if (accept(".")) {
    const Token& scope = peek();
    if (!scope.is("cluster"))
      fail(scope, "only `trigger.cluster` names a scope; found `trigger." + std::string(scope.text) + "`");
    advance();
    trigger.scope = "cluster";
  }
  if (at_punct(";")) fail(peek(), "expected an event after `trigger`, found `;`");
  trigger.targets = parse_expression_list();
  if (accept("after")) trigger.after = parse_after_list();
  SourceLocation loc = location_from(keyword);
  expect_semicolon("`trigger`");
  return make_stmt(loc, std::move(trigger));
}

// print = ( "print" | "println" ) "!" "(" [ expr_list ] ")" ";"    (printed when compiling)
StmtPtr StatementParser::parse_compile_time_print() {
  const Token& keyword = advance();
  advance();  // "!"
  if (!at_punct("(")) fail(peek(), "expected `(` after `" + std::string(keyword.text) + "!`, found " + describe(peek()));
  Call call;
  SourceLocation loc = location(keyword);
  loc.length += 1;
  call.callee = make_node<Expr>(loc, Name{std::string(keyword.text) + "!"});
  call.args = parse_call_arguments("the arguments of `" + std::string(keyword.text) + "!`");
  ExprPtr e = make_node<Expr>(loc, std::move(call));
  set_extent(*e, keyword.offset);
  SourceLocation stmt_loc = location_from(keyword);
  expect_semicolon("`" + std::string(keyword.text) + "!`");
  return make_stmt(stmt_loc, ExprStatement{std::move(e)});
}

// Whether `frag` starts accumulator declarations: `frag.s32 mc ...`, or a
// name that is not a type after `frag` (`frag mc[2][3] {0.0f}`).
bool StatementParser::at_frag_accumulators() const {
  if (peek(1).is(".")) return peek(2).is_identifier() && peek(3).is_identifier();
  return peek(1).is_identifier() && !at_type_name(1) && (peek(2).is("[") || peek(2).is("{") || peek(2).is(";"));
}

// frag_accumulators = "frag" [ "." element_type ] IDENT { "[" expr "]" } "{" expr "}" ";"
// Accumulators filled with the value: `frag.f32 mc[2][3] {0.0f};` is an mma.fill.
StmtPtr StatementParser::parse_frag_accumulators() {
  const Token& keyword = advance();
  Mma mma;
  mma.op = MmaOp::fill;
  mma.frag_declaration = true;
  if (accept(".")) {
    const Token& type = peek();
    if (!is_element_type_name(type.text))
      fail(type, "expected the element type of the accumulators after `frag.`, found " + describe(type),
           "write `frag.f32 mc {0.0f};`, or `frag mc {0.0f};` for the default type");
    Modifier m;
    m.location = location(advance());
    m.name = std::string(type.text);
    mma.modifiers.push_back(std::move(m));
  }
  const Token& name = expect_identifier("the name of the accumulators");
  mma.result = make_node<Expr>(location(name), Name{std::string(name.text)});
  set_extent(*mma.result, name.offset);
  while (accept("[")) {
    mma.array_dims.push_back(parse_expression());
    expect("]", "after the array size");
  }
  if (!at_punct("{"))
    fail(peek(), "expected `{` and the initial value after `frag " + std::string(name.text) + "`, found " + describe(peek()),
         "accumulators start filled: `frag " + std::string(name.text) + " {0.0f};`");
  advance();
  mma.operands.push_back(parse_expression());
  expect("}", "after the initial value of `" + std::string(name.text) + "`");
  SourceLocation loc = location_from(keyword);
  expect_semicolon("the accumulator declaration");
  return make_stmt(loc, std::move(mma));
}


// Operations Croqtile had once and removed: each gets its replacement.
void StatementParser::reject_removed_copy(const Token& engine, const Token& op) {
  if (engine.is("dma") && op.is("load"))
    fail(op, "`.load` is a TMA-only operation", "write `dma.copy`, or `tma.load` for a TMA load");
  if (op.is("store"))
    fail(op, "`" + std::string(engine.text) + ".store` was removed from Croqtile",
         "a store is a copy out of shared memory: `tma.copy tile => dst;`");
}

// L2 eviction hints: on `tma.load` only, at most one, before `.swiz`.
void StatementParser::check_copy_modifiers(const Copy& copy, const Token& engine) {
  bool swizzled = false, evicting = false;
  for (const Modifier& m : copy.modifiers) {
    const bool evict = m.name == "evict_first" || m.name == "evict_last" || m.name == "evict_normal";
    if (m.name == "swiz") swizzled = true;
    if (!evict) continue;
    if (!engine.is("tma") || copy.op != CopyOp::load)
      fail_at(m.location, "L2 eviction modifiers (`." + m.name + "`) apply only to `tma.load`",
              "write `tma.load." + m.name + " src => dst`");
    if (swizzled)
      fail_at(m.location, "the eviction modifier `." + m.name + "` must come before `.swiz`",
              "write `tma.load.async." + m.name + ".swiz<N>`");
    if (evicting) fail_at(m.location, "a copy takes at most one eviction modifier");
    evicting = true;
  }
}

// sparsity = "<" INTEGER ( ":" | "," ) INTEGER ">"     (`.sp<2:4>`: n of every m elements kept)
ExprList StatementParser::parse_sparsity() {
  advance();  // "<"
  ExprList args;
  for (int part = 0; part < 2; ++part) {
    const Token& t = peek();
    if (t.kind != TokenKind::integer)
      fail(t, "expected an integer in `.sp<n:m>`, found " + describe(t), "write `.sp<2:4>`");
    args.push_back(parse_primary());
    if (part == 0 && !accept_colon() && !accept(","))
      fail(peek(), "expected `:` in `.sp<n:m>`, found " + describe(peek()), "write `.sp<2:4>`");
  }
  if (!accept_closing_angle()) fail(peek(), "expected `>` to close `.sp<n:m>`, found " + describe(peek()));
  const auto n = std::get<IntegerLiteral>(args[0]->node).value, m = std::get<IntegerLiteral>(args[1]->node).value;
  if (n != 2 || m != 4)
    fail_at(args[0]->location,
            "only 2:4 structured sparsity is supported, got " + std::to_string(n) + ":" + std::to_string(m),
            "write `.sp<2:4>`: 2 of every 4 elements are kept");
  return args;
}


// call_expression = "call" scoped_name [ template_arguments ] "(" [ argument { "," argument } ] ")"
ExprPtr ExpressionParser::parse_call_expression() {
  const Token& keyword = advance();
  Call call;
  call.with_call_keyword = true;
  const Token& name = peek();
  SourceLocation name_loc = location(name);
  std::string callee = parse_scoped_name();
  name_loc.length = static_cast<int>(callee.size());
  call.callee = make_node<Expr>(name_loc, Name{callee});
  set_extent(*call.callee, name.offset);
  if (at_punct("<")) call.template_args = parse_template_arguments("the call");
  if (!at_punct("(")) fail(peek(), "expected `(` after `call " + callee + "`, found " + describe(peek()));
  call.args = parse_call_arguments("the call arguments");
  ExprPtr e = make_node<Expr>(location(keyword), std::move(call));
  set_extent(*e, keyword.offset);
  return e;
}

// pragma = "#pragma" "croq" "intrinsic" ( "prefix" | "namespace" ) NAME { "::" NAME } [ "::" ]
// A registration holds to the end of the statement list it stands in (the
// file, a function body, a block); calls without `call` whose name it
// matches are intrinsics (is_intrinsic). Its words end with its line.
void TokenCursor::parse_pragma() {
  const Token& pragma = advance();
  const auto on_line = [&] { return !at_eof() && peek().line == pragma.line && peek().kind != TokenKind::pragma; };
  const auto give_up = [&](const std::string& message, const std::string& hint) {
    report(on_line() ? peek() : pragma, message, hint);
    while (on_line()) advance();
  };
  const std::string usage = "write `#pragma croq intrinsic prefix hw_` or `#pragma croq intrinsic namespace arch`";
  advance();  // croq (the preprocessor keeps only these pragmas)
  if (!on_line() || !peek().is("intrinsic"))
    return give_up("unknown `#pragma croq` directive: expected `intrinsic`", usage);
  advance();
  if (!on_line() || !(peek().is("prefix") || peek().is("namespace")))
    return give_up("expected `prefix` or `namespace` after `#pragma croq intrinsic`", usage);
  ast::IntrinsicPragma r;
  r.is_namespace = advance().is("namespace");
  const Token* first = on_line() ? &peek() : nullptr;
  while (on_line() && (peek().is_identifier() || peek().is("::"))) r.name += advance().text;
  const bool well_formed = !r.name.empty() && r.name.rfind("::", 0) != 0 &&
                           r.name.find("::::") == std::string::npos &&
                           !(r.is_namespace && r.name.size() >= 2 && r.name.compare(r.name.size() - 2, 2, "::") == 0);
  if (!well_formed || on_line())
    return give_up(std::string("expected a ") + (r.is_namespace ? "namespace (`arch`)" : "name prefix (`hw_`, `vendor::`)") +
                       " after `#pragma croq intrinsic " + (r.is_namespace ? "namespace`" : "prefix`"),
                   usage);
  r.location = location(*first);
  r.location.length = static_cast<int>(r.name.size());
  intrinsic_pragmas_.push_back(r);
  intrinsics_in_scope_.push_back(std::move(r));
}

bool TokenCursor::is_intrinsic(const std::string& callee) const {
  for (const ast::IntrinsicPragma& r : intrinsics_in_scope_) {
    const std::string start = r.is_namespace ? r.name + "::" : r.name;
    if (callee.size() > start.size() && callee.compare(0, start.size(), start) == 0) return true;
  }
  return false;
}

}  // namespace croq::frontend
