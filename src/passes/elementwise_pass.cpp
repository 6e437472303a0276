// Element-wise vectorization (see passes.hpp): a flat region (one instance
// per element, `parallel {i, j} by [M, N]` with nothing staged) whose every
// tensor access is at the instance's own element of tensors of the level's
// shape becomes a region where each thread moves a whole vector of
// consecutive elements: it loads each tensor it reads into registers with
// cooperative-free tile copies (which `vectorize_copies` widens to 16-byte
// accesses where the pointers allow), runs the element body over the vector
// in an unrolled loop, and stores what it wrote. The elements past the last
// whole vector run the original body, one per thread (the scalar tail).
//
// The width is 16 bytes of the narrowest element type the body touches
// (f32: 4, f16/bf16: 8), cut so that no tensor's share of a thread passes
// 32 bytes (two 16-byte accesses). With 256 threads a block and up to 2048
// threads an SM, that keeps 32 to 64 KiB of loads in flight per SM for a
// kernel of two inputs, more than an H100 or H200 needs to cover its DRAM
// latency (about 3.4 TB/s x 1 us / 132 SMs = 26 KiB); the grid is one thread
// per vector.
#include <map>
#include <set>

#include "ir/builder.hpp"
#include "ir/walk.hpp"
#include "passes/flat_region.hpp"
#include "passes/passes.hpp"

