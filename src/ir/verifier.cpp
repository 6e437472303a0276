// The IR verifier (see verifier.hpp).
#include "ir/verifier.hpp"

#include <regex>
#include <set>

#include "ir/builder.hpp"
#include "ir/walk.hpp"

namespace croq::ir {

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// `f` or `ns::f` (a C++ function of a namespace, as intrinsics name them).
bool is_qualified_identifier(const std::string& s) {
  std::size_t begin = 0;
  for (std::size_t end; (end = s.find("::", begin)) != std::string::npos; begin = end + 2)
    if (!is_identifier(s.substr(begin, end - begin))) return false;
  return is_identifier(s.substr(begin));
}

bool is_float_literal(const std::string& s) {
  static const std::regex pattern(R"(([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][+-]?[0-9]+)?[fF]?)");
  return std::regex_match(s, pattern);
}

class Verifier {
 public:
  Verifier(const Kernel& k, Decisions made) : k_(k), made_(made) {}

  std::vector<std::string> run() {
    for (std::size_t i = 0; i < k_.buffers.size(); ++i) {
      const Buffer& b = k_.buffers[i];
      if (!is_identifier(b.name)) error("buffer " + std::to_string(i) + " has no identifier name: `" + b.name + "`");
      if (b.alias_of >= static_cast<int>(k_.buffers.size())) error("buffer `" + b.name + "` aliases a missing buffer");
      for (const Extent& d : b.dims)
        if (d.is_dynamic() && !is_identifier(d.dim)) error("buffer `" + b.name + "` has a dynamic dim without a name");
      if (!b.strides.empty() && (b.strides.size() != b.dims.size() || b.slots > 0 || b.swizzle > 0))
        error("buffer `" + b.name + "` has strides that are not one per dim of an unswizzled buffer");
      for (int p : b.points_to)
        if (p < 0 || p >= static_cast<int>(k_.buffers.size())) error("buffer `" + b.name + "` points at a missing buffer");
    }
    for (const Event& e : k_.events)
      if (!is_identifier(e.name) || !is_identifier(e.phase)) error("event `" + e.name + "` has no identifier name");
    for (const Param& p : k_.params)
      if (!is_identifier(p.name)) error("parameter `" + p.name + "` is not an identifier");
    if (!is_identifier(k_.entry)) error("entry `" + k_.entry + "` is not an identifier");
    if (k_.params.size() != k_.abi.params.size()) error("the IR and the ABI disagree on the parameters");
    for (const Accumulator& a : k_.accumulators) expr(a.fill);
    if (made_.has(Decision::index_width) && k_.largest_index) error("the index width was left unchosen");
    if (!k_.body || !std::holds_alternative<Seq>(k_.body->node)) {
      error("the kernel body is not a statement list");
      return errors_;
    }
    for_each_stmt(*k_.body, [&](const Stmt& s) { stmt(s); });
    jumps_in_loops(*k_.body, false);
    if (made_.has(Decision::event_arrivals))
      for (std::size_t e = 0; e < k_.events.size(); ++e)
        if (triggered_.count(static_cast<int>(e)) && k_.events[e].arrivals == 0 && !k_.events[e].arrivals_whole_block)
          error("event `" + k_.events[e].name + "` is triggered but counts no arrivals");
    return errors_;
  }

 private:
  void error(const std::string& what) { errors_.push_back(what); }

  // A break or continue leaves the innermost For or While; a Region or
  // WarpgroupRegion between them would be left too (a parallel body).
  void jumps_in_loops(const Stmt& s, bool in_loop) {
    if (const auto* j = std::get_if<Jump>(&s.node); j && !j->exit_kernel && !in_loop)
      error("a break or continue outside a loop");
    if (const auto* seq = std::get_if<Seq>(&s.node)) {
      for (const auto& c : seq->body) jumps_in_loops(*c, in_loop);
      return;
    }
    const bool loop = std::holds_alternative<For>(s.node) || std::holds_alternative<While>(s.node);
    const bool region = std::holds_alternative<Region>(s.node) || std::holds_alternative<WarpgroupRegion>(s.node);
    for (StmtPtr* b : nested_bodies(const_cast<Stmt&>(s))) {
      // The passes walk a nested body as a statement list.
      if (!std::holds_alternative<Seq>((*b)->node)) error("a loop, branch or region body is not a statement list");
      jumps_in_loops(**b, loop || (in_loop && !region));
    }
  }

