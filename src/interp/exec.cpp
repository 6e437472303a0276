// Statements, on the running thread.
#include <cstdio>
#include <type_traits>

#include "interp/executor.hpp"
#include "ir/builder.hpp"
#include "interp/values.hpp"

namespace croq::interp {

namespace {

// After a loop body: whether a break left the loop; either jump ends there.
// A yield leaves it too, and every statement around it.
bool jumped_out(Thread& t) {
  if (t.jump == Thread::Jump::exit_kernel) return true;
  const bool out = t.jump == Thread::Jump::break_loop;
  t.jump = Thread::Jump::none;
  return out;
}

// C++'s compound assignment `target op= value` as a binary operator.
std::string compound_operator(const std::string& op) { return op.substr(0, op.size() - 1); }

}  // namespace

void Executor::exec(Thread& t, const ir::Stmt& s) {
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ir::Seq>) {
          for (const auto& child : n.body) {
            exec(t, *child);
            if (t.jump != Thread::Jump::none) break;
          }
        } else if constexpr (std::is_same_v<T, ir::Let>) {
          t.vars[n.name] = n.init ? converted(n.init->type, n.type, eval(t, n.init)) : from_int(n.type, 0);
        } else if constexpr (std::is_same_v<T, ir::Assign>) {
          assign(t, n);
        } else if constexpr (std::is_same_v<T, ir::Eval>) {
          eval(t, n.value);
        } else if constexpr (std::is_same_v<T, ir::For>) {
          loop(t, n);
        } else if constexpr (std::is_same_v<T, ir::If>) {
          if (as_bool(n.condition->type, eval(t, n.condition))) exec(t, *n.then_branch);
          else if (n.else_branch) exec(t, *n.else_branch);
        } else if constexpr (std::is_same_v<T, ir::While>) {
          while (as_bool(n.condition->type, eval(t, n.condition))) {
            exec(t, *n.body);
            if (jumped_out(t)) break;
          }
        } else if constexpr (std::is_same_v<T, ir::Jump>) {
          t.jump = n.exit_kernel      ? Thread::Jump::exit_kernel
                   : n.next_iteration ? Thread::Jump::next_iteration
                                      : Thread::Jump::break_loop;
        } else if constexpr (std::is_same_v<T, ir::LineMark>) {
          t.line = n.line;
        } else if constexpr (std::is_same_v<T, ir::Trap>) {
          if (!as_bool(n.condition->type, eval(t, n.condition)))
            fault(t.line, "assertion failed in thread " + std::to_string(t.tid) + " of block " +
                              std::to_string(t.block->index));
        } else if constexpr (std::is_same_v<T, ir::Region>) {
          exec(t, *n.body);
        } else if constexpr (std::is_same_v<T, ir::Barrier>) {
          barrier(t, n, s);
        } else if constexpr (std::is_same_v<T, ir::InlineAsm>) {
          inline_asm(t, n, s);
        } else if constexpr (std::is_same_v<T, ir::Print>) {
          print(t, n);
        } else if constexpr (std::is_same_v<T, ir::CopyTiles>) {
          copy_tiles(t, n);
        } else if constexpr (std::is_same_v<T, ir::DeclareLocal>) {
          declare_local(t, n.buffer);
        } else if constexpr (std::is_same_v<T, ir::DeclarePointer>) {
          t.pointers[n.buffer] = eval(t, n.address);
        } else if constexpr (std::is_same_v<T, ir::BarrierPrologue>) {
          // The backend's prologue ends in __syncthreads once barriers are set up.
          if (!n.init.empty()) gather(t, "block barrier", 0, launch_.threads, &s, nullptr);
        } else if constexpr (std::is_same_v<T, ir::Arrive>) {
          arrive(t, n, s);
        } else if constexpr (std::is_same_v<T, ir::WaitEvent>) {
          wait_event(t, n);
        } else if constexpr (std::is_same_v<T, ir::WaitCounter>) {
          wait_counter(t, n);
        } else if constexpr (std::is_same_v<T, ir::TmaLoad>) {
          tma_load(t, n);
        } else if constexpr (std::is_same_v<T, ir::TmaStore>) {
          tma_store(t, n);
        } else if constexpr (std::is_same_v<T, ir::MmaFill>) {
          mma_fill(t, n, s);
        } else if constexpr (std::is_same_v<T, ir::Mma>) {
          mma(t, n, s);
        } else if constexpr (std::is_same_v<T, ir::MmaWait>) {
          mma_wait(t, n);
        } else if constexpr (std::is_same_v<T, ir::MmaStore>) {
          mma_store(t, n, s);
        } else if constexpr (std::is_same_v<T, ir::MmaLoad>) {
          mma_load(t, n, s);
        } else if constexpr (std::is_same_v<T, ir::MmaScale>) {
          mma_scale(t, n, s);
        } else if constexpr (std::is_same_v<T, ir::WarpgroupRegion>) {
          if (!n.condition || as_bool(n.condition->type, eval(t, n.condition))) exec(t, *n.body);
        } else {
          // Comment, Fence, AllocShared, DeclareEvent, FenceProxyAsync,
          // BulkStoreWait, MmaCommit, SetMaxNReg: nothing to do on the CPU
          // (memory is coherent, copies complete at once, groups are
          // tracked at their multiplies and waits).
          static_assert(std::is_same_v<T, ir::Comment> || std::is_same_v<T, ir::Fence> ||
                        std::is_same_v<T, ir::AllocShared> || std::is_same_v<T, ir::DeclareEvent> ||
                        std::is_same_v<T, ir::FenceProxyAsync> || std::is_same_v<T, ir::BulkStoreWait> ||
                        std::is_same_v<T, ir::MmaCommit> || std::is_same_v<T, ir::SetMaxNReg>);
        }
      },
      s.node);
}

