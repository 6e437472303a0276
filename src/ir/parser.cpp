// The IR text parser (see parser.hpp): lines by indentation (two spaces a
// level), each statement's line by text_reader.hpp.
#include "ir/parser.hpp"

#include <map>

#include "croq/error.hpp"
#include "ir/parser_impl.hpp"

namespace croq::ir {

namespace text {

std::string_view first_word(std::string_view text) {
  std::size_t end = text.find(' ');
  if (end == std::string_view::npos) end = text.size();
  std::string_view w = text.substr(0, end);
  if (!w.empty() && w.back() == ':') w.remove_suffix(1);
  return w;
}

Parser::Parser(std::string_view text) {
  int number = 0;
  while (!text.empty()) {
    ++number;
    const std::size_t end = text.find('\n');
    std::string_view l = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (l.empty()) continue;
    const std::size_t indent = l.find_first_not_of(' ');
    if (indent == std::string_view::npos) continue;
    Line line{number, static_cast<int>(indent / 2), l.substr(indent)};
    if (indent % 2 != 0) fail(line, "indentation is not a multiple of two spaces");
    lines_.push_back(line);
  }
}

// ---------------------------------------------------------------- the header

Kernel Parser::kernel() {
  k_ = Kernel{};
  vars_.clear();
  const Line& head = lines_[next_++];
  if (head.depth != 0 || head.text.substr(0, 7) != "kernel ") fail(head, "expected `kernel ENTRY: ...`");
  LineReader h = reader(head);
  header(h);
  // Declarations, in the printer's order: parameters (read last: they name
  // buffers), buffers, events, accumulators.
  std::vector<const Line*> params, buffers, events, accumulators;
  while (more_at(1)) {
    const Line& l = lines_[next_];
    const std::string_view w = first_word(l.text);
    if (w == "param") params.push_back(&l);
    else if (w == "buffer") buffers.push_back(&l);
    else if (w == "accumulator") accumulators.push_back(&l);
    else if (w == "event" && l.text.find('[') != std::string_view::npos && l.text.find(" at ") != std::string_view::npos)
      events.push_back(&l);
    else break;
    ++next_;
  }
  k_.params.resize(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {  // names first: later lines refer to them
    LineReader r = reader(*params[i]);
    r.expect("param ");
    k_.params[i].name = r.identifier();
  }
  std::vector<std::string> views;
  for (const Line* l : buffers) {
    LineReader r = reader(*l);
    buffer(r, views);
  }
  for (std::size_t i = 0; i < views.size(); ++i) {  // `(view of X)` may name a later buffer
    if (views[i].empty()) continue;
    LineReader v(views[i], buffers[i]->number, 0, k_, vars_);
    k_.buffers[i].alias_of = v.buffer(-1);
  }
  for (const Line* l : events) {
    LineReader r = reader(*l);
    event(r);
  }
  for (const Line* l : accumulators) {
    LineReader r = reader(*l);
    accumulator(r);
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    LineReader r = reader(*params[i]);
    param(r, k_.params[i]);
  }
  k_.body = body(1);
  if (next_ < lines_.size() && lines_[next_].depth != 0) fail(lines_[next_], "unexpected indentation");
  return std::move(k_);
}

void Parser::header(LineReader& r) {
  r.expect("kernel ");
  const std::size_t colon = r.rest().find(": grid ");
  if (colon == std::string_view::npos) r.fail("expected `ENTRY: grid`");
  k_.entry = std::string(r.rest().substr(0, colon));
  r.expect(k_.entry);
  r.read(": grid ", IntegerField{k_.grid});
  if (r.eat(" (runtime)")) k_.abi.runtime_grid.terms.push_back({});
  r.read(", block ", IntegerField{k_.block_threads}, ", shared ", IntegerField{k_.shared_bytes}, " bytes");
  if (r.eat(", clusters of ")) k_.cluster_blocks = r.integer();
  k_.cluster_shared_memory = r.eat(" sharing shared memory");
  k_.grid_stride = r.eat(", looping over block indices");
  if (r.eat(", 64-bit indices")) k_.index = Type::i64();
  if (r.eat(", indices up to ")) k_.largest_index = r.integer();
  r.attributes();
  k_.function = r.take_string("function").value_or("");
  k_.source_name = r.take_string("source").value_or("");
  k_.where = r.take_position("pos");
  k_.hopper = r.take_flag("hopper");
  k_.cooperative = r.take_flag("cooperative");
  k_.cluster_live = r.take_expr("cluster_live");
  k_.needs_half = r.take_flag("needs_half");
  k_.needs_bf16 = r.take_flag("needs_bf16");
  k_.needs_fp8 = r.take_flag("needs_fp8");
  k_.needs_subbyte = r.take_flag("needs_subbyte");
  k_.needs_scale_types = r.take_flag("needs_scale_types");
  if (auto message = r.take_string("needs_sm90")) {
    const SourcePos at = r.take_position("needs_sm90_pos");
    k_.needs_sm90 = Diagnostic{Severity::error, *message, at.line, at.column, at.length,
                               r.take_string("needs_sm90_hint").value_or("")};
  }
  k_.next_name = static_cast<int>(r.take_int("next_name", 0));
  r.finish_attributes();
  r.end();
}

void Parser::param(LineReader& r, Param& p) {
  r.expect("param ");
  r.identifier();
  r.attributes();
  if (auto kind = r.take_word("kind")) {
    auto k = text::parse_param_kind(*kind);
    if (!k) r.fail("unknown parameter kind `" + *kind + "`");
    p.kind = *k;
  }
  p.type = r.take_type("type").value_or(Type{});
  p.buffer = r.take_buffer("buffer");
  r.finish_attributes();
  r.end();
  abi::KernelParam a;
  a.kind = p.kind;
  a.name = p.name;
  k_.abi.params.push_back(a);
}

void Parser::buffer(LineReader& r, std::vector<std::string>& views) {
  Buffer b;
  std::string space;
  r.read("buffer ", b.name, ": ", space);
  if (auto s = text::parse_space(space)) b.space = *s;
  else r.fail("unknown memory space `" + space + "`");
  r.expect(" ");
  b.dtype = r.type().dtype;
  r.expect(" [");
  while (!r.eat("]")) {
    if (!b.dims.empty()) r.expect(", ");
    if (r.peek() == '-' || (r.peek() >= '0' && r.peek() <= '9')) b.dims.push_back(Extent{r.integer(), ""});
    else b.dims.push_back(Extent{-1, r.identifier()});
  }
  if (r.eat(" at ")) b.smem_offset = r.integer();
  if (r.eat(" swizzle ")) b.swizzle = static_cast<int>(r.integer());
  if (r.eat(" ring ")) {
    r.read(IntegerField{b.slots}, " x ", IntegerField{b.slot_elems});
  }
  std::string view;
  if (r.eat(" (view of ")) {
    const std::size_t close = r.rest().find(')');
    if (close == std::string_view::npos) r.fail("expected `)`");
    view = std::string(r.rest().substr(0, close));
    r.expect(view);
    r.expect(")");
  }
  r.attributes();
  b.argument = static_cast<int>(r.take_int("argument", -1));
  b.align_bytes = static_cast<int>(r.take_int("align", 16));
  if (auto s = r.take_int("swizzle")) b.swizzle = static_cast<int>(*s);
  if (auto o = r.take_int("offset")) b.smem_offset = *o;
  if (auto e = r.take_int("slot_elems")) b.slot_elems = *e;
  if (auto s = r.take_int("slots")) b.slots = *s;
  b.fragment = r.take_list("fragment");
  b.strides = r.take_list("strides");
  for (std::int64_t p : r.take_list("points_to")) b.points_to.push_back(static_cast<int>(p));
  r.finish_attributes();
  r.end();
  k_.buffers.push_back(std::move(b));
  views.push_back(std::move(view));
}

void Parser::event(LineReader& r) {
  Event e;
  r.read("event ", e.name, "[", IntegerField{e.count}, "] at ", IntegerField{e.smem_offset}, ", arrivals ");
  if (r.eat("block")) e.arrivals_whole_block = true;
  else e.arrivals = r.integer();
  e.ready = r.eat(", ready");
  e.is_private = r.eat(", private");
  e.cluster_arrivals = r.eat(", from the cluster");
  r.attributes();
  e.source_name = r.take_string("source").value_or("");
  e.phase = r.take_word("phase").value_or(text::default_phase(e));
  e.first_trigger = r.take_position("first_trigger");
  if (e.arrivals_whole_block) e.arrivals = r.take_int("arrivals", 0);
  r.finish_attributes();
  r.end();
  k_.events.push_back(std::move(e));
}

void Parser::accumulator(LineReader& r) {
  Accumulator a;
  Type type;
  r.read("accumulator ", a.name, ": ", type, " ", IntegerField{a.rows}, " x ", IntegerField{a.n});
  a.dtype = type.dtype;
  a.warp = r.eat(" per warp");
  r.attributes();
  a.fill = r.take_expr("fill");
  a.registers = r.take_buffer("registers");
  a.array_dims = r.take_list("array");
  r.finish_attributes();
  r.end();
  k_.accumulators.push_back(std::move(a));
}

// ---------------------------------------------------------------- statement lists

// A nested body at `depth`: one braced Seq when a `{ ... }` group is all of
// it, else the statements at that depth.
StmtPtr Parser::body(int depth) {
  if (more_at(depth) && first_word(lines_[next_].text) == "{") {
    std::size_t close = next_ + 1;
    while (close < lines_.size() && lines_[close].depth > depth) ++close;
    const bool whole = close < lines_.size() && lines_[close].depth == depth && lines_[close].text == "}" &&
                       (close + 1 == lines_.size() || lines_[close + 1].depth < depth);
    if (whole) {
      LineReader r = reader(lines_[next_++]);
      return braced_seq(r, depth);
    }
  }
  return make_stmt(Seq{list(depth), false});
}

StmtList Parser::list(int depth) {
  StmtList out;
  while (next_ < lines_.size() && lines_[next_].depth >= depth) {
    const Line& l = lines_[next_];
    if (l.depth > depth) fail(l, "unexpected indentation");
    if (l.text == "}" || l.text == "else:") break;
    out.push_back(statement(depth));
  }
  return out;
}

const std::map<std::string_view, Parser::StatementReader>& Parser::statement_readers() {
  static const std::map<std::string_view, StatementReader> readers{
      {"{", &Parser::braced_seq},       {"seq", &Parser::seq},
      {"let", &Parser::let},            {"var", &Parser::let},
      {"eval", &Parser::eval},          {"for", &Parser::for_loop},
      {"if", &Parser::if_stmt},         {"while", &Parser::while_loop},
      {"break", &Parser::jump},         {"continue", &Parser::jump},      {"exit", &Parser::jump},
      {"#line", &Parser::line_mark},    {"//", &Parser::comment},
      {"trap", &Parser::trap},          {"region", &Parser::region},
      {"barrier", &Parser::barrier},    {"asm", &Parser::inline_asm},
      {"print", &Parser::print},        {"fence", &Parser::fence},
      {"fence.proxy.async", &Parser::fence},
      {"copy", &Parser::copy},          {"pad", &Parser::copy},
      {"alloc", &Parser::declare_buffer}, {"local", &Parser::declare_buffer},
      {"pointer", &Parser::declare_buffer}, {"event", &Parser::declare_event},
      {"init", &Parser::prologue},      {"arrive", &Parser::arrive},
      {"wait", &Parser::wait},          {"wait.counter", &Parser::wait_counter},
      {"tma.load", &Parser::tma_load},
      {"tma.store", &Parser::tma_store}, {"tma.store.wait", &Parser::tma_store},
      {"mma.fill", &Parser::mma_fill},  {"mma", &Parser::mma},
      {"wgmma", &Parser::mma},          {"mma.sync", &Parser::mma},
      {"mma.sync.gather", &Parser::mma}, {"mma.wait", &Parser::mma_wait},
      {"mma.store", &Parser::mma_store}, {"mma.load", &Parser::mma_load}, {"mma.complete", &Parser::mma_complete},
      {"mma.scale", &Parser::mma_scale}, {"setmaxnreg", &Parser::set_max_nreg},
      {"warpgroups", &Parser::warpgroups},
  };
  return readers;
}

StmtPtr Parser::statement(int depth) {
  const Line& l = lines_[next_++];
  LineReader r = reader(l);
  const auto& readers = statement_readers();
  auto it = readers.find(first_word(l.text));
  if (it != readers.end()) return (this->*(it->second))(r, depth);
  return assign(r, nullptr);
}

StmtPtr Parser::seq(LineReader& r, int depth) {
  r.expect("seq");
  const bool braces = r.eat(" braced");
  r.attributes();
  r.expect(":");
  StmtPtr s = finish(r, Seq{{}, braces});
  std::get<Seq>(s->node).body = list(depth + 1);
  return s;
}

StmtPtr Parser::braced_seq(LineReader& r, int depth) {
  r.expect("{");
  StmtPtr s = finish(r, Seq{{}, true});
  std::get<Seq>(s->node).body = list(depth + 1);
  if (!more_at(depth) || lines_[next_].text != "}") {
    if (next_ < lines_.size()) fail(lines_[next_], "expected `}`");
    throw Error("IR text: a `{` is not closed");
  }
  ++next_;
  return s;
}

// ---------------------------------------------------------------- control flow

StmtPtr Parser::let(LineReader& r, int) {
  Let n;
  n.is_const = r.eat("let ");
  if (!n.is_const) r.expect("var ");
  r.read(n.type, " ", n.name, " = ", n.init);
  r.attributes();
  if (r.take_flag("no_init")) n.init = nullptr;
  const std::string name = n.name;
  const Type type = n.type;
  StmtPtr s = finish(r, std::move(n));
  vars_[name] = type;
  return s;
}

StmtPtr Parser::assign(LineReader& r, ExprRef guard) {
  Assign n;
  n.guard = std::move(guard);
  r.read(n.target, " ");
  n.op = r.word();
  r.read(" ", n.value);
  return finish_line(r, std::move(n));
}

StmtPtr Parser::eval(LineReader& r, int) {
  Eval n;
  r.read("eval ", n.value);
  return finish_line(r, std::move(n));
}

StmtPtr Parser::for_loop(LineReader& r, int depth) {
  For n;
  r.expect("for ");
  n.unroll = r.eat("unrolled ");
  r.read(n.var, " in [", n.begin, ", ", n.end, ")");
  if (r.eat(" step ")) n.step = r.expr();
  r.attributes();
  r.expect(":");
  n.type = r.take_type("type").value_or(Type::i32());
  if (std::vector<std::string> names = r.take_names("pipeline"); !names.empty()) {
    if (names.size() != 3) r.fail("a pipeline mark names the shift, the pass and the slot: [shift, pass, slot]");
    n.pipeline = PipelineMark{names[0], names[1], names[2], static_cast<int>(r.take_int("pipeline_buffers", 0))};
  }
  vars_[n.var] = n.type;
  return with_body(r, std::move(n), depth);
}

StmtPtr Parser::if_stmt(LineReader& r, int depth) {
  r.expect("if ");
  ExprRef condition = r.expr();
  if (r.eat(": ")) return assign(r, condition);  // a guarded assignment
  r.attributes();
  r.expect(":");
  StmtPtr s = finish(r, If{condition, nullptr, nullptr});
  auto& n = std::get<If>(s->node);
  n.then_branch = body(depth + 1);
  if (more_at(depth) && lines_[next_].text == "else:") {
    ++next_;
    n.else_branch = body(depth + 1);
  }
  return s;
}

StmtPtr Parser::while_loop(LineReader& r, int depth) {
  r.expect("while ");
  ExprRef condition = r.expr();
  r.attributes();
  r.expect(":");
  return with_body(r, While{condition, nullptr}, depth);
}

StmtPtr Parser::jump(LineReader& r, int) {
  Jump n;
  n.exit_kernel = r.eat("exit");
  n.next_iteration = !n.exit_kernel && r.eat("continue");
  if (!n.next_iteration && !n.exit_kernel) r.expect("break");
  return finish_line(r, n);
}

StmtPtr Parser::line_mark(LineReader& r, int) {
  LineMark n;
  r.read("#line ", IntegerField{n.line});
  return finish_line(r, n);
}

StmtPtr Parser::comment(LineReader& r, int) {
  r.expect("// ");
  Comment n{std::string(r.rest())};
  return make_stmt(std::move(n));
}

StmtPtr Parser::trap(LineReader& r, int) {
  Trap n;
  r.read("trap unless ", n.condition);
  return finish_line(r, std::move(n));
}

StmtPtr Parser::region(LineReader& r, int depth) {
  Region n;
  r.expect("region ");
  const std::string mapping = r.identifier();
  if (auto m = text::parse_mapping(mapping)) n.mapping = *m;
  else r.fail("unknown mapping `" + mapping + "`");
  if (r.eat(" unit ")) n.unit = r.integer();
  r.attributes();
  r.expect(":");
  return with_body(r, std::move(n), depth);
}

StmtPtr Parser::warpgroups(LineReader& r, int depth) {
  WarpgroupRegion n;
  r.expect("warpgroups ");
  n.set = thread_set(r);
  n.mma = r.eat(" (mma)");
  r.expect(" when ");
  n.condition = r.expr();
  r.attributes();
  r.expect(":");
  n.whole_warpgroups = r.take_flag("whole");
  set_attributes(r, n.set);
  return with_body(r, std::move(n), depth);
}

}  // namespace text

std::vector<Kernel> parse_kernels(std::string_view text) { return text::Parser(text).kernels(); }

Kernel parse_kernel(std::string_view text) {
  std::vector<Kernel> kernels = parse_kernels(text);
  if (kernels.size() != 1)
    throw Error("IR text: expected one kernel, found " + std::to_string(kernels.size()));
  return std::move(kernels.front());
}

}  // namespace croq::ir
