// A readable dump of the IR (`croq compile --emit ir`, golden tests).
#include "ir/printer.hpp"

#include <sstream>

#include "ir/builder.hpp"

namespace croq::ir {

namespace {

const char* space_name(Space s) {
  switch (s) {
    case Space::global: return "global";
    case Space::shared: return "shared";
    case Space::local: return "local";
  }
  return "?";
}

const char* mapping_name(Mapping m) {
  switch (m) {
    case Mapping::cluster: return "cluster";
    case Mapping::grid: return "grid";
    case Mapping::threads: return "threads";
    case Mapping::flat: return "flat";
  }
  return "?";
}

class Dumper {
 public:
  explicit Dumper(const Kernel& k) : k_(k) {}

  std::string expr(const ExprRef& e) const {
    if (!e) return "-";
    switch (e->kind) {
      case ExprKind::int_const: return std::to_string(e->value);
      case ExprKind::float_literal: case ExprKind::var: case ExprKind::special: return e->text;
      case ExprKind::unary: return "(" + e->op + expr(e->operands[0]) + ")";
      case ExprKind::binary: return "(" + expr(e->operands[0]) + " " + e->op + " " + expr(e->operands[1]) + ")";
      case ExprKind::select:
        return "(" + expr(e->operands[0]) + " ? " + expr(e->operands[1]) + " : " + expr(e->operands[2]) + ")";
      case ExprKind::element: {
        std::string s = k_.buffers[static_cast<std::size_t>(e->buffer)].name;
        if (e->operands[0]) s += "{" + expr(e->operands[0]) + "}";
        s += "[";
        for (std::size_t i = 1; i < e->operands.size(); ++i) s += (i > 1 ? ", " : "") + expr(e->operands[i]);
        return s + "]";
      }
      case ExprKind::address_of: return "&" + expr(e->operands[0]);
      case ExprKind::typed_zero: return std::string(dtype_name(e->type.dtype)) + "(" + e->text + ")";
      case ExprKind::zero_like: return "zero_like(" + expr(e->operands[0]) + ")";
      case ExprKind::convert: return "convert<" + type(e->type) + ">(" + expr(e->operands[0]) + ")";
      case ExprKind::math: case ExprKind::atomic: {
        std::string s = std::string(e->kind == ExprKind::atomic ? "atomic_" : "") + e->op + "<" + type(e->type) + ">(";
        for (std::size_t i = 0; i < e->operands.size(); ++i) s += (i ? ", " : "") + expr(e->operands[i]);
        return s + ")";
      }
    }
    return "?";
  }

  static std::string type(const Type& t) {
    switch (t.kind) {
      case Type::Kind::i32: return "i32";
      case Type::Kind::i64: return "i64";
      case Type::Kind::u32: return "u32";
      case Type::Kind::f32: return "f32";
      case Type::Kind::f64: return "f64";
      case Type::Kind::boolean: return "bool";
      case Type::Kind::element: return std::string(dtype_name(t.dtype));
    }
    return "?";
  }

  std::string tile(const Tile& t) const {
    std::string s = k_.buffers[static_cast<std::size_t>(t.buffer)].name;
    if (t.slot) s += "{" + expr(t.slot) + "}";
    s += " at (";
    for (std::size_t d = 0; d < t.origin.size(); ++d) s += (d ? ", " : "") + expr(t.origin[d]);
    s += ") [";
    for (std::size_t d = 0; d < t.extent.size(); ++d) {
      s += (d ? ", " : "") + std::to_string(t.extent[d]);
      if (d < t.limit.size() && t.limit[d]) s += " below " + expr(t.limit[d]);
    }
    return s + "]" + (t.exact ? "" : " guarded");
  }

  std::string threads(const ThreadSet& set) const {
    if (set.threads == 0) return "block";
    return "threads " + std::to_string(set.first) + ".." + std::to_string(set.first + set.threads - 1) + " barrier " +
           std::to_string(set.barrier_id);
  }

  void line(const std::string& s) {
    out_ << std::string(static_cast<std::size_t>(depth_) * 2, ' ') << s << "\n";
  }

  void body(const StmtPtr& s) {
    ++depth_;
    if (s) stmt(*s);
    --depth_;
  }

