// The IR's text form (see printer.hpp); parser.cpp reads it back.
#include "ir/printer.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "ir/text.hpp"

namespace croq::ir {

namespace {

using text::position;
using text::quote;

// The `{key=value, flag}` block of a line of the full form.
class Attrs {
 public:
  void add(const std::string& key, const std::string& value) { items_.push_back(key + "=" + value); }
  void flag(const std::string& key, bool on) {
    if (on) items_.push_back(key);
  }
  void number(const std::string& key, std::int64_t value, std::int64_t fallback) {
    if (value != fallback) add(key, std::to_string(value));
  }
  void pos(const std::string& key, const SourcePos& p) {
    if (!text::is_default(p)) add(key, position(p));
  }
  void list(const std::string& key, const std::vector<std::int64_t>& values) {
    if (values.empty()) return;
    std::string t = "[";
    for (std::size_t i = 0; i < values.size(); ++i) t += (i ? ", " : "") + std::to_string(values[i]);
    add(key, t + "]");
  }
  std::string text() const {
    if (items_.empty()) return "";
    std::string t = " {";
    for (std::size_t i = 0; i < items_.size(); ++i) t += (i ? ", " : "") + items_[i];
    return t + "}";
  }

 private:
  std::vector<std::string> items_;
};

class Printer {
 public:
  Printer(const Kernel& k, IrDetail detail) : k_(k), full_(detail == IrDetail::full) {
    for (const Buffer& b : k.buffers) ++name_uses_[b.name];
  }

  std::string run();

 private:
  // ---- expressions

  std::string expr(const ExprRef& e) {
    if (!e) return "-";
    std::string s = bare_expr(*e);
    if (full_ && e->type != text::natural_type(*e, k_, vars_)) s += ":" + type(e->type);
    return s;
  }

  std::string exprs(const std::vector<ExprRef>& list) {
    std::string s;
    for (std::size_t i = 0; i < list.size(); ++i) s += (i ? ", " : "") + expr(list[i]);
    return s;
  }

  std::string bare_expr(const Expr& e) {
    switch (e.kind) {
      case ExprKind::int_const: return std::to_string(e.value);
      case ExprKind::float_literal:
        // Digits alone would read back as an integer.
        if (full_ && e.text.find_first_not_of("0123456789") == std::string::npos) return "float(" + e.text + ")";
        return e.text;
      case ExprKind::var: case ExprKind::special: return e.text;
      case ExprKind::unary: return "(" + e.op + expr(e.operands[0]) + ")";
      case ExprKind::binary: return "(" + expr(e.operands[0]) + " " + e.op + " " + expr(e.operands[1]) + ")";
      case ExprKind::select:
        return "(" + expr(e.operands[0]) + " ? " + expr(e.operands[1]) + " : " + expr(e.operands[2]) + ")";
      case ExprKind::element: {
        std::string s = buffer(e.buffer);
        if (e.operands[0]) s += "{" + expr(e.operands[0]) + "}";
        return s + "[" + exprs({e.operands.begin() + 1, e.operands.end()}) + "]";
      }
      case ExprKind::address_of: return "&" + expr(e.operands[0]);
      case ExprKind::typed_zero: return std::string(dtype_name(e.type.dtype)) + "(" + e.text + ")";
      case ExprKind::zero_like: return "zero_like(" + expr(e.operands[0]) + ")";
      case ExprKind::convert: return "convert<" + type(e.type) + ">(" + expr(e.operands[0]) + ")";
      case ExprKind::math: case ExprKind::atomic:
        return std::string(e.kind == ExprKind::atomic ? "atomic_" : "") + e.op + "<" + type(e.type) + ">(" +
               exprs(e.operands) + ")";
      case ExprKind::by_index_width: return "index_width(" + exprs(e.operands) + ")";
      case ExprKind::device_call: {
        const auto split = e.operands.begin() + std::min<std::int64_t>(e.value, std::ssize(e.operands));
        return "device_call<" + (e.op == "void" ? std::string("void") : type(e.type)) + "> " + e.text + "<" +
               exprs({e.operands.begin(), split}) + ">(" + exprs({split, e.operands.end()}) + ")";
      }
    }
    return "?";
  }

