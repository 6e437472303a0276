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
#include "passes/passes.hpp"

namespace croq::passes {

namespace {

constexpr std::int64_t kVectorBytes = 16;     // the widest global access
constexpr std::int64_t kThreadTensorBytes = 32;  // the most one thread holds of one tensor

// An index `let` of the flat level: (lin / divisor) % modulus (modulus 0: none).
struct IndexOf {
  std::int64_t divisor = 1;
  std::int64_t modulus = 0;
};

struct Plan {
  std::string lin;  // the level's linear index
  std::int64_t total = 0;
  std::map<std::string, IndexOf> indices;
  std::set<int> read, written;  // global buffers
  bool conditional_write = false;
};

bool is_var(const ir::ExprRef& e, const std::string& name) {
  return e && e->kind == ir::ExprKind::var && e->text == name;
}

// `lin`, `lin % m`, `lin / d`, `(lin / d) % m`: the index it is, if any.
std::optional<IndexOf> index_of(const ir::ExprRef& e, const std::string& lin) {
  std::int64_t k = 0;
  if (is_var(e, lin)) return IndexOf{};
  if (!e || e->kind != ir::ExprKind::binary || !ir::is_const(e->operands[1], &k) || k <= 0) return std::nullopt;
  if (e->op == "/" && is_var(e->operands[0], lin)) return IndexOf{k, 0};
  if (e->op == "%") {
    auto inner = index_of(e->operands[0], lin);
    if (inner && inner->modulus == 0) return IndexOf{inner->divisor, k};
  }
  return std::nullopt;
}

// Whether the coordinates address the instance's own element `lin` of a
// row-major buffer of the level's shape.
bool at_own_element(const Plan& plan, const ir::Buffer& b, const std::vector<ir::ExprRef>& coords) {
  if (coords.size() != b.dims.size() || coords.empty()) return false;
  std::int64_t stride = 1;
  for (std::size_t d = b.dims.size(); d-- > 0;) {
    const std::int64_t extent = b.dims[d].value;
    if (extent <= 0 || !coords[d] || coords[d]->kind != ir::ExprKind::var) return false;
    auto it = plan.indices.find(coords[d]->text);
    if (it == plan.indices.end() || it->second.divisor != stride) return false;
    // The outermost coordinate may leave out its modulus (lin < total).
    if (it->second.modulus != extent && !(d == 0 && it->second.modulus == 0)) return false;
    if (extent > INT64_MAX / stride) return false;
    stride *= extent;
  }
  return stride == plan.total;
}

// Checks an expression: every element it reads is the instance's own; no
// atomics or addresses (which need the element in memory), no calls of
// __device__ functions (C++ the pass cannot see into).
bool expr_ok(const ir::Kernel& k, Plan& plan, const ir::ExprRef& e) {
  if (!e) return true;
  if (e->kind == ir::ExprKind::atomic || e->kind == ir::ExprKind::address_of || e->kind == ir::ExprKind::device_call)
    return false;
  if (e->kind == ir::ExprKind::element) {
    if (e->buffer < 0 || e->buffer >= static_cast<int>(k.buffers.size()) || e->operands.empty() || e->operands[0])
      return false;  // operands[0] is the ring slot
    const ir::Buffer& b = k.buffers[static_cast<std::size_t>(e->buffer)];
    if (b.space != ir::Space::global || b.alias_of >= 0) return false;
    std::vector<ir::ExprRef> coords(e->operands.begin() + 1, e->operands.end());
    if (!at_own_element(plan, b, coords)) return false;
    plan.read.insert(e->buffer);
    return true;
  }
  for (const ir::ExprRef& o : e->operands)
    if (!expr_ok(k, plan, o)) return false;
  return true;
}

// Checks the element body: lets, assignments and branches over the
// instance's own elements only.
bool body_ok(const ir::Kernel& k, Plan& plan, const ir::StmtList& body, bool conditional) {
  for (const ir::StmtPtr& s : body) {
    if (std::holds_alternative<ir::LineMark>(s->node) || std::holds_alternative<ir::Comment>(s->node)) continue;
    if (const auto* let = std::get_if<ir::Let>(&s->node)) {
      if (!expr_ok(k, plan, let->init)) return false;
      if (let->is_const && let->init)
        if (auto idx = index_of(let->init, plan.lin)) plan.indices[let->name] = *idx;
      continue;
    }
    if (const auto* a = std::get_if<ir::Assign>(&s->node)) {
      if (!expr_ok(k, plan, a->value) || !expr_ok(k, plan, a->guard)) return false;
      if (a->target->kind == ir::ExprKind::element) {
        const std::size_t before = plan.read.size();
        const bool had = plan.read.count(a->target->buffer) > 0;
        if (!expr_ok(k, plan, a->target)) return false;
        // A plain store reads nothing; a compound one reads the element.
        if (a->op == "=" && !had && plan.read.size() > before) plan.read.erase(a->target->buffer);
        plan.written.insert(a->target->buffer);
        if (conditional || a->guard) plan.conditional_write = true;
      } else if (a->target->kind != ir::ExprKind::var || a->target->text == plan.lin) {
        return false;
      }
      continue;
    }
    if (const auto* f = std::get_if<ir::If>(&s->node)) {
      if (!expr_ok(k, plan, f->condition)) return false;
      for (const ir::StmtPtr* branch : {&f->then_branch, &f->else_branch}) {
        if (!*branch) continue;
        const auto* seq = std::get_if<ir::Seq>(&(*branch)->node);
        if (!seq || !body_ok(k, plan, seq->body, true)) return false;
      }
      continue;
    }
    return false;
  }
  return true;
}

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

// The element count of the threads of the level: `(blockIdx.x * T) + threadIdx.x`.
std::int64_t threads_of(const ir::ExprRef& init) {
  std::int64_t t = 0;
  if (!init || init->kind != ir::ExprKind::binary || init->op != "+") return 0;
  const ir::ExprRef& scaled = init->operands[0];
  if (scaled->kind != ir::ExprKind::binary || scaled->op != "*" || !ir::is_const(scaled->operands[1], &t)) return 0;
  const ir::ExprRef& tid = init->operands[1];
  return tid->kind == ir::ExprKind::special && tid->text == "threadIdx.x" ? t : 0;
}

// Vectorizes one flat region; false (and the region untouched) when its
// body is not element-wise over the level's own elements.
bool vectorize_region(ir::Kernel& kernel, ir::Region& region) {
  auto& top = std::get<ir::Seq>(region.body->node).body;
  std::size_t at = 0;
  while (at < top.size() && std::holds_alternative<ir::LineMark>(top[at]->node)) ++at;
  if (at + 1 >= top.size()) return false;
  const auto* lin_let = std::get_if<ir::Let>(&top[at]->node);
  if (!lin_let || !lin_let->init) return false;
  const std::int64_t threads = threads_of(lin_let->init);
  if (threads <= 0 || threads != kernel.block_threads) return false;
  Plan plan;
  plan.lin = lin_let->name;
  plan.total = kernel.grid * threads;
  plan.indices[plan.lin] = IndexOf{};  // `lin` itself indexes a one-dimensional level
  // The element body: inside the guard `lin < total` when the threads
  // outnumber the instances, else the statements after `lin`.
  ir::StmtList body;
  const auto* guard = at + 2 == top.size() ? std::get_if<ir::If>(&top[at + 1]->node) : nullptr;
  if (guard) {
    std::int64_t total = 0;
    const ir::ExprRef& c = guard->condition;
    if (guard->else_branch || c->kind != ir::ExprKind::binary || c->op != "<" || !is_var(c->operands[0], plan.lin) ||
        !ir::is_const(c->operands[1], &total))
      return false;
    plan.total = total;
    body = std::move(std::get<ir::Seq>(guard->then_branch->node).body);
  } else {
    for (std::size_t i = at + 1; i < top.size(); ++i) body.push_back(std::move(top[i]));
    top.resize(at + 1);
  }
  auto give_back = [&] {  // not element-wise: the body goes back where it was
    if (guard) std::get<ir::Seq>(guard->then_branch->node).body = std::move(body);
    else for (auto& s : body) top.push_back(std::move(s));
    return false;
  };
  if (!body_ok(kernel, plan, body, false) || plan.written.empty()) return give_back();
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
  std::map<int, int> flat, registers;
  ir::StmtList vector_body;
  for (const std::set<int>* set : {&plan.read, &plan.written})
    for (int b : *set) {
      if (flat.count(b)) continue;
      const ir::Buffer src = kernel.buffers[static_cast<std::size_t>(b)];
      ir::Buffer view = src;
      view.dims = {ir::Extent{plan.total, ""}};
      view.alias_of = b;
      view.argument = -1;
      flat[b] = static_cast<int>(kernel.buffers.size());
      kernel.buffers.push_back(view);
      ir::Buffer regs;
      std::string base = src.name;  // arg_x, croq_output: x_vec, output_vec
      for (const char* prefix : {"arg_", "croq_"})
        if (base.rfind(prefix, 0) == 0) base = base.substr(std::string(prefix).size());
      regs.name = kernel.fresh(base + "_vec");
      regs.dtype = src.dtype;
      regs.dims = {ir::Extent{vec, ""}};
      regs.space = ir::Space::local;
      regs.align_bytes = static_cast<int>(std::min<std::int64_t>(kVectorBytes, vec * static_cast<std::int64_t>(dtype_size(src.dtype))));
      registers[b] = static_cast<int>(kernel.buffers.size());
      kernel.buffers.push_back(regs);
      vector_body.push_back(ir::make_stmt(ir::DeclareLocal{registers[b]}));
    }
  auto copy = [&](ir::Tile src, ir::Tile dst) {
    ir::CopyTiles c;
    c.src = std::move(src);
    c.dst = std::move(dst);
    return ir::make_stmt(std::move(c));
  };
  for (int b : plan.read)
    vector_body.push_back(copy(flat_tile(flat[b], first, vec, vec), flat_tile(registers[b], ir::int_const(0), 0, vec)));
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
    vector_body.push_back(copy(flat_tile(registers[b], ir::int_const(0), 0, vec), flat_tile(flat[b], first, vec, vec)));

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
  if (kernel.grid_stride || kernel.abi.runtime_grid.dynamic() || kernel.cooperative || kernel.cluster_blocks) return;
  auto& top = std::get<ir::Seq>(kernel.body->node).body;
  ir::Region* flat = nullptr;
  for (auto& s : top) {
    if (std::holds_alternative<ir::LineMark>(s->node) || std::holds_alternative<ir::Comment>(s->node)) continue;
    auto* r = std::get_if<ir::Region>(&s->node);
    if (!r || r->mapping != ir::Mapping::flat || flat) return;  // one flat level and nothing else
    flat = r;
  }
  if (flat) vectorize_region(kernel, *flat);
}

}  // namespace croq::passes