namespace croq::passes {

namespace {

constexpr std::int64_t kVectorBytes = 16;     // the widest global access
constexpr std::int64_t kThreadTensorBytes = 32;  // the most one thread holds of one tensor

// The expression with every own-element access replaced by element `k` of
// that buffer's register vector.
ir::ExprRef to_registers(const ir::ExprRef& e, const std::map<int, int>& registers, const ir::ExprRef& k) {
  if (!e) return e;
  if (e->kind == ir::ExprKind::element) {
    auto it = registers.find(e->buffer);
    if (it != registers.end()) return ir::element(it->second, e->type.dtype, nullptr, {k});
  }
  bool changed = false;
  std::vector<ir::ExprRef> operands;
  for (const ir::ExprRef& o : e->operands) {
    operands.push_back(to_registers(o, registers, k));
    changed = changed || operands.back() != o;
  }
  if (!changed) return e;
  auto copy = std::make_shared<ir::Expr>(*e);
  copy->operands = std::move(operands);
  return copy;
}

ir::StmtList body_in_registers(const ir::StmtList& body, const std::map<int, int>& registers, const ir::ExprRef& k);

ir::StmtPtr stmt_in_registers(const ir::Stmt& s, const std::map<int, int>& registers, const ir::ExprRef& k) {
  auto r = [&](const ir::ExprRef& e) { return to_registers(e, registers, k); };
  auto seq = [&](const ir::StmtPtr& b) -> ir::StmtPtr {
    if (!b) return nullptr;
    const auto& inner = std::get<ir::Seq>(b->node);
    return ir::make_stmt(ir::Seq{body_in_registers(inner.body, registers, k), inner.braces}, b->where);
  };
  if (const auto* let = std::get_if<ir::Let>(&s.node))
    return ir::make_stmt(ir::Let{let->name, let->type, let->is_const, r(let->init)}, s.where);
  if (const auto* a = std::get_if<ir::Assign>(&s.node))
    return ir::make_stmt(ir::Assign{r(a->target), a->op, r(a->value), r(a->guard)}, s.where);
  if (const auto* f = std::get_if<ir::If>(&s.node))
    return ir::make_stmt(ir::If{r(f->condition), seq(f->then_branch), seq(f->else_branch)}, s.where);
  if (const auto* c = std::get_if<ir::Comment>(&s.node)) return ir::make_stmt(*c, s.where);
  return ir::make_stmt(std::get<ir::LineMark>(s.node), s.where);
}

ir::StmtList body_in_registers(const ir::StmtList& body, const std::map<int, int>& registers, const ir::ExprRef& k) {
  ir::StmtList out;
  for (const ir::StmtPtr& s : body) out.push_back(stmt_in_registers(*s, registers, k));
  return out;
}

// A tile of `extent` elements of a one-dimensional buffer from `origin`
// (a multiple of `multiple`).
ir::Tile flat_tile(int buffer, ir::ExprRef origin, std::int64_t multiple, std::int64_t extent) {
  ir::Tile t;
  t.buffer = buffer;
  t.origin = {std::move(origin)};
  t.origin_multiple = {multiple};
  t.extent = {extent};
  return t;
}

// Vectorizes one flat region; false (and the region untouched) when its
// body is not element-wise over the level's own elements.
bool vectorize_region(ir::Kernel& kernel, ir::Region& region) {
  flat::Plan plan;
  std::optional<flat::Body> taken = flat::take_body(kernel, region, plan);
  if (!taken) return false;
  auto& top = *taken->top;
  const std::size_t at = taken->at;
  const ir::Let* lin_let = taken->lin_let;
  const std::int64_t threads = kernel.block_threads;
  ir::StmtList& body = taken->body;
  auto give_back = [&] {  // not element-wise: the body goes back where it was
    taken->give_back();
    return false;
  };
  if (!flat::body_ok(kernel, plan, body, false) || plan.written.empty()) return give_back();
  if (plan.conditional_write) plan.read.insert(plan.written.begin(), plan.written.end());
  // The width: 16 bytes of the narrowest element, at most 32 bytes of the widest.
  std::int64_t narrow = 16, wide = 1;
  for (const std::set<int>* set : {&plan.read, &plan.written})
    for (int b : *set) {
      const auto size = static_cast<std::int64_t>(dtype_size(kernel.buffers[static_cast<std::size_t>(b)].dtype));
      narrow = std::min(narrow, size);
      wide = std::max(wide, size);
    }
  std::int64_t vec = kVectorBytes / narrow;
  while (vec > 1 && vec * wide > kThreadTensorBytes) vec /= 2;
  const std::int64_t vectors = plan.total / vec, tail = plan.total % vec;
  if (vec < 2 || vectors == 0) return give_back();

  const ir::Type index = lin_let->type;
  const std::string vlin = kernel.fresh("vec");
  const ir::ExprRef vlin_var = ir::var(vlin, index);
  const ir::ExprRef vlin_init = lin_let->init;
  const ir::ExprRef first = ir::binary("*", vlin_var, ir::int_const(vec, index));
  // Each tensor: a one-dimensional view of its storage and a register vector.
  std::map<int, int> flat_views, registers;
  ir::StmtList vector_body;
  for (const std::set<int>* set : {&plan.read, &plan.written})
    for (int b : *set) {
      if (flat_views.count(b)) continue;
      const ir::Buffer& src = kernel.buffers[static_cast<std::size_t>(b)];
      const std::string name = flat::base_name(src.name) + "_vec";  // arg_x, croq_output: x_vec, output_vec
      const DType dtype = src.dtype;
      flat_views[b] = flat::flat_view(kernel, b, plan.total);
      registers[b] = flat::local_registers(kernel, name, dtype, {ir::Extent{vec, ""}}, vec);
      vector_body.push_back(ir::make_stmt(ir::DeclareLocal{registers[b]}));
    }
  auto copy = [&](ir::Tile src, ir::Tile dst) {
    ir::CopyTiles c;
    c.src = std::move(src);
    c.dst = std::move(dst);
    return ir::make_stmt(std::move(c));
  };
  for (int b : plan.read)
    vector_body.push_back(copy(flat_tile(flat_views[b], first, vec, vec), flat_tile(registers[b], ir::int_const(0), 0, vec)));
  const std::string k = kernel.fresh("k");
  const ir::ExprRef k_var = ir::var(k);
  ir::StmtList per_element;
  per_element.push_back(ir::make_stmt(ir::Let{plan.lin, index, true, ir::binary("+", first, ir::convert(k_var, index))}));
  for (auto& s : body_in_registers(body, registers, k_var)) per_element.push_back(std::move(s));
  ir::For loop;
  loop.var = k;
  loop.begin = ir::int_const(0);
  loop.end = ir::int_const(vec);
  loop.body = ir::make_stmt(ir::Seq{std::move(per_element), true});
  loop.unroll = true;
  vector_body.push_back(ir::make_stmt(std::move(loop)));
  for (int b : plan.written)
    vector_body.push_back(copy(flat_tile(registers[b], ir::int_const(0), 0, vec), flat_tile(flat_views[b], first, vec, vec)));

  // The new region: the vectors, then the tail's elements one per thread.
  ir::StmtList out;
  out.push_back(ir::make_stmt(ir::Comment{std::to_string(vec) + " elements per thread (" + std::to_string(vectors) +
                                          " vectors" + (tail ? ", then a tail of " + std::to_string(tail) : "") + ")"}));
  out.push_back(ir::make_stmt(ir::Let{vlin, index, true, vlin_init}));
  out.push_back(ir::make_stmt(ir::If{ir::less(vlin_var, ir::int_const(vectors, index)),
                                     ir::make_stmt(ir::Seq{std::move(vector_body), true}), nullptr}));
  if (tail) {
    ir::StmtList scalar;
    scalar.push_back(ir::make_stmt(
        ir::Let{plan.lin, index, true, ir::binary("+", ir::int_const(vectors * vec, index), vlin_var)}));
    for (auto& s : body) scalar.push_back(std::move(s));
    out.push_back(ir::make_stmt(ir::If{ir::less(vlin_var, ir::int_const(tail, index)),
                                       ir::make_stmt(ir::Seq{std::move(scalar), true}), nullptr}));
  }
  for (std::size_t i = 0; i < at; ++i) out.insert(out.begin() + static_cast<std::ptrdiff_t>(i), std::move(top[i]));
  top = std::move(out);
  kernel.grid = (std::max(vectors, tail) + threads - 1) / threads;
  return true;
}

}  // namespace

void vectorize_elementwise(ir::Kernel& kernel) {
  if (ir::Region* region = flat::only_flat_region(kernel)) vectorize_region(kernel, *region);
}

}  // namespace croq::passes