  std::string type(const Type& t) const { return text::type_name(t, full_); }

  // A buffer by name; in the full form `name#index` when several share the name.
  std::string buffer(int id) {
    const std::string& name = k_.buffers[static_cast<std::size_t>(id)].name;
    return full_ && name_uses_[name] > 1 ? name + "#" + std::to_string(id) : name;
  }

  std::string event(int id) const { return k_.events[static_cast<std::size_t>(id)].name; }
  std::string accumulator(int id) const { return k_.accumulators[static_cast<std::size_t>(id)].name; }

  std::string tile(const Tile& t) {
    std::string s = buffer(t.buffer);
    if (t.slot) s += "{" + expr(t.slot) + "}";
    s += " at (" + exprs(t.origin) + ") [";
    for (std::size_t d = 0; d < t.extent.size(); ++d) {
      s += (d ? ", " : "") + std::to_string(t.extent[d]);
      if (d < t.limit.size() && t.limit[d]) s += " below " + expr(t.limit[d]);
    }
    return s + "]" + (t.exact ? "" : " guarded");
  }

  static std::string threads(const ThreadSet& set) {
    if (set.threads == 0) return "block";
    return "threads " + std::to_string(set.first) + ".." + std::to_string(set.first + set.threads - 1) + " barrier " +
           std::to_string(set.barrier_id);
  }

  // What a thread set's text leaves out: with `printed`, the numbers that
  // "block" drops; without, all of them; and its index and count.
  void set_attrs(Attrs& a, const ThreadSet& set, bool printed, bool id_printed = false) {
    if (!printed) a.number("threads", set.threads, 0);
    if (!printed || set.threads == 0) a.number("first", set.first, 0);
    if (!id_printed && (!printed || set.threads == 0)) a.number("barrier_id", set.barrier_id, 0);
    expr_attr(a, "tid", set.tid);
    expr_attr(a, "count", set.count);
  }

  void expr_attr(Attrs& a, const std::string& key, const ExprRef& e) {
    if (e) a.add(key, expr(e));
  }

  // ---- lines and bodies

  void line(std::string s, const Attrs& a = {}, bool opens_block = false) {
    if (full_) {
      if (opens_block) s.insert(s.size() - 1, a.text());
      else s += a.text();
    }
    out_ << std::string(static_cast<std::size_t>(depth_) * 2, ' ') << s << "\n";
  }

  Attrs attrs_of(const Stmt& s) {
    Attrs a;
    a.pos("pos", s.where);
    return a;
  }

  // A statement's nested body (a Seq), one level deeper. In the full form a
  // body that is one braced Seq and nothing else says so (`seq braced:`),
  // since a braced body prints the same braces.
  void body(const StmtPtr& s) {
    ++depth_;
    if (s) body_seq(*s);
    --depth_;
  }

  void body_seq(const Stmt& s) {
    const auto* seq = std::get_if<Seq>(&s.node);
    if (!seq) return stmt(s);
    if (seq->braces) return braced(s, *seq);
    const bool one_braced = seq->body.size() == 1 && std::holds_alternative<Seq>(seq->body[0]->node) &&
                            std::get<Seq>(seq->body[0]->node).braces;
    if (full_ && one_braced) return nested_seq(*seq->body[0], std::get<Seq>(seq->body[0]->node), "seq braced:");
    for (const auto& c : seq->body) stmt(*c);
  }

  void braced(const Stmt& s, const Seq& seq) {
    line("{", attrs_of(s));
    ++depth_;
    for (const auto& c : seq.body) stmt(*c);
    --depth_;
    line("}");
  }

  void nested_seq(const Stmt& s, const Seq& seq, const char* head) {
    line(head, attrs_of(s), true);
    ++depth_;
    for (const auto& c : seq.body) stmt(*c);
    --depth_;
  }

  void stmt(const Stmt& s) {
    std::visit([&](const auto& n) { node(s, n); }, s.node);
  }

  // ---- statements, one overload each

