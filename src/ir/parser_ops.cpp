// The IR text parser: the lines of tile-level operations (see parser.hpp;
// each reads what the printer's overload for its node writes).
#include "croq/error.hpp"
#include "ir/parser_impl.hpp"

namespace croq::ir::text {

ThreadSet Parser::thread_set(LineReader& r) {
  ThreadSet set;
  if (r.eat("block")) return set;
  std::int64_t last = 0;
  r.read("threads ", IntegerField{set.first}, "..", IntegerField{last}, " barrier ", IntegerField{set.barrier_id});
  set.threads = last - set.first + 1;
  return set;
}

void Parser::set_attributes(LineReader& r, ThreadSet& set) {
  set.threads = r.take_int("threads", set.threads);
  set.first = r.take_int("first", set.first);
  set.barrier_id = static_cast<int>(r.take_int("barrier_id", set.barrier_id));
  set.tid = r.take_expr("tid");
  set.count = r.take_expr("count");
}

Tile Parser::tile(LineReader& r) {
  Tile t;
  t.buffer = r.buffer(-1);
  if (r.eat("{")) {
    t.slot = r.expr();
    r.expect("}");
  }
  r.read(" at (", ExprListField{t.origin, ')'}, ") [");
  bool limited = false;
  std::vector<ExprRef> limits;
  while (!r.eat("]")) {
    if (!t.extent.empty()) r.expect(", ");
    t.extent.push_back(r.integer());
    limits.push_back(r.eat(" below ") ? r.expr() : nullptr);
    limited = limited || limits.back();
  }
  if (limited) t.limit = std::move(limits);
  t.exact = !r.eat(" guarded");
  // Of buffers sharing a name (views), the one of this rank.
  const Buffer& b = k_.buffers[static_cast<std::size_t>(t.buffer)];
  if (b.dims.size() != t.origin.size())
    if (int other = r.buffer_named(b.name, static_cast<int>(t.origin.size())); other >= 0) t.buffer = other;
  return t;
}

StmtPtr Parser::barrier(LineReader& r, int) {
  Barrier n;
  using Scope = Barrier::Scope;
  r.expect("barrier ");
  if (r.eat("warp")) {
    n.scope = Scope::warp;
  } else if (r.eat("active lanes")) {
    n.scope = Scope::lanes;
  } else if (r.eat("grid counting in ")) {
    n.scope = Scope::grid;
    n.counter = r.buffer(-1);
  } else if (r.eat("cluster")) {
    n.scope = Scope::cluster;
  } else if (r.eat("each warpgroup (ids from ")) {
    n.scope = Scope::warpgroup;
    n.set.barrier_id = static_cast<int>(r.integer());
    r.expect(")");
  } else {
    n.set = thread_set(r);
    if (r.eat(" if written ")) n.if_written = r.eat("shared") ? -1 : r.buffer(-1);
  }
  r.attributes();
  set_attributes(r, n.set);
  if (n.scope != Scope::grid) n.counter = r.take_buffer("counter");
  return finish(r, std::move(n));
}

StmtPtr Parser::inline_asm(LineReader& r, int) {
  InlineAsm n;
  r.expect("asm");
  n.is_volatile = r.eat(" volatile");
  r.expect(" ");
  n.text = r.quoted();
  for (auto* list : {&n.outputs, &n.inputs}) {
    r.expect(" :");
    if (r.peek() != ' ' || r.peek(1) == ':' || r.peek(1) == '{') continue;
    do {
      r.expect(" ");
      const std::string_view rest = r.rest();
      const std::size_t paren = rest.find('(');
      if (paren == std::string_view::npos) r.fail("expected `constraint(value)`");
      InlineAsm::Operand o;
      o.constraint = std::string(rest.substr(0, paren));
      r.expect(o.constraint);
      r.expect("(");
      o.value = r.expr();
      r.expect(")");
      list->push_back(std::move(o));
    } while (r.eat(","));
  }
  n.memory = r.eat(" : memory");
  return finish_line(r, std::move(n));
}

StmtPtr Parser::print(LineReader& r, int) {
  Print n;
  r.expect("print");
  while (r.peek() == ' ' && r.peek(1) != '{' && !r.looking_at(" if ")) {
    r.expect(" ");
    Print::Part part;
    if (r.peek() == '"') part.text = r.quoted();
    else part.value = r.expr();
    n.parts.push_back(std::move(part));
  }
  if (r.eat(" if ")) n.guard = r.expr();
  return finish_line(r, std::move(n));
}

StmtPtr Parser::fence(LineReader& r, int) {
  if (r.eat("fence.proxy.async")) {
    return finish_line(r, FenceProxyAsync{});
  }
  r.expect("fence ");
  Fence n;
  n.device = r.eat("device");
  if (!n.device) r.expect("block");
  return finish_line(r, n);
}

StmtPtr Parser::copy(LineReader& r, int) {
  CopyTiles n;
  const bool pad = r.eat("pad ");
  if (!pad) r.expect("copy ");
  n.src = tile(r);
  r.expect(" -> ");
  n.dst = tile(r);
  if (r.eat(" perm"))
    while (r.peek() == ' ' && r.peek(1) >= '0' && r.peek(1) <= '9') {  // " by ..." follows the last
      r.eat(" ");
      n.perm.push_back(r.integer());
    }
  if (pad) {
    Padding p;
    r.expect(" low ");
    p.low = r.int_list();
    r.expect(" high ");
    p.high = r.int_list();
    r.expect(" mid ");
    p.mid = r.int_list();
    r.read(" value ", p.value);
    n.pad = std::move(p);
  }
  r.expect(" by ");
  n.cooperative = !r.eat("each thread");
  if (n.cooperative) n.set = thread_set(r);
  n.zfill = r.eat(" zfill");
  r.read(" vector ", IntegerField{n.vector});
  r.attributes();
  n.src.origin_multiple = r.take_list("src_multiple");
  n.dst.origin_multiple = r.take_list("dst_multiple");
  set_attributes(r, n.set);
  return finish(r, std::move(n));
}

StmtPtr Parser::declare_buffer(LineReader& r, int) {
  if (r.eat("alloc ")) {
    AllocShared n{r.buffer(-1)};
    return finish_line(r, n);
  }
  if (r.eat("local ")) {
    DeclareLocal n{r.buffer(-1)};
    return finish_line(r, n);
  }
  DeclarePointer n;
  r.read("pointer ", BufferField{n.buffer}, " = ", n.address);
  return finish_line(r, std::move(n));
}

StmtPtr Parser::declare_event(LineReader& r, int) {
  DeclareEvent n;
  r.read("event ", EventField{n.event});
  return finish_line(r, n);
}

StmtPtr Parser::prologue(LineReader& r, int) {
  BarrierPrologue n;
  r.expect("init events");
  if (!r.eat(": none"))
    while (r.peek() == ' ' && r.peek(1) != '{') {
      r.expect(" ");
      n.init.push_back(r.event());
    }
  r.attributes();
  for (const std::string& name : r.take_names("private")) {
    LineReader v(name, 0, 0, k_, vars_);
    n.private_events.push_back(v.event());
  }
  n.hopper = r.take_flag("hopper");
  return finish(r, std::move(n));
}

StmtPtr Parser::arrive(LineReader& r, int) {
  Arrive n;
  r.read("arrive ", EventField{n.event}, "[", n.index, "] by ");
  n.set = thread_set(r);
  n.per_warp = r.eat(" per warp");
  n.ends_loop_body = r.eat(" (ends loop body)");
  n.cluster = r.eat(" in every block of the cluster");
  r.attributes();
  n.where = r.take_position("where");
  set_attributes(r, n.set);
  return finish(r, std::move(n));
}

StmtPtr Parser::wait(LineReader& r, int) {
  WaitEvent n;
  r.read("wait ", EventField{n.event}, "[", n.index, "]");
  if (r.eat(" parity ")) n.parity = r.expr();
  return finish_line(r, std::move(n));
}

StmtPtr Parser::wait_counter(LineReader& r, int) {
  WaitCounter n;
  r.read("wait.counter ", n.counter, " above ", n.above);
  r.attributes();
  n.event = r.take_string("event").value_or("");
  return finish(r, std::move(n));
}

StmtPtr Parser::tma_load(LineReader& r, int) {
  TmaLoad n;
  r.read("tma.load ", ParamField{n.map}, " (", ExprListField{n.coords, ')'}, ") -> ", n.destination, " completes ",
         EventField{n.event}, "[", n.event_index, "] ", IntegerField{n.bytes}, " bytes");
  if (r.eat(" (multicast in ")) {
    TmaLoad::Multicast m;
    m.slices = static_cast<int>(r.integer());
    r.read(" slices of ", IntegerField{m.slice_rows}, " rows, ", IntegerField{m.slice_elements}, " elements)");
    n.multicast = m;
  }
  n.arrive = r.eat(" (arrives)");
  for (const char* priority : {"evict_first", "evict_last", "evict_normal"})
    if (r.eat(std::string(" (L2 ") + priority + ")")) n.l2_eviction = priority;
  r.attributes();
  n.leader = r.take_expr("leader");
  if (n.multicast) {
    n.multicast->rank = r.take_expr("rank");
    n.multicast->mask = r.take_expr("mask");
  }
  return finish(r, std::move(n));
}

StmtPtr Parser::tma_store(LineReader& r, int) {
  if (r.eat("tma.store.wait ")) {
    BulkStoreWait n;
    n.read_only = r.eat("read");
    if (!n.read_only) r.expect("complete");
    return finish_line(r, n);
  }
  TmaStore n;
  r.read("tma.store ", n.source, " -> ", ParamField{n.map}, " (", ExprListField{n.coords, ')'}, ")");
  n.wait = !r.eat(" (committed, waited before the tile's next write)");
  r.attributes();
  n.leader = r.take_expr("leader");
  return finish(r, std::move(n));
}

StmtPtr Parser::mma_fill(LineReader& r, int) {
  MmaFill n;
  r.read("mma.fill ", AccumulatorField{n.accumulator}, " ");
  n.op = r.word();
  r.expect(" ");
  ExprRef value = r.expr();
  r.attributes();
  if (r.take_flag("declare")) {  // `= fill`: the accumulator's declaration
    Accumulator& acc = k_.accumulators[static_cast<std::size_t>(n.accumulator)];
    if (n.op != "=") r.fail("a declaring mma.fill writes `=`");
    if (!acc.fill) acc.fill = value;
    n.op.clear();
    n.value = r.take_expr("value");
  } else {
    n.value = value;
  }
  n.index = r.take_expr("index");
  return finish(r, std::move(n));
}

void Parser::operand_attributes(LineReader& r, MmaOperand& op, const std::string& side) {
  op.address = r.take_expr(side + "address");
  op.pitch = r.take_int(side + "pitch", 0);
  if (auto space = r.take_word(side + "space")) {
    auto s = parse_space(*space);
    if (!s) r.fail("unknown memory space `" + *space + "`");
    op.space = *s;
  }
  op.leading = r.take_expr(side + "leading");
  op.rows = r.take_expr(side + "rows");
  op.cols = r.take_expr(side + "cols");
  op.where = r.take_position(side + "where");
  op.tile.origin_multiple = r.take_list(side + "multiple");
}

StmtPtr Parser::mma(LineReader& r, int) {
  Mma n;
  const std::string instruction = r.word();
  if (auto i = parse_instruction(instruction)) n.instruction = *i;
  else r.fail("unknown mma instruction `" + instruction + "`");
  r.read(" ", AccumulatorField{n.accumulator}, " += ");
  if (r.eat("registers ")) {
    n.a_fragment = r.buffer(-1);
  } else {
    n.a.tile = tile(r);
    r.read(" swiz ", IntegerField{n.a.swizzle});
    n.a_m_major = r.eat(" (k-by-m)");
  }
  r.expect(" * ");
  n.b.tile = tile(r);
  n.b_n_major = r.eat(" (k-by-n)");
  r.read(" swiz ", IntegerField{n.b.swizzle}, " k ", IntegerField{n.k});
  if (r.eat(" sparse meta ")) n.metadata = r.expr();
  r.attributes();
  n.where = r.take_position("where");
  if (auto t = r.take_type("input")) n.input = t->dtype;
  if (auto t = r.take_type("input_b")) n.input_b = t->dtype;
  n.index = r.take_expr("index");
  n.metadata_pitch = r.take_int("metadata_pitch", 0);
  operand_attributes(r, n.a, "a_");
  operand_attributes(r, n.b, "b_");
  return finish(r, std::move(n));
}

StmtPtr Parser::mma_wait(LineReader& r, int) {
  MmaWait n;
  r.read("mma.wait pending ", IntegerField{n.pending});
  r.attributes();
  n.note = r.take_string("note").value_or("");
  for (const std::string& name : r.take_names("fence")) {
    LineReader v(name, 0, 0, k_, vars_);
    n.fence.push_back(v.buffer(-1));
  }
  n.pinned = r.take_flag("pinned");
  return finish(r, std::move(n));
}

namespace {

// The attributes of an mma.store's destination or an mma.load's source
// tile: leading, space (default shared), rows, cols.
template <typename Node>
void take_tile_attributes(LineReader& r, Node& n) {
  n.leading = r.take_expr("leading");
  if (auto space = r.take_word("space")) {
    auto s = parse_space(*space);
    if (!s) r.fail("unknown memory space `" + *space + "`");
    n.space = *s;
  }
  n.rows = r.take_expr("rows");
  n.cols = r.take_expr("cols");
}

}  // namespace

StmtPtr Parser::mma_store(LineReader& r, int) {
  MmaStore n;
  r.read("mma.store ", AccumulatorField{n.accumulator}, " -> ", n.destination);
  r.attributes();
  take_tile_attributes(r, n);
  n.index = r.take_expr("index");
  n.transpose = r.take_flag("transpose");
  n.swizzle = static_cast<int>(r.take_int("swizzle", 0));
  return finish(r, std::move(n));
}

StmtPtr Parser::mma_load(LineReader& r, int) {
  MmaLoad n;
  r.read("mma.load ", AccumulatorField{n.accumulator}, " <- ", n.source);
  r.attributes();
  take_tile_attributes(r, n);
  return finish(r, std::move(n));
}

StmtPtr Parser::mma_complete(LineReader& r, int) {
  MmaCommit n;
  r.expect("mma.complete");
  if (r.eat(" of")) {
    while (r.peek() == ' ' && r.peek(1) != '{') {
      if (r.eat(" readers of ")) {
        n.shared.push_back(r.buffer(-1));
      } else {
        if (!n.shared.empty()) r.fail("register buffers come before `readers of`");
        r.expect(" ");
        n.registers.push_back(r.buffer(-1));
      }
    }
  }
  return finish_line(r, std::move(n));
}

StmtPtr Parser::mma_scale(LineReader& r, int) {
  MmaScale n;
  r.read("mma.scale ", AccumulatorField{n.accumulator}, " += ", AccumulatorField{n.partial}, " * ", n.scale_a,
         "[row * ", n.scale_a_stride, "] (rows < ", n.scale_a_rows, ") * ", n.scale_b);
  return finish_line(r, std::move(n));
}

StmtPtr Parser::set_max_nreg(LineReader& r, int) {
  SetMaxNReg n;
  r.expect("setmaxnreg ");
  n.increase = r.eat("inc ");
  if (!n.increase) r.expect("dec ");
  r.read(IntegerField{n.registers});
  return finish_line(r, n);
}

}  // namespace croq::ir::text