  void buffer_ref(int id, const char* what) {
    if (id < 0 || id >= static_cast<int>(k_.buffers.size())) error(std::string(what) + " names buffer " + std::to_string(id));
  }
  void event_ref(int id, const char* what) {
    if (id < 0 || id >= static_cast<int>(k_.events.size())) error(std::string(what) + " names event " + std::to_string(id));
    else if (made_.has(Decision::shared_layout) && k_.events[static_cast<std::size_t>(id)].smem_offset < 0)
      error("event `" + k_.events[static_cast<std::size_t>(id)].name + "` has no shared-memory offset");
  }
  void accumulator_ref(int id, const char* what) {
    if (id < 0 || id >= static_cast<int>(k_.accumulators.size()))
      error(std::string(what) + " names accumulator " + std::to_string(id));
  }

  void undecided_index(const Type& t, const std::string& name) {
    if (t.kind == Type::Kind::index && made_.has(Decision::index_width))
      error("`" + name + "` is declared with the index type after the index-width pass");
  }

  void expr(const ExprRef& e) {
    if (!e) return;
    static const std::size_t arity[] = {0, 0, 0, 0, 1, 2, 3, 0, 1, 0, 1, 1};
    const auto kind = static_cast<std::size_t>(e->kind);
    if (kind < std::size(arity) && e->kind != ExprKind::element && e->operands.size() != arity[kind])
      error("an expression has " + std::to_string(e->operands.size()) + " operands");
    switch (e->kind) {
      case ExprKind::math:
        if (math_arity(e->op) < 0) error("unknown math function `" + e->op + "`");
        else if (e->operands.size() != static_cast<std::size_t>(math_arity(e->op)))
          error("math function `" + e->op + "` has " + std::to_string(e->operands.size()) + " operands");
        break;
      case ExprKind::atomic:
        if (atomic_arity(e->op) < 0) error("unknown atomic `" + e->op + "`");
        else if (e->operands.size() != static_cast<std::size_t>(atomic_arity(e->op)) + 1)
          error("atomic `" + e->op + "` has " + std::to_string(e->operands.size()) + " operands");
        if (e->operands.empty() || !e->operands[0] || e->operands[0]->kind != ExprKind::element)
          error("an atomic updates no element");
        break;
      case ExprKind::var:
        if (!is_identifier(e->text)) error("variable `" + e->text + "` is not an identifier");
        if (e->index_var && made_.has(Decision::index_width))
          error("index variable `" + e->text + "` has no width after the index-width pass");
        break;
      case ExprKind::by_index_width:
        if (e->operands.size() != 2) error("an index_width choice has " + std::to_string(e->operands.size()) + " operands");
        if (made_.has(Decision::index_width)) error("an index_width choice was left after the index-width pass");
        break;
      case ExprKind::special:
        if (e->text != "threadIdx.x" && e->text != "blockIdx.x" && e->text != "blockDim.x" && e->text != "gridDim.x")
          error("unknown special register `" + e->text + "`");
        break;
      case ExprKind::float_literal:
        if (e->text != "inf" && !is_float_literal(e->text)) error("`" + e->text + "` is not a floating literal");
        break;
      case ExprKind::device_call:
        if (!is_qualified_identifier(e->text))
          error("device function `" + e->text + "` is not an identifier (or one qualified by namespaces)");
        if (e->value < 0 || e->value > std::ssize(e->operands)) error("a device call has a wrong template argument count");
        for (std::int64_t i = 0; i < e->value && i < std::ssize(e->operands); ++i)
          if (!e->operands[static_cast<std::size_t>(i)] ||
              (e->operands[static_cast<std::size_t>(i)]->kind != ExprKind::int_const &&
               e->operands[static_cast<std::size_t>(i)]->kind != ExprKind::typed_zero))
            error("template argument " + std::to_string(i + 1) + " of `" + e->text + "` is neither a constant nor a type");
        if (e->op == "void" && e.get() != statement_value_)
          error("the call of `" + e->text + "`, which has no value, is used as a value");
        break;
      case ExprKind::typed_zero:
        if (e->text.empty() || e->text.find_first_not_of("0123456789") != std::string::npos)
          error("typed literal `" + e->text + "` is not a number");
        break;
      case ExprKind::element:
        buffer_ref(e->buffer, "an element");
        if (e->buffer >= 0 && e->buffer < static_cast<int>(k_.buffers.size()) &&
            e->operands.size() != k_.buffers[static_cast<std::size_t>(e->buffer)].dims.size() + 1)
          error("an element of `" + k_.buffers[static_cast<std::size_t>(e->buffer)].name + "` has the wrong rank");
        break;
      default: break;
    }
    for (const auto& o : e->operands) expr(o);
  }

  void tile(const Tile& t) {
    buffer_ref(t.buffer, "a tile");
    expr(t.slot);
    if (t.origin.size() != t.extent.size()) error("a tile's origin and extent differ in rank");
    for (const auto& o : t.origin) expr(o);
    for (const auto& l : t.limit) expr(l);
    if (t.limit.size() > t.extent.size()) error("a tile has more limits than dimensions");
  }