  void stmt(const Stmt& s) {
    std::visit([&](const auto& n) {
      using T = std::decay_t<decltype(n)>;
      if constexpr (std::is_same_v<T, Seq>) {
        if (n.braces) line("{");
        if (n.braces) ++depth_;
        for (const auto& c : n.body) stmt(*c);
        if (n.braces) --depth_;
        if (n.braces) line("}");
      } else if constexpr (std::is_same_v<T, Let>) {
        line(std::string(n.is_const ? "let " : "var ") + type(n.type) + " " + n.name + " = " + (n.init ? expr(n.init) : "0"));
      } else if constexpr (std::is_same_v<T, Assign>) {
        line((n.guard ? "if " + expr(n.guard) + ": " : std::string()) + expr(n.target) + " " + n.op + " " + expr(n.value));
      } else if constexpr (std::is_same_v<T, Eval>) {
        line("eval " + expr(n.value));
      } else if constexpr (std::is_same_v<T, For>) {
        line(std::string("for ") + (n.unroll ? "unrolled " : "") + n.var + " in [" + expr(n.begin) + ", " + expr(n.end) + ")" +
             (n.step ? " step " + expr(n.step) : "") + ":");
        body(n.body);
      } else if constexpr (std::is_same_v<T, If>) {
        line("if " + expr(n.condition) + ":");
        body(n.then_branch);
        if (n.else_branch) {
          line("else:");
          body(n.else_branch);
        }
      } else if constexpr (std::is_same_v<T, While>) {
        line("while " + expr(n.condition) + ":");
        body(n.body);
      } else if constexpr (std::is_same_v<T, LineMark>) {
        line("#line " + std::to_string(n.line));
      } else if constexpr (std::is_same_v<T, Comment>) {
        line("// " + n.text);
      } else if constexpr (std::is_same_v<T, Trap>) {
        line("trap unless " + expr(n.condition));
      } else if constexpr (std::is_same_v<T, Region>) {
        line(std::string("region ") + mapping_name(n.mapping) + (n.unit > 1 ? " unit " + std::to_string(n.unit) : "") + ":");
        body(n.body);
      } else if constexpr (std::is_same_v<T, Barrier>) {
        line(n.scope == Barrier::Scope::warp    ? std::string("barrier warp")
             : n.scope == Barrier::Scope::lanes ? std::string("barrier active lanes")
             : n.scope == Barrier::Scope::grid  ? "barrier grid counting in " + k_.buffers[static_cast<std::size_t>(n.counter)].name
             : n.scope == Barrier::Scope::warpgroup ? "barrier each warpgroup (ids from " + std::to_string(n.set.barrier_id) + ")"
                                                : "barrier " + threads(n.set));
      } else if constexpr (std::is_same_v<T, InlineAsm>) {
        std::string t = std::string("asm") + (n.is_volatile ? " volatile" : "") + " \"" + n.text + "\"";
        for (const auto* list : {&n.outputs, &n.inputs}) {
          t += " :";
          for (std::size_t i = 0; i < list->size(); ++i)
            t += (i ? ", " : " ") + (*list)[i].constraint + "(" + expr((*list)[i].value) + ")";
        }
        line(t + (n.memory ? " : memory" : ""));
      } else if constexpr (std::is_same_v<T, Print>) {
        std::string t = "print";
        for (const Print::Part& part : n.parts) t += part.value ? " " + expr(part.value) : " \"" + part.text + "\"";
        line(t + (n.guard ? " if " + expr(n.guard) : ""));
      } else if constexpr (std::is_same_v<T, Fence>) {
        line(n.device ? "fence device" : "fence block");
      } else if constexpr (std::is_same_v<T, CopyTiles>) {
        std::string s = std::string(n.pad ? "pad " : "copy ") + tile(n.src) + " -> " + tile(n.dst);
        if (!n.perm.empty()) {
          s += " perm";
          for (auto p : n.perm) s += " " + std::to_string(p);
        }
        if (n.pad) {
          auto list = [](const std::vector<std::int64_t>& v) {
            std::string t = "[";
            for (std::size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + std::to_string(v[i]);
            return t + "]";
          };
          s += " low " + list(n.pad->low) + " high " + list(n.pad->high) + " mid " + list(n.pad->mid) + " value " +
               expr(n.pad->value);
        }
        s += n.cooperative ? " by " + threads(n.set) : " by each thread";
        if (n.zfill) s += " zfill";
        s += " vector " + std::to_string(n.vector);
        line(s);
      } else if constexpr (std::is_same_v<T, AllocShared>) {
        line("alloc " + k_.buffers[static_cast<std::size_t>(n.buffer)].name);
      } else if constexpr (std::is_same_v<T, DeclareLocal>) {
        line("local " + k_.buffers[static_cast<std::size_t>(n.buffer)].name);
      } else if constexpr (std::is_same_v<T, DeclarePointer>) {
        line("pointer " + k_.buffers[static_cast<std::size_t>(n.buffer)].name + " = " + expr(n.address));
      } else if constexpr (std::is_same_v<T, DeclareEvent>) {
        line("event " + k_.events[static_cast<std::size_t>(n.event)].name);
      } else if constexpr (std::is_same_v<T, BarrierPrologue>) {
        std::string s = "init events";
        for (int e : n.init) s += " " + k_.events[static_cast<std::size_t>(e)].name;
        line(n.init.empty() ? std::string("init events: none") : s);
      } else if constexpr (std::is_same_v<T, Arrive>) {
        line("arrive " + k_.events[static_cast<std::size_t>(n.event)].name + "[" + expr(n.index) + "] by " + threads(n.set) +
             (n.per_warp ? " per warp" : "") + (n.ends_loop_body ? " (ends loop body)" : ""));
      } else if constexpr (std::is_same_v<T, WaitEvent>) {
        line("wait " + k_.events[static_cast<std::size_t>(n.event)].name + "[" + expr(n.index) + "]" +
             (n.parity ? " parity " + expr(n.parity) : std::string()));
      } else if constexpr (std::is_same_v<T, TmaLoad>) {
        std::string s = "tma.load " + k_.params[static_cast<std::size_t>(n.map)].name + " (";
        for (std::size_t i = 0; i < n.coords.size(); ++i) s += (i ? ", " : "") + expr(n.coords[i]);
        line(s + ") -> " + expr(n.destination) + " completes " + k_.events[static_cast<std::size_t>(n.event)].name + "[" +
             expr(n.event_index) + "] " + std::to_string(n.bytes) + " bytes" + (n.arrive ? " (arrives)" : ""));
      } else if constexpr (std::is_same_v<T, TmaStore>) {
        std::string s = "tma.store " + expr(n.source) + " -> " + k_.params[static_cast<std::size_t>(n.map)].name + " (";
        for (std::size_t i = 0; i < n.coords.size(); ++i) s += (i ? ", " : "") + expr(n.coords[i]);
        line(s + ")" + (n.wait ? "" : " (committed, waited before the tile's next write)"));
      } else if constexpr (std::is_same_v<T, BulkStoreWait>) {
        line(n.read_only ? "tma.store.wait read" : "tma.store.wait complete");
      } else if constexpr (std::is_same_v<T, FenceProxyAsync>) {
        line("fence.proxy.async");
      } else if constexpr (std::is_same_v<T, MmaFill>) {
        const Accumulator& a = k_.accumulators[static_cast<std::size_t>(n.accumulator)];
        if (n.op.empty()) line("mma.fill " + a.name + " = " + expr(a.fill));
        else line("mma.fill " + a.name + " " + n.op + " " + expr(n.value));
      } else if constexpr (std::is_same_v<T, Mma>) {
        const char* instr = n.instruction == MmaInstruction::wgmma ? "wgmma" : n.instruction == MmaInstruction::mma_sync ? "mma.sync"
                            : n.instruction == MmaInstruction::mma_sync_gather ? "mma.sync.gather" : "mma";
        line(std::string(instr) + " " + k_.accumulators[static_cast<std::size_t>(n.accumulator)].name + " += " +
             (n.a_fragment >= 0 ? "registers " + k_.buffers[static_cast<std::size_t>(n.a_fragment)].name
                                : tile(n.a.tile) + " swiz " + std::to_string(n.a.swizzle)) +
             " * " + tile(n.b.tile) + (n.b_n_major ? " (k-by-n)" : "") + " swiz " + std::to_string(n.b.swizzle) + " k " +
             std::to_string(n.k) + (n.metadata ? " sparse meta " + expr(n.metadata) : std::string()));
      } else if constexpr (std::is_same_v<T, MmaWait>) {
        line("mma.wait pending " + std::to_string(n.pending));
      } else if constexpr (std::is_same_v<T, MmaStore>) {
        line("mma.store " + k_.accumulators[static_cast<std::size_t>(n.accumulator)].name + " -> " + expr(n.destination));
      } else if constexpr (std::is_same_v<T, MmaScale>) {
        line("mma.scale " + k_.accumulators[static_cast<std::size_t>(n.accumulator)].name + " += " +
             k_.accumulators[static_cast<std::size_t>(n.partial)].name + " * " + expr(n.scale_a) + "[row * " +
             expr(n.scale_a_stride) + "] (rows < " + expr(n.scale_a_rows) + ") * " + expr(n.scale_b));
      } else if constexpr (std::is_same_v<T, MmaCommit>) {
        std::string names;
        for (int b : n.registers) names += " " + k_.buffers[static_cast<std::size_t>(b)].name;
        for (int b : n.shared) names += " readers of " + k_.buffers[static_cast<std::size_t>(b)].name;
        line("mma.complete" + (names.empty() ? std::string() : " of" + names));
      } else if constexpr (std::is_same_v<T, SetMaxNReg>) {
        line(std::string("setmaxnreg ") + (n.increase ? "inc " : "dec ") + std::to_string(n.registers));
      } else if constexpr (std::is_same_v<T, WarpgroupRegion>) {
        line("warpgroups " + threads(n.set) + (n.mma ? " (mma)" : "") + " when " + expr(n.condition) + ":");
        body(n.body);
      }
    }, s.node);
  }

  std::string run() {
    out_ << "kernel " << k_.entry << ": grid " << k_.grid << (k_.abi.runtime_grid.dynamic() ? " (runtime)" : "") << ", block "
         << k_.block_threads << ", shared " << k_.shared_bytes << " bytes";
    if (k_.cluster_blocks) out_ << ", clusters of " << k_.cluster_blocks;
    if (k_.grid_stride) out_ << ", looping over block indices";
    if (k_.index.kind == Type::Kind::i64) out_ << ", 64-bit indices";
    out_ << "\n";
    for (std::size_t i = 0; i < k_.params.size(); ++i) out_ << "  param " << k_.params[i].name << "\n";
    for (const Buffer& b : k_.buffers) {
      out_ << "  buffer " << b.name << ": " << space_name(b.space) << " " << dtype_name(b.dtype) << " [";
      for (std::size_t d = 0; d < b.dims.size(); ++d) out_ << (d ? ", " : "") << (b.dims[d].is_dynamic() ? b.dims[d].dim : std::to_string(b.dims[d].value));
      out_ << "]";
      if (b.space == Space::shared) out_ << " at " << b.smem_offset;
      if (b.swizzle > 0) out_ << " swizzle " << b.swizzle;
      if (b.slots > 0) out_ << " ring " << b.slots << " x " << b.slot_elems;
      if (b.alias_of >= 0) out_ << " (view of " << k_.buffers[static_cast<std::size_t>(b.alias_of)].name << ")";
      out_ << "\n";
    }
    for (const Event& e : k_.events) {
      out_ << "  event " << e.name << "[" << e.count << "] at " << e.smem_offset << ", arrivals "
           << (e.arrivals_whole_block ? std::string("block") : std::to_string(e.arrivals)) << (e.ready ? ", ready" : "")
           << (e.is_private ? ", private" : "") << "\n";
    }
    for (const Accumulator& a : k_.accumulators)
      out_ << "  accumulator " << a.name << ": " << dtype_name(a.dtype) << " " << a.rows << " x " << a.n
           << (a.warp ? " per warp" : "") << "\n";
    stmt(*k_.body);
    return out_.str();
  }

 private:
  const Kernel& k_;
  std::ostringstream out_;
  int depth_ = 1;
};

}  // namespace

std::string print_kernel(const Kernel& kernel) { return Dumper(kernel).run(); }

}  // namespace croq::ir