  void node(const Stmt& s, const Seq& n) {
    if (n.braces) return braced(s, n);
    if (full_) return nested_seq(s, n, "seq:");
    for (const auto& c : n.body) stmt(*c);
  }
  void node(const Stmt& s, const Let& n) {
    Attrs a = attrs_of(s);
    a.flag("no_init", !n.init);
    line(std::string(n.is_const ? "let " : "var ") + type(n.type) + " " + n.name + " = " + (n.init ? expr(n.init) : "0"), a);
    vars_[n.name] = n.type;
  }
  void node(const Stmt& s, const Assign& n) {
    line((n.guard ? "if " + expr(n.guard) + ": " : std::string()) + expr(n.target) + " " + n.op + " " + expr(n.value),
         attrs_of(s));
  }
  void node(const Stmt& s, const Eval& n) { line("eval " + expr(n.value), attrs_of(s)); }
  void node(const Stmt& s, const For& n) {
    Attrs a = attrs_of(s);
    if (n.type != Type::i32()) a.add("type", type(n.type));
    if (n.pipeline) {
      a.add("pipeline", "[" + n.pipeline->shift + ", " + n.pipeline->pass + ", " + n.pipeline->slot + "]");
      a.add("pipeline_buffers", std::to_string(n.pipeline->buffers_before));
    }
    line(std::string("for ") + (n.unroll ? "unrolled " : "") + n.var + " in [" + expr(n.begin) + ", " + expr(n.end) + ")" +
             (n.step ? " step " + expr(n.step) : "") + ":",
         a, true);
    vars_[n.var] = n.type;
    body(n.body);
  }
  void node(const Stmt& s, const If& n) {
    line("if " + expr(n.condition) + ":", attrs_of(s), true);
    body(n.then_branch);
    if (n.else_branch) {
      line("else:");
      body(n.else_branch);
    }
  }
  void node(const Stmt& s, const While& n) {
    line("while " + expr(n.condition) + ":", attrs_of(s), true);
    body(n.body);
  }
  void node(const Stmt& s, const Jump& n) { line(n.exit_kernel ? "exit" : n.next_iteration ? "continue" : "break", attrs_of(s)); }
  void node(const Stmt& s, const LineMark& n) { line("#line " + std::to_string(n.line), attrs_of(s)); }
  void node(const Stmt&, const Comment& n) { line("// " + n.text); }
  void node(const Stmt& s, const Trap& n) { line("trap unless " + expr(n.condition), attrs_of(s)); }
  void node(const Stmt& s, const Region& n) {
    line(std::string("region ") + text::mapping_name(n.mapping) + (n.unit > 1 ? " unit " + std::to_string(n.unit) : "") +
             ":",
         attrs_of(s), true);
    body(n.body);
  }
  // A barrier asked for before a read (Barrier::if_written): " if written NAME" or " if written shared".
  std::string if_written(int id) {
    if (id == Barrier::kAlways) return "";
    return " if written " + (id < 0 ? std::string("shared") : buffer(id));
  }
  void node(const Stmt& s, const Barrier& n) {
    Attrs a = attrs_of(s);
    using Scope = Barrier::Scope;
    set_attrs(a, n.set, n.scope == Scope::set, n.scope == Scope::warpgroup);
    if (n.scope != Scope::grid && n.counter != -1) a.add("counter", buffer(n.counter));
    line(n.scope == Scope::warp        ? std::string("barrier warp")
         : n.scope == Scope::lanes     ? std::string("barrier active lanes")
         : n.scope == Scope::grid      ? "barrier grid counting in " + buffer(n.counter)
         : n.scope == Scope::warpgroup ? "barrier each warpgroup (ids from " + std::to_string(n.set.barrier_id) + ")"
         : n.scope == Scope::cluster   ? std::string("barrier cluster")
                                       : "barrier " + threads(n.set) + if_written(n.if_written),
         a);
  }
  void node(const Stmt& s, const InlineAsm& n) {
    std::string t = std::string("asm") + (n.is_volatile ? " volatile" : "") + " " + quote(n.text);
    for (const auto* list : {&n.outputs, &n.inputs}) {
      t += " :";
      for (std::size_t i = 0; i < list->size(); ++i)
        t += (i ? ", " : " ") + (*list)[i].constraint + "(" + expr((*list)[i].value) + ")";
    }
    line(t + (n.memory ? " : memory" : ""), attrs_of(s));
  }
  void node(const Stmt& s, const Print& n) {
    std::string t = "print";
    for (const Print::Part& part : n.parts) t += " " + (part.value ? expr(part.value) : quote(part.text));
    line(t + (n.guard ? " if " + expr(n.guard) : ""), attrs_of(s));
  }
  void node(const Stmt& s, const Fence& n) { line(n.device ? "fence device" : "fence block", attrs_of(s)); }
  void node(const Stmt& s, const CopyTiles& n);
  void node(const Stmt& s, const AllocShared& n) { line("alloc " + buffer(n.buffer), attrs_of(s)); }
  void node(const Stmt& s, const DeclareLocal& n) { line("local " + buffer(n.buffer), attrs_of(s)); }
  void node(const Stmt& s, const DeclarePointer& n) {
    line("pointer " + buffer(n.buffer) + " = " + expr(n.address), attrs_of(s));
  }
  void node(const Stmt& s, const DeclareEvent& n) { line("event " + event(n.event), attrs_of(s)); }
  void node(const Stmt& s, const BarrierPrologue& n) {
    Attrs a = attrs_of(s);
    std::string names, privates;
    for (int e : n.init) names += " " + event(e);
    for (int e : n.private_events) privates += (privates.empty() ? "" : ", ") + event(e);
    if (!n.private_events.empty()) a.add("private", "[" + privates + "]");
    a.flag("hopper", n.hopper);
    line(n.init.empty() ? std::string("init events: none") : "init events" + names, a);
  }
  void node(const Stmt& s, const Arrive& n) {
    Attrs a = attrs_of(s);
    a.pos("where", n.where);
    set_attrs(a, n.set, true);
    line("arrive " + event(n.event) + "[" + expr(n.index) + "] by " + threads(n.set) + (n.per_warp ? " per warp" : "") +
             (n.ends_loop_body ? " (ends loop body)" : "") + (n.cluster ? " in every block of the cluster" : ""),
         a);
  }
  void node(const Stmt& s, const WaitEvent& n) {
    line("wait " + event(n.event) + "[" + expr(n.index) + "]" + (n.parity ? " parity " + expr(n.parity) : std::string()),
         attrs_of(s));
  }
  void node(const Stmt& s, const WaitCounter& n) {
    Attrs a = attrs_of(s);
    a.add("event", quote(n.event));
    line("wait.counter " + expr(n.counter) + " above " + expr(n.above), a);
  }
  void node(const Stmt& s, const TmaLoad& n) {
    Attrs a = attrs_of(s);
    expr_attr(a, "leader", n.leader);
    std::string multicast;
    if (n.multicast) {  // rank and mask null with slices 0
      expr_attr(a, "rank", n.multicast->rank);
      expr_attr(a, "mask", n.multicast->mask);
      multicast = " (multicast in " + std::to_string(n.multicast->slices) + " slices of " +
                  std::to_string(n.multicast->slice_rows) + " rows, " + std::to_string(n.multicast->slice_elements) +
                  " elements)";
    }
    line("tma.load " + k_.params[static_cast<std::size_t>(n.map)].name + " (" + exprs(n.coords) + ") -> " +
             expr(n.destination) + " completes " + event(n.event) + "[" + expr(n.event_index) + "] " +
             std::to_string(n.bytes) + " bytes" + multicast + (n.arrive ? " (arrives)" : "") +
             (n.l2_eviction.empty() ? "" : " (L2 " + n.l2_eviction + ")"),
         a);
  }
  void node(const Stmt& s, const TmaStore& n) {
    Attrs a = attrs_of(s);
    expr_attr(a, "leader", n.leader);
    line("tma.store " + expr(n.source) + " -> " + k_.params[static_cast<std::size_t>(n.map)].name + " (" +
             exprs(n.coords) + ")" + (n.wait ? "" : " (committed, waited before the tile's next write)"),
         a);
  }
  void node(const Stmt& s, const BulkStoreWait& n) {
    line(n.read_only ? "tma.store.wait read" : "tma.store.wait complete", attrs_of(s));
  }
  void node(const Stmt& s, const FenceProxyAsync&) { line("fence.proxy.async", attrs_of(s)); }
  void node(const Stmt& s, const MmaFill& n) {
    Attrs a = attrs_of(s);
    a.flag("declare", n.op.empty());
    if (n.op.empty()) expr_attr(a, "value", n.value);
    expr_attr(a, "index", n.index);
    const Accumulator& acc = k_.accumulators[static_cast<std::size_t>(n.accumulator)];
    if (n.op.empty()) line("mma.fill " + acc.name + " = " + expr(acc.fill), a);
    else line("mma.fill " + acc.name + " " + n.op + " " + expr(n.value), a);
  }
  void node(const Stmt& s, const Mma& n);
  void node(const Stmt& s, const MmaWait& n) {
    Attrs a = attrs_of(s);
    if (!n.note.empty()) a.add("note", quote(n.note));
    std::string fence;
    for (int b : n.fence) fence += (fence.empty() ? "" : ", ") + buffer(b);
    if (!n.fence.empty()) a.add("fence", "[" + fence + "]");
    a.flag("pinned", n.pinned);
    line("mma.wait pending " + std::to_string(n.pending), a);
  }
  // An mma.store's destination or an mma.load's source tile (the parser's take_tile_attributes).
  template <typename Node>
  void tile_attrs(Attrs& a, const Node& n) {
    expr_attr(a, "leading", n.leading);
    if (n.space != Space::shared) a.add("space", text::space_name(n.space));
    expr_attr(a, "rows", n.rows);
    expr_attr(a, "cols", n.cols);
  }
  void node(const Stmt& s, const MmaStore& n) {
    Attrs a = attrs_of(s);
    tile_attrs(a, n);
    expr_attr(a, "index", n.index);
    a.flag("transpose", n.transpose);
    if (n.swizzle) a.add("swizzle", std::to_string(n.swizzle));
    line("mma.store " + accumulator(n.accumulator) + " -> " + expr(n.destination), a);
  }
  void node(const Stmt& s, const MmaLoad& n) {
    Attrs a = attrs_of(s);
    tile_attrs(a, n);
    line("mma.load " + accumulator(n.accumulator) + " <- " + expr(n.source), a);
  }
  void node(const Stmt& s, const MmaCommit& n) {
    std::string names;
    for (int b : n.registers) names += " " + buffer(b);
    for (int b : n.shared) names += " readers of " + buffer(b);
    line("mma.complete" + (names.empty() ? std::string() : " of" + names), attrs_of(s));
  }
  void node(const Stmt& s, const MmaScale& n) {
    line("mma.scale " + accumulator(n.accumulator) + " += " + accumulator(n.partial) + " * " + expr(n.scale_a) + "[row * " +
             expr(n.scale_a_stride) + "] (rows < " + expr(n.scale_a_rows) + ") * " + expr(n.scale_b),
         attrs_of(s));
  }
  void node(const Stmt& s, const SetMaxNReg& n) {
    line(std::string("setmaxnreg ") + (n.increase ? "inc " : "dec ") + std::to_string(n.registers), attrs_of(s));
  }
  void node(const Stmt& s, const WarpgroupRegion& n) {
    Attrs a = attrs_of(s);
    a.flag("whole", n.whole_warpgroups);
    set_attrs(a, n.set, true);
    line("warpgroups " + threads(n.set) + (n.mma ? " (mma)" : "") + " when " + expr(n.condition) + ":", a, true);
    body(n.body);
  }