  // An mma operand's tile, whose known divisors the instruction selection reads.
  void operand_tile(const Tile& t) {
    tile(t);
    if (t.origin_multiple.size() != t.extent.size())
      error("an mma operand tile of rank " + std::to_string(t.extent.size()) + " has " +
            std::to_string(t.origin_multiple.size()) + " known origin divisors");
  }

  void stmt(const Stmt& s) {
    std::visit([&](const auto& n) {
      using T = std::decay_t<decltype(n)>;
      if constexpr (std::is_same_v<T, Let>) {
        if (!is_identifier(n.name)) error("`" + n.name + "` is not an identifier");
        undecided_index(n.type, n.name);
        expr(n.init);
      } else if constexpr (std::is_same_v<T, Assign>) {
        expr(n.target);
        expr(n.value);
        expr(n.guard);
        if (n.target && n.target->kind != ExprKind::var && n.target->kind != ExprKind::element)
          error("an assignment's target is neither a variable nor an element");
      } else if constexpr (std::is_same_v<T, Eval>) {
        statement_value_ = n.value.get();  // a void device call stands only here
        expr(n.value);
        statement_value_ = nullptr;
      } else if constexpr (std::is_same_v<T, For>) {
        if (!is_identifier(n.var)) error("loop variable `" + n.var + "` is not an identifier");
        if (n.pipeline) {
          if (made_.has(Decision::pipelining)) error("loop `" + n.var + "` is still marked as a pipelining candidate");
          for (const std::string* name : {&n.pipeline->shift, &n.pipeline->pass, &n.pipeline->slot})
            if (!is_identifier(*name)) error("pipeline name `" + *name + "` is not an identifier");
          if (n.pipeline->buffers_before < 0 || n.pipeline->buffers_before > static_cast<int>(k_.buffers.size()))
            error("a pipeline mark counts " + std::to_string(n.pipeline->buffers_before) + " buffers before its loop");
        }
        undecided_index(n.type, n.var);
        expr(n.begin);
        expr(n.end);
        expr(n.step);
      } else if constexpr (std::is_same_v<T, If> || std::is_same_v<T, While> || std::is_same_v<T, Trap>) {
        expr(n.condition);
      } else if constexpr (std::is_same_v<T, Print>) {
        for (const Print::Part& part : n.parts) expr(part.value);
        expr(n.guard);
      } else if constexpr (std::is_same_v<T, InlineAsm>) {
        static const std::regex constraint("[=+]?[hrlfdn]");
        for (const auto* list : {&n.outputs, &n.inputs})
          for (const InlineAsm::Operand& o : *list) {
            expr(o.value);
            if (!std::regex_match(o.constraint, constraint)) error("asm constraint `" + o.constraint + "` is not bound");
          }
        for (const InlineAsm::Operand& o : n.outputs)
          if (!o.value || o.value->kind != ExprKind::var) error("an asm output is not a variable");
      } else if constexpr (std::is_same_v<T, Comment>) {
        if (n.text.find_first_of("\r\n") != std::string::npos) error("a comment spans lines");
      } else if constexpr (std::is_same_v<T, CopyTiles>) {
        tile(n.src);
        tile(n.dst);
        if (made_.has(Decision::copy_vectors) && n.vector < 1) error("a copy has no access width");
      } else if constexpr (std::is_same_v<T, AllocShared>) {
        buffer_ref(n.buffer, "alloc");
        if (made_.has(Decision::shared_layout) && n.buffer >= 0 && n.buffer < static_cast<int>(k_.buffers.size()) &&
            k_.buffers[static_cast<std::size_t>(n.buffer)].smem_offset < 0)
          error("shared buffer `" + k_.buffers[static_cast<std::size_t>(n.buffer)].name + "` has no offset");
      } else if constexpr (std::is_same_v<T, DeclareLocal>) {
        buffer_ref(n.buffer, "local");
      } else if constexpr (std::is_same_v<T, DeclarePointer>) {
        buffer_ref(n.buffer, "pointer");
        expr(n.address);
      } else if constexpr (std::is_same_v<T, Barrier>) {
        if (n.if_written != Barrier::kAlways) {
          if (n.if_written >= 0) buffer_ref(n.if_written, "barrier");
          if (n.scope != Barrier::Scope::set) error("a barrier asked for before a shared read is not the set's");
          if (made_.has(Decision::shared_barriers)) error("a barrier asked for before a shared read was left undecided");
        }
        if (n.scope == Barrier::Scope::grid) {
          buffer_ref(n.counter, "grid barrier");
          if (!k_.cooperative) error("a grid barrier in a kernel that is not launched cooperatively");
        }
        if (n.scope == Barrier::Scope::cluster && !k_.cluster_shared_memory)
          error("a cluster barrier in a kernel whose blocks do not share shared memory");
      } else if constexpr (std::is_same_v<T, DeclareEvent>) {
        event_ref(n.event, "event declaration");
      } else if constexpr (std::is_same_v<T, BarrierPrologue>) {
        if (made_.has(Decision::event_arrivals) && n.init.size() != k_.events.size()) error("the barrier prologue misses events");
      } else if constexpr (std::is_same_v<T, Arrive>) {
        event_ref(n.event, "arrive");
        expr(n.index);
        if (n.cluster && (!k_.cluster_shared_memory || !k_.events[static_cast<std::size_t>(n.event)].cluster_arrivals))
          error("a cluster arrival on an event that does not count the cluster's arrivals");
        triggered_.insert(n.event);
      } else if constexpr (std::is_same_v<T, WaitEvent>) {
        event_ref(n.event, "wait");
        expr(n.index);
        if (n.parity) expr(n.parity);
      } else if constexpr (std::is_same_v<T, WaitCounter>) {
        if (!n.counter || n.counter->kind != ExprKind::element || n.counter->buffer < 0 ||
            n.counter->buffer >= static_cast<int>(k_.buffers.size()) ||
            k_.buffers[static_cast<std::size_t>(n.counter->buffer)].space != Space::global)
          error("a counter wait on what is no element of a global buffer");
        else expr(n.counter);
        if (!n.above) error("a counter wait without its bound");
        else expr(n.above);
      } else if constexpr (std::is_same_v<T, TmaLoad> || std::is_same_v<T, TmaStore>) {
        if (n.map < 0 || n.map >= static_cast<int>(k_.params.size()) ||
            k_.params[static_cast<std::size_t>(n.map)].kind != abi::KernelParam::Kind::tensor_map)
          error("a TMA copy names no tensor map");
        for (const auto& c : n.coords) expr(c);
        if constexpr (std::is_same_v<T, TmaLoad>) {
          event_ref(n.event, "tma.load");
          if (n.multicast) {
            if (n.multicast->slices > 0 && (!k_.cluster_shared_memory || !n.multicast->rank || !n.multicast->mask))
              error("a multicast load outside a kernel whose blocks share shared memory, or without its rank and mask");
            if (n.multicast->rank) expr(n.multicast->rank);
            if (n.multicast->mask) expr(n.multicast->mask);
          }
        }
      } else if constexpr (std::is_same_v<T, MmaFill>) {
        accumulator_ref(n.accumulator, "mma.fill");
        if (n.value) expr(n.value);
      } else if constexpr (std::is_same_v<T, Mma>) {
        accumulator_ref(n.accumulator, "mma");
        if (n.a_fragment >= 0) buffer_ref(n.a_fragment, "an mma's register lhs");
        else operand_tile(n.a.tile);
        operand_tile(n.b.tile);
        for (const MmaOperand* o : {&n.a, &n.b}) {
          if (!o->rows != !o->cols) error("an mma operand bounds its rows and columns together");
          if (o->rows) expr(o->rows);
          if (o->cols) expr(o->cols);
        }
        if (n.metadata) expr(n.metadata);
        if (made_.has(Decision::mma_instructions) && n.instruction == MmaInstruction::unselected) error("an mma has no instruction");
      } else if constexpr (std::is_same_v<T, MmaStore>) {
        accumulator_ref(n.accumulator, "mma.store");
        expr(n.destination);
        if (!n.rows != !n.cols) error("an mma.store bounds its rows and columns together");
        if (n.rows) expr(n.rows);
        if (n.cols) expr(n.cols);
      } else if constexpr (std::is_same_v<T, MmaLoad>) {
        accumulator_ref(n.accumulator, "mma.load");
        expr(n.source);
        expr(n.leading);
        if (!n.rows != !n.cols) error("an mma.load bounds its rows and columns together");
        if (n.rows) expr(n.rows);
        if (n.cols) expr(n.cols);
      } else if constexpr (std::is_same_v<T, MmaScale>) {
        accumulator_ref(n.accumulator, "mma.scale");
        accumulator_ref(n.partial, "mma.scale");
        expr(n.scale_a);
        expr(n.scale_a_stride);
        expr(n.scale_a_rows);
        expr(n.scale_b);
      } else if constexpr (std::is_same_v<T, MmaCommit>) {
        if (made_.has(Decision::mma_completion)) error("an mma completion point was left for the backend");
      } else if constexpr (std::is_same_v<T, WarpgroupRegion>) {
        expr(n.condition);
      }
    }, s.node);
  }

  const Kernel& k_;
  Decisions made_;
  const Expr* statement_value_ = nullptr;  // the Eval value being checked
  std::vector<std::string> errors_;
  std::set<int> triggered_;  // events some Arrive names
};

}  // namespace

std::vector<std::string> verify(const Kernel& kernel, Decisions made) { return Verifier(kernel, made).run(); }

}  // namespace croq::ir