void Executor::assign(Thread& t, const ir::Assign& a) {
  if (a.guard && !as_bool(a.guard->type, eval(t, a.guard))) return;
  const ir::Expr& target = *a.target;
  const bool compound = a.op != "=";
  if (target.kind == ir::ExprKind::var) {
    Value v = eval(t, a.value);
    ir::Type vt = a.value->type;
    auto it = t.vars.find(target.text);
    if (it == t.vars.end()) fault(t.line, "internal error: assignment to an unknown variable `" + target.text + "`");
    if (compound) {
      v = combine(t, compound_operator(a.op), target.type, it->second, vt, v);
      vt = target.type;
    }
    it->second = converted(vt, target.type, v);
    return;
  }
  if (target.kind != ir::ExprKind::element) fault(t.line, "internal error: assignment to an expression");
  // The element's address first (its coordinates), then the value, as the
  // generated C++ evaluates `a[i] = v` (unspecified order; neither has effects).
  const Address where = element_address(t, target, true);
  Value v = eval(t, a.value);
  ir::Type vt = a.value->type;
  if (compound) {
    v = combine(t, compound_operator(a.op), target.type, read(t, where), vt, v);
    vt = target.type;
  }
  write(t, where, vt, v);
}

// `lhs op= rhs`: computed as binary() computes `lhs op rhs`, the result in lt.
Value Executor::combine(Thread& t, const std::string& op, const ir::Type& lt, const Value& lhs, const ir::Type& rt,
                        const Value& rhs) {
  const bool shift = op == "<<" || op == ">>";
  const ir::Type ct = arithmetic_type(shift ? lt : ir::common_type(lt, rt));
  return converted(ct, lt, arithmetic(t, op, ct, lt, lhs, rt, rhs));
}

void Executor::loop(Thread& t, const ir::For& f) {
  const Value begin = converted(f.begin->type, f.type, eval(t, f.begin));
  Value& var = t.vars[f.var];
  var = begin;
  for (;;) {
    const Value end = converted(f.end->type, f.type, eval(t, f.end));
    Value& v = t.vars[f.var];
    const bool more = is_unsigned(f.type) ? static_cast<std::uint64_t>(v.i) < static_cast<std::uint64_t>(end.i)
                                          : v.i < end.i;
    if (!more) break;
    exec(t, *f.body);
    if (jumped_out(t)) break;
    Value& after = t.vars[f.var];
    const std::int64_t step = f.step ? as_int(f.step->type, eval(t, f.step)) : 1;
    after = normalized(f.type, Value{after.i + step, 0, nullptr});
  }
}

void Executor::declare_local(Thread& t, int buffer) {
  const ir::Buffer& b = kernel().buffers[static_cast<std::size_t>(buffer)];
  auto s = std::make_unique<Storage>();
  s->name = b.name;
  s->space = ir::Space::local;
  std::int64_t n = b.slots > 0 ? b.slots : 1;  // an array of local buffers holds a slot each
  for (std::size_t d = 0; d < b.dims.size(); ++d) n *= extent(t, buffer, d);
  s->owned.assign(static_cast<std::size_t>(n) * dtype_size(b.dtype), std::byte{0});
  s->data = s->owned.data();
  s->bytes = s->owned.size();
  t.locals[buffer] = std::move(s);
}

void Executor::print(Thread& t, const ir::Print& p) {
  if (p.guard && !as_bool(p.guard->type, eval(t, p.guard))) return;
  std::string out;
  for (const ir::Print::Part& part : p.parts) {
    if (!part.value) {
      out += part.text;
      continue;
    }
    const ir::Type& type = part.value->type;
    const Value v = eval(t, part.value);
    if (type.kind == ir::Type::Kind::boolean) {
      out += v.i ? "true" : "false";
    } else if (type.is_float()) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%f", v.f);
      out += buf;
    } else {
      out += std::to_string(v.i);
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

}  // namespace croq::interp
