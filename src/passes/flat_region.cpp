// A flat level's element body, checked for the passes that rewrite it (see
// flat_region.hpp).
#include "passes/flat_region.hpp"

#include <algorithm>

#include "ir/builder.hpp"

namespace croq::passes::flat {

namespace {

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

// The index let a coordinate names, if it is one.
const IndexOf* index_named(const Plan& plan, const ir::ExprRef& coord) {
  if (!coord || coord->kind != ir::ExprKind::var) return nullptr;
  auto it = plan.indices.find(coord->text);
  return it == plan.indices.end() ? nullptr : &it->second;
}

// Whether the coordinates address the instance's own element `lin` of a
// row-major buffer of the level's shape.
bool at_own_element(const Plan& plan, const ir::Buffer& b, const std::vector<ir::ExprRef>& coords) {
  if (coords.size() != b.dims.size() || coords.empty()) return false;
  std::int64_t stride = 1;
  for (std::size_t d = b.dims.size(); d-- > 0;) {
    const std::int64_t extent = b.dims[d].value;
    const IndexOf* index = index_named(plan, coords[d]);
    if (extent <= 0 || !index || index->divisor != stride) return false;
    // The outermost coordinate may leave out its modulus (lin < total).
    if (index->modulus != extent && !(d == 0 && index->modulus == 0)) return false;
    if (extent > INT64_MAX / stride) return false;
    stride *= extent;
  }
  return stride == plan.total;
}

// Whether the coordinates address `y[j, i]` of a [N, M] buffer for the
// instance (i, j) of a level [M, N]: i = lin / N, j = lin % N.
bool at_transposed_element(Plan& plan, const ir::Buffer& b, const std::vector<ir::ExprRef>& coords) {
  if (coords.size() != 2 || b.dims.size() != 2) return false;
  const std::int64_t n = b.dims[0].value, m = b.dims[1].value;
  const IndexOf* j = index_named(plan, coords[0]);
  const IndexOf* i = index_named(plan, coords[1]);
  if (n <= 1 || m <= 1 || !i || !j || m > INT64_MAX / n || m * n != plan.total) return false;
  if (j->divisor != 1 || j->modulus != n || i->divisor != n || (i->modulus != 0 && i->modulus != m)) return false;
  if (plan.rows && (plan.rows != m || plan.cols != n)) return false;
  plan.rows = m;
  plan.cols = n;
  return true;
}

const ir::Buffer* plain_global(const ir::Kernel& k, const ir::ExprRef& e) {
  if (e->buffer < 0 || e->buffer >= static_cast<int>(k.buffers.size()) || e->operands.empty() || e->operands[0])
    return nullptr;  // operands[0] is the ring slot
  const ir::Buffer& b = k.buffers[static_cast<std::size_t>(e->buffer)];
  return b.space == ir::Space::global && b.alias_of < 0 ? &b : nullptr;
}

// Checks an expression: every element it reads is the instance's own; no
// atomics or addresses (which need the element in memory), no calls of
// __device__ functions (C++ the pass cannot see into).
bool expr_ok(const ir::Kernel& k, Plan& plan, const ir::ExprRef& e) {
  if (!e) return true;
  if (e->kind == ir::ExprKind::atomic || e->kind == ir::ExprKind::address_of || e->kind == ir::ExprKind::device_call)
    return false;
  if (e->kind == ir::ExprKind::element) {
    const ir::Buffer* b = plain_global(k, e);
    if (!b) return false;
    std::vector<ir::ExprRef> coords(e->operands.begin() + 1, e->operands.end());
    if (!at_own_element(plan, *b, coords)) return false;
    plan.read.insert(e->buffer);
    return true;
  }
  for (const ir::ExprRef& o : e->operands)
    if (!expr_ok(k, plan, o)) return false;
  return true;
}

bool assign_ok(const ir::Kernel& k, Plan& plan, const ir::Assign& a, bool conditional) {
  if (!expr_ok(k, plan, a.value) || !expr_ok(k, plan, a.guard)) return false;
  if (a.target->kind != ir::ExprKind::element)
    return a.target->kind == ir::ExprKind::var && a.target->text != plan.lin;
  if (const ir::Buffer* b = plan.allow_transposed ? plain_global(k, a.target) : nullptr) {
    std::vector<ir::ExprRef> coords(a.target->operands.begin() + 1, a.target->operands.end());
    if (at_transposed_element(plan, *b, coords)) {
      if (a.op != "=" || a.guard || conditional) return false;
      plan.transposed.insert(a.target->buffer);
      return true;
    }
  }
  const std::size_t before = plan.read.size();
  const bool had = plan.read.count(a.target->buffer) > 0;
  if (!expr_ok(k, plan, a.target)) return false;
  // A plain store reads nothing; a compound one reads the element.
  if (a.op == "=" && !had && plan.read.size() > before) plan.read.erase(a.target->buffer);
  plan.written.insert(a.target->buffer);
  if (conditional || a.guard) plan.conditional_write = true;
  return true;
}

}  // namespace

bool is_var(const ir::ExprRef& e, const std::string& name) {
  return e && e->kind == ir::ExprKind::var && e->text == name;
}

bool mentions(const ir::ExprRef& e, const std::string& name) {
  if (!e) return false;
  if (is_var(e, name)) return true;
  for (const ir::ExprRef& o : e->operands)
    if (mentions(o, name)) return true;
  return false;
}

std::int64_t threads_of(const ir::ExprRef& init) {
  std::int64_t t = 0;
  if (!init || init->kind != ir::ExprKind::binary || init->op != "+") return 0;
  const ir::ExprRef& scaled = init->operands[0];
  if (scaled->kind != ir::ExprKind::binary || scaled->op != "*" || !ir::is_const(scaled->operands[1], &t)) return 0;
  const ir::ExprRef& tid = init->operands[1];
  return tid->kind == ir::ExprKind::special && tid->text == "threadIdx.x" ? t : 0;
}

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
      if (!assign_ok(k, plan, *a, conditional)) return false;
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

std::optional<Body> take_body(const ir::Kernel& kernel, ir::Region& region, Plan& plan) {
  Body out;
  out.top = &std::get<ir::Seq>(region.body->node).body;
  auto& top = *out.top;
  while (out.at < top.size() && std::holds_alternative<ir::LineMark>(top[out.at]->node)) ++out.at;
  if (out.at + 1 >= top.size()) return std::nullopt;
  out.lin_let = std::get_if<ir::Let>(&top[out.at]->node);
  if (!out.lin_let || !out.lin_let->init) return std::nullopt;
  const std::int64_t threads = threads_of(out.lin_let->init);
  if (threads <= 0 || threads != kernel.block_threads) return std::nullopt;
  plan.lin = out.lin_let->name;
  plan.total = kernel.grid * threads;
  plan.indices[plan.lin] = IndexOf{};  // `lin` itself indexes a one-dimensional level
  out.guard = out.at + 2 == top.size() ? std::get_if<ir::If>(&top[out.at + 1]->node) : nullptr;
  if (out.guard) {
    std::int64_t total = 0;
    const ir::ExprRef& c = out.guard->condition;
    if (out.guard->else_branch || c->kind != ir::ExprKind::binary || c->op != "<" || !is_var(c->operands[0], plan.lin) ||
        !ir::is_const(c->operands[1], &total))
      return std::nullopt;
    plan.total = total;
    out.body = std::move(std::get<ir::Seq>(out.guard->then_branch->node).body);
  } else {
    for (std::size_t i = out.at + 1; i < top.size(); ++i) out.body.push_back(std::move(top[i]));
    top.resize(out.at + 1);
  }
  return out;
}

void Body::give_back() {
  if (guard) std::get<ir::Seq>(guard->then_branch->node).body = std::move(body);
  else
    for (auto& s : body) top->push_back(std::move(s));
}

ir::Region* only_flat_region(ir::Kernel& kernel) {
  if (kernel.grid_stride || kernel.abi.runtime_grid.dynamic() || kernel.cooperative || kernel.cluster_blocks)
    return nullptr;
  auto& top = std::get<ir::Seq>(kernel.body->node).body;
  ir::Region* flat = nullptr;
  for (auto& s : top) {
    if (std::holds_alternative<ir::LineMark>(s->node) || std::holds_alternative<ir::Comment>(s->node)) continue;
    auto* r = std::get_if<ir::Region>(&s->node);
    if (!r || r->mapping != ir::Mapping::flat || flat) return nullptr;  // one flat level and nothing else
    flat = r;
  }
  return flat;
}

int flat_view(ir::Kernel& kernel, int b, std::int64_t total) {
  ir::Buffer view = kernel.buffers[static_cast<std::size_t>(b)];
  view.dims = {ir::Extent{total, ""}};
  view.alias_of = b;
  view.argument = -1;
  kernel.buffers.push_back(view);
  return static_cast<int>(kernel.buffers.size()) - 1;
}

int local_registers(ir::Kernel& kernel, const std::string& base, DType dtype, std::vector<ir::Extent> dims,
                    std::int64_t chunk) {
  ir::Buffer regs;
  regs.name = kernel.fresh(base);
  regs.dtype = dtype;
  regs.dims = std::move(dims);
  regs.space = ir::Space::local;
  regs.align_bytes = static_cast<int>(std::min<std::int64_t>(16, chunk * static_cast<std::int64_t>(dtype_size(dtype))));
  kernel.buffers.push_back(regs);
  return static_cast<int>(kernel.buffers.size()) - 1;
}

std::string base_name(std::string name) {
  for (const char* prefix : {"arg_", "croq_"})
    if (name.rfind(prefix, 0) == 0) return name.substr(std::string(prefix).size());
  return name;
}

}  // namespace croq::passes::flat