  // ---- the kernel's header

  void header();
  void declarations();

  const Kernel& k_;
  const bool full_;
  std::map<std::string, int> name_uses_;  // buffers per name
  text::VarTypes vars_;
  std::ostringstream out_;
  int depth_ = 1;
};

void Printer::node(const Stmt& s, const CopyTiles& n) {
  Attrs a = attrs_of(s);
  a.list("src_multiple", n.src.origin_multiple);
  a.list("dst_multiple", n.dst.origin_multiple);
  set_attrs(a, n.set, n.cooperative);
  std::string t = std::string(n.pad ? "pad " : "copy ") + tile(n.src) + " -> " + tile(n.dst);
  if (!n.perm.empty()) {
    t += " perm";
    for (auto p : n.perm) t += " " + std::to_string(p);
  }
  if (n.pad) {
    auto list = [](const std::vector<std::int64_t>& v) {
      std::string l = "[";
      for (std::size_t i = 0; i < v.size(); ++i) l += (i ? ", " : "") + std::to_string(v[i]);
      return l + "]";
    };
    t += " low " + list(n.pad->low) + " high " + list(n.pad->high) + " mid " + list(n.pad->mid) + " value " +
         expr(n.pad->value);
  }
  t += n.cooperative ? " by " + threads(n.set) : " by each thread";
  if (n.zfill) t += " zfill";
  line(t + " vector " + std::to_string(n.vector), a);
}

void Printer::node(const Stmt& s, const Mma& n) {
  Attrs a = attrs_of(s);
  a.pos("where", n.where);
  if (n.input != DType::f16) a.add("input", std::string(dtype_name(n.input)));
  if (n.input_b != DType::f16) a.add("input_b", std::string(dtype_name(n.input_b)));
  expr_attr(a, "index", n.index);
  a.number("metadata_pitch", n.metadata_pitch, 0);
  for (const auto& [side, op] : {std::pair{"a_", &n.a}, std::pair{"b_", &n.b}}) {
    const std::string p = side;
    expr_attr(a, p + "address", op->address);
    a.number(p + "pitch", op->pitch, 0);
    if (op->space != Space::shared) a.add(p + "space", text::space_name(op->space));
    expr_attr(a, p + "leading", op->leading);
    expr_attr(a, p + "rows", op->rows);
    expr_attr(a, p + "cols", op->cols);
    a.pos(p + "where", op->where);
    if (n.a_fragment < 0 || op == &n.b) a.list(p + "multiple", op->tile.origin_multiple);
  }
  line(std::string(text::instruction_name(n.instruction)) + " " + accumulator(n.accumulator) + " += " +
           (n.a_fragment >= 0 ? "registers " + buffer(n.a_fragment) : tile(n.a.tile) + " swiz " + std::to_string(n.a.swizzle) + (n.a_m_major ? " (k-by-m)" : "")) +
           " * " + tile(n.b.tile) + (n.b_n_major ? " (k-by-n)" : "") + " swiz " + std::to_string(n.b.swizzle) + " k " +
           std::to_string(n.k) + (n.metadata ? " sparse meta " + expr(n.metadata) : std::string()),
       a);
}

void Printer::header() {
  out_ << "kernel " << k_.entry << ": grid " << k_.grid << (k_.abi.runtime_grid.dynamic() ? " (runtime)" : "") << ", block "
       << k_.block_threads << ", shared " << k_.shared_bytes << " bytes";
  if (k_.cluster_blocks) out_ << ", clusters of " << k_.cluster_blocks;
  if (k_.cluster_shared_memory) out_ << " sharing shared memory";
  if (k_.grid_stride) out_ << ", looping over block indices";
  if (k_.index.kind == Type::Kind::i64) out_ << ", 64-bit indices";
  if (k_.largest_index) out_ << ", indices up to " << *k_.largest_index;
  if (full_) {
    Attrs a;
    if (!k_.function.empty()) a.add("function", quote(k_.function));
    if (!k_.source_name.empty()) a.add("source", quote(k_.source_name));
    a.pos("pos", k_.where);
    a.flag("hopper", k_.hopper);
    a.flag("cooperative", k_.cooperative);
    expr_attr(a, "cluster_live", k_.cluster_live);
    a.flag("needs_half", k_.needs_half);
    a.flag("needs_bf16", k_.needs_bf16);
    a.flag("needs_fp8", k_.needs_fp8);
    a.flag("needs_subbyte", k_.needs_subbyte);
    a.flag("needs_scale_types", k_.needs_scale_types);
    if (k_.needs_sm90) {
      a.add("needs_sm90", quote(k_.needs_sm90->message));
      a.pos("needs_sm90_pos", {k_.needs_sm90->line, k_.needs_sm90->column, k_.needs_sm90->length});
      if (!k_.needs_sm90->hint.empty()) a.add("needs_sm90_hint", quote(k_.needs_sm90->hint));
    }
    a.number("next_name", k_.next_name, 0);
    out_ << a.text();
  }
  out_ << "\n";
}

void Printer::declarations() {
  for (const Param& p : k_.params) {
    Attrs a;
    if (p.kind != abi::KernelParam::Kind::tensor) a.add("kind", text::param_kind_name(p.kind));
    if (p.type != Type{}) a.add("type", type(p.type));
    if (p.buffer >= 0) a.add("buffer", buffer(p.buffer));
    line("param " + p.name, a);
  }
  for (const Buffer& b : k_.buffers) {
    std::ostringstream t;
    t << "buffer " << b.name << ": " << text::space_name(b.space) << " " << dtype_name(b.dtype) << " [";
    for (std::size_t d = 0; d < b.dims.size(); ++d)
      t << (d ? ", " : "") << (b.dims[d].is_dynamic() ? b.dims[d].dim : std::to_string(b.dims[d].value));
    t << "]";
    if (b.space == Space::shared) t << " at " << b.smem_offset;
    if (b.swizzle > 0) t << " swizzle " << b.swizzle;
    if (b.slots > 0) t << " ring " << b.slots << " x " << b.slot_elems;
    if (b.alias_of >= 0) t << " (view of " << buffer(b.alias_of) << ")";
    Attrs a;
    a.number("argument", b.argument, -1);
    a.number("align", b.align_bytes, 16);
    if (b.swizzle < -1 || b.swizzle == 0) a.add("swizzle", std::to_string(b.swizzle));
    if (b.space != Space::shared) a.number("offset", b.smem_offset, -1);
    if (b.slots <= 0) a.number("slot_elems", b.slot_elems, 0);
    if (b.slots < 0) a.add("slots", std::to_string(b.slots));
    a.list("fragment", b.fragment);
    a.list("strides", b.strides);
    a.list("points_to", std::vector<std::int64_t>(b.points_to.begin(), b.points_to.end()));
    line(t.str(), a);
  }
  for (const Event& e : k_.events) {
    Attrs a;
    if (!e.source_name.empty()) a.add("source", quote(e.source_name));
    if (e.phase != text::default_phase(e)) a.add("phase", e.phase);
    a.pos("first_trigger", e.first_trigger);
    if (e.arrivals_whole_block) a.number("arrivals", e.arrivals, 0);
    line("event " + e.name + "[" + std::to_string(e.count) + "] at " + std::to_string(e.smem_offset) + ", arrivals " +
             (e.arrivals_whole_block ? std::string("block") : std::to_string(e.arrivals)) + (e.ready ? ", ready" : "") +
             (e.is_private ? ", private" : "") + (e.cluster_arrivals ? ", from the cluster" : ""),
         a);
  }
  for (const Accumulator& acc : k_.accumulators) {
    Attrs a;
    expr_attr(a, "fill", acc.fill);
    if (acc.registers >= 0) a.add("registers", buffer(acc.registers));
    a.list("array", acc.array_dims);
    line("accumulator " + acc.name + ": " + std::string(dtype_name(acc.dtype)) + " " + std::to_string(acc.rows) + " x " +
             std::to_string(acc.n) + (acc.warp ? " per warp" : ""),
         a);
  }
}

std::string Printer::run() {
  header();
  declarations();
  if (k_.body) body_seq(*k_.body);
  return out_.str();
}

}  // namespace

std::string print_kernel(const Kernel& kernel, IrDetail detail) { return Printer(kernel, detail).run(); }

}  // namespace croq::ir
