// A bound function's host statements -> host::Program.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "frontend/host_code.hpp"
#include "frontend/lexer.hpp"
#include "host/host_program.hpp"

namespace croq::host {

namespace {

using namespace frontend::ast;
using AstStmt = frontend::ast::Stmt;
using AstExpr = frontend::ast::Expr;
using host::Expr;
using host::Stmt;
using host::StmtList;

class HostLowering {
 public:
  explicit HostLowering(const bind::BoundFunction& bound) : bound_(bound), fn_(*bound.function) {
    for (const HostScalar& h : host_scalars(fn_)) {
      slot_of_site_[h.site] = static_cast<int>(program_.slots.size());
      program_.slots.push_back(h.name);
      program_.slot_is_float.push_back(h.is_float);
      program_.slot_dtype.push_back(h.dtype);
      slot_float_.push_back(h.is_float);
    }
  }

  Program run() {
    program_.launches_only = false;
    program_.function = fn_.name;
    if (returned_scalar(fn_)) program_.result = returned_scalar_dtype(fn_);
    scopes_.emplace_back();
    program_.body = statements(*fn_.body);
    return std::move(program_);
  }

 private:
  [[noreturn]] void fail(const SourceLocation& at, const std::string& message) const {
    throw CompileError({Diagnostic{Severity::error, message, at.line, at.column, std::max(1, at.length),
                                   "host code computes with numbers and scalars only", "program-host-statement"}},
                       bound_.program->source, bound_.program->source_name);
  }

  int slot(const void* site, const SourceLocation& at) const {
    auto it = slot_of_site_.find(site);
    if (it == slot_of_site_.end()) fail(at, "internal error: a host scalar without a slot");
    return it->second;
  }

  StmtList statements(const AstStmt& s) {
    StmtList out;
    statement(s, out);
    return out;
  }

  void statement(const AstStmt& s, StmtList& out) {
    std::visit([&](const auto& n) {
      using T = std::decay_t<decltype(n)>;
      if constexpr (std::is_same_v<T, Block>) {
        scopes_.emplace_back();
        for (const auto& c : n.statements) statement(*c, out);
        scopes_.pop_back();
      } else if constexpr (std::is_same_v<T, Parallel> || std::is_same_v<T, Copy>) {
        // A copy (is_host_device_work) is a kernel of its own, as a parallel statement is.
        if constexpr (std::is_same_v<T, Copy>)
          if (!is_host_device_work(s)) fail(s.location, host_statement_problem(s, true) + " is not supported in host code yet");
        out.push_back(launch(s));
      } else if constexpr (std::is_same_v<T, Declaration>) {
        for (const Declarator& d : n.declarators) {
          auto it = slot_of_site_.find(&d);
          if (it == slot_of_site_.end()) continue;  // a tensor or an event: the kernels'
          scopes_.back()[d.name] = it->second;
          if (d.init_values.empty()) {
            Value zero;
            zero.is_float = slot_float_[static_cast<std::size_t>(it->second)];
            out.push_back(assign(it->second, constant(zero, s.location.line), s.location.line));
          } else {
            out.push_back(assign(it->second, expr(*d.init_values[0]), s.location.line));
          }
        }
      } else if constexpr (std::is_same_v<T, Assignment>) {
        if (is_host_device_work(s)) return out.push_back(launch(s));  // an element store: a kernel of its own
        const auto& target = std::get<Name>(n.target->node);
        int to = -1;
        if (auto it = slot_of_site_.find(&s); it != slot_of_site_.end()) {
          to = it->second;
          scopes_.back()[target.name] = to;
        } else {
          to = find_slot(target.name, n.target->location);
        }
        ExprPtr value = expr(*n.value);
        if (n.op != AssignOp::assign) {  // `x += v` is `x = x + v`
          std::string op = assign_op_name(n.op);
          op.pop_back();
          value = binary(op, read_slot(to, s.location.line), value, s.location.line);
        }
        out.push_back(assign(to, value, s.location.line));
      } else if constexpr (std::is_same_v<T, ExprStatement>) {
        if (!is_compile_time_print(s)) out.push_back(print(s, *print_call(s)));
      } else if constexpr (std::is_same_v<T, Loop>) {
        loop(s, n, out);
      } else if constexpr (std::is_same_v<T, If>) {
        Stmt b;
        b.kind = Stmt::Kind::branch;
        b.line = s.location.line;
        b.value = expr(*n.condition);
        scopes_.emplace_back();
        b.body = statements(*n.then_branch);
        scopes_.pop_back();
        if (n.else_branch) {
          scopes_.emplace_back();
          b.other = statements(*n.else_branch);
          scopes_.pop_back();
        }
        out.push_back(std::move(b));
      } else if constexpr (std::is_same_v<T, While>) {
        Stmt w;
        w.kind = Stmt::Kind::repeat;
        w.line = s.location.line;
        w.value = expr(*n.condition);
        scopes_.emplace_back();
        w.body = statements(*n.body);
        scopes_.pop_back();
        out.push_back(std::move(w));
      } else if constexpr (std::is_same_v<T, Return>) {
        // `return NAME;` hands back the returned tensor; a returned number is the program's result.
        if (!program_.result) return;
        Stmt f;
        f.kind = Stmt::Kind::finish;
        f.line = s.location.line;
        if (n.value) f.value = expr(*n.value);
        out.push_back(std::move(f));
      } else if constexpr (std::is_same_v<T, Sync>) {
        // `sync.global` is stream order.
      } else {
        fail(s.location, host_statement_problem(s, true) + " is not supported in host code yet");
      }
    }, s.node);
  }

  // The next kernel, launched where `s` stands.
  Stmt launch(const AstStmt& s) {
    Stmt l;
    l.kind = Stmt::Kind::launch;
    l.kernel = next_kernel_++;
    l.line = s.location.line;
    return l;
  }

  // with index = {x, y} in [n, m]: x and y are host scalars, 0 outside a
  // `foreach` of them; the body runs once, in their scope.
  void with(const AstStmt& s, const Loop& l, StmtList& out) {
    scopes_.emplace_back();
    withs_.emplace_back();
    for (const WithBinding& b : with_bindings(l)) {
      std::vector<std::string> names;
      for (const WithElement& e : with_elements(b)) {
        const int to = slot(e.site, e.location);
        scopes_.back()[e.name] = to;
        withs_.back().extent[e.name] = {to, expr(*e.extent)};
        names.push_back(e.name);
        out.push_back(assign(to, constant(Value{}, s.location.line), s.location.line));
      }
      if (const Identifier* tuple = with_tuple_name(b)) withs_.back().tuple[tuple->name] = names;
    }
    for (Stmt& st : statements(*l.body)) out.push_back(std::move(st));
    withs_.pop_back();
    scopes_.pop_back();
  }

  // The slot and extent of `name`, bounded by an enclosing `with`.
  std::pair<int, ExprPtr> with_name(const Identifier& name) const {
    for (auto it = withs_.rbegin(); it != withs_.rend(); ++it)
      if (auto found = it->extent.find(name.name); found != it->extent.end()) return found->second;
    fail(name.location, "`" + name.name + "` is not bounded by a `with` around this `foreach`");
  }

  // foreach x, index: nested loops over the names of enclosing `with`s (a
  // tuple name stands for its elements), the first outermost; each is 0 again after.
  void with_loop(const AstStmt& s, const Loop& l, StmtList& out) {
    std::vector<Stmt> nest;
    for (const LoopIndex& i : l.indices) {
      std::vector<std::string> names{i.name.name};
      for (auto it = withs_.rbegin(); it != withs_.rend(); ++it)
        if (auto t = it->tuple.find(i.name.name); t != it->tuple.end()) {
          names = t->second;
          break;
        }
      for (const std::string& n : names) {
        auto [to, extent] = with_name(Identifier{i.name.location, n});
        Stmt f;
        f.kind = Stmt::Kind::loop;
        f.line = s.location.line;
        f.slot = to;
        f.value = extent;
        nest.push_back(std::move(f));
      }
    }
    std::vector<int> reset;
    for (const Stmt& f : nest) reset.push_back(f.slot);
    StmtList body = statements(*l.body);
    for (std::size_t d = nest.size(); d-- > 0;) {
      nest[d].body = std::move(body);
      body.clear();
      body.push_back(std::move(nest[d]));
    }
    for (Stmt& st : body) out.push_back(std::move(st));
    for (int to : reset) out.push_back(assign(to, constant(Value{}, s.location.line), s.location.line));
  }

  // foreach {i, j} in [n, m]: nested loops, the first index outermost.
  void loop(const AstStmt& s, const Loop& l, StmtList& out) {
    if (l.kind == LoopKind::with) return with(s, l, out);
    if (!l.bound) return with_loop(s, l, out);
    const auto& shape = std::get<ShapeList>(l.bound->node);
    scopes_.emplace_back();
    std::vector<Stmt> nest;
    for (std::size_t d = 0; d < l.indices.size(); ++d) {
      Stmt f;
      f.kind = Stmt::Kind::loop;
      f.line = s.location.line;
      f.slot = slot(&l.indices[d].name, l.indices[d].name.location);
      f.value = expr(*shape.dims[d]);
      scopes_.back()[l.indices[d].name.name] = f.slot;
      nest.push_back(std::move(f));
    }
    StmtList body = statements(*l.body);
    scopes_.pop_back();
    for (std::size_t d = nest.size(); d-- > 0;) {
      nest[d].body = std::move(body);
      body.clear();
      body.push_back(std::move(nest[d]));
    }
    for (Stmt& st : body) out.push_back(std::move(st));
  }

  Stmt print(const AstStmt& s, const Call& c) {
    Stmt p;
    p.kind = Stmt::Kind::print;
    p.line = s.location.line;
    for (const auto& a : c.args) {
      if (const auto* str = std::get_if<StringLiteral>(&a->node)) {
        std::optional<std::string> text = frontend::string_value(str->spelling);
        if (!text) fail(a->location, "`" + str->spelling + "` is not a plain string literal");
        p.parts.push_back({*text, nullptr});
      } else {
        p.parts.push_back({"", expr(*a)});
      }
    }
    const auto& name = std::get<Name>(c.callee->node).name;
    if (name == "println") p.parts.push_back({"\n", nullptr});
    return p;
  }

  int find_slot(const std::string& name, const SourceLocation& at) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto found = it->find(name); found != it->end()) return found->second;
    fail(at, "`" + name + "` is not a scalar of the host");
  }

  static Stmt assign(int slot, ExprPtr value, int line) {
    Stmt a;
    a.kind = Stmt::Kind::assign;
    a.slot = slot;
    a.value = std::move(value);
    a.line = line;
    return a;
  }

  static ExprPtr constant(Value v, int line) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::constant;
    e->constant = v;
    e->is_float = v.is_float;
    e->line = line;
    return e;
  }

  ExprPtr read_slot(int slot, int line) const {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::slot;
    e->index = slot;
    e->is_float = slot_float_[static_cast<std::size_t>(slot)];
    e->is_u64 = program_.slot_dtype[static_cast<std::size_t>(slot)] == DType::u64;
    e->line = line;
    return e;
  }

  static ExprPtr binary(std::string op, ExprPtr lhs, ExprPtr rhs, int line) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::binary;
    const bool comparison = op == "<" || op == ">" || op == "<=" || op == ">=" || op == "==" || op == "!=" ||
                            op == "&&" || op == "||";
    e->is_float = !comparison && (lhs->is_float || rhs->is_float);
    e->op = std::move(op);
    e->operands = {std::move(lhs), std::move(rhs)};
    e->line = line;
    return e;
  }

  // A name: a host scalar, a scalar argument, a bound or dynamic dim.
  ExprPtr name(const std::string& n, const SourceLocation& at) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto found = it->find(n); found != it->end()) return read_slot(found->second, at.line);
    for (std::size_t i = 0; i < fn_.params.size(); ++i) {
      if (fn_.params[i].name != n) continue;
      const abi::ArgSignature& a = bound_.args[i];
      if (a.is_tensor || a.is_stream) fail(at, "`" + n + "` is not a scalar; host code computes with scalars");
      auto e = std::make_shared<Expr>();
      e->kind = Expr::Kind::argument;
      e->index = static_cast<int>(i);
      e->is_float = !a.is_integer;
      e->line = at.line;
      return e;
    }
    if (auto it = bound_.dims.find(n); it != bound_.dims.end()) return constant(Value{false, it->second, 0}, at.line);
    if (auto it = bound_.dynamic.find(n); it != bound_.dynamic.end()) {
      auto e = std::make_shared<Expr>();
      e->kind = Expr::Kind::dim;
      e->dim = it->second.front();
      e->line = at.line;
      return e;
    }
    fail(at, "`" + n + "` is not a scalar the host knows");
  }

  ExprPtr span(const Member& m, const SourceLocation& at) const {
    const auto& object = std::get<Name>(m.object->node).name;
    return extent(object, static_cast<std::size_t>(std::get<IntegerLiteral>(m.args[0]->node).value), at);
  }

  // `|x|`: the product of the extents of tensor argument x.
  ExprPtr element_count(const Name& object, const SourceLocation& at) const {
    for (std::size_t i = 0; i < fn_.params.size(); ++i) {
      if (fn_.params[i].name != object.name || !bound_.args[i].is_tensor) continue;
      ExprPtr product = constant(Value{false, 1, 0}, at.line);
      for (std::size_t d = 0; d < bound_.args[i].shape.size(); ++d)
        product = binary("*", product, extent(object.name, d, at), at.line);
      return product;
    }
    fail(at, "`|" + object.name + "|`: host code takes the element counts of tensor arguments only");
  }

  // Extent d of tensor argument `object`.
  ExprPtr extent(const std::string& object, std::size_t d, const SourceLocation& at) const {
    for (std::size_t i = 0; i < fn_.params.size(); ++i) {
      if (fn_.params[i].name != object || !bound_.args[i].is_tensor) continue;
      if (d >= bound_.args[i].shape.size()) fail(at, "`" + object + "` has no dimension " + std::to_string(d));
      if (bound_.args[i].shape[d] >= 0) return constant(Value{false, bound_.args[i].shape[d], 0}, at.line);
      auto e = std::make_shared<Expr>();
      e->kind = Expr::Kind::dim;
      e->dim = abi::DimSource{static_cast<int>(i), static_cast<int>(d)};
      e->line = at.line;
      return e;
    }
    fail(at, "`" + object + ".span(" + std::to_string(d) + ")`: host code takes the extents of tensor arguments only");
  }

  ExprPtr expr(const AstExpr& x) const {
    if (!is_host_expression(x)) fail(x.location, "this expression is not supported in host code yet");
    const int line = x.location.line;
    return std::visit([&](const auto& n) -> ExprPtr {
      using T = std::decay_t<decltype(n)>;
      if constexpr (std::is_same_v<T, IntegerLiteral>) {
        return constant(Value{false, static_cast<std::int64_t>(n.value), 0}, line);
      } else if constexpr (std::is_same_v<T, FloatLiteral>) {
        return constant(Value{true, 0, n.value}, line);
      } else if constexpr (std::is_same_v<T, BoolLiteral>) {
        return constant(Value{false, n.value ? 1 : 0, 0}, line);
      } else if constexpr (std::is_same_v<T, Name>) {
        return name(n.name, x.location);
      } else if constexpr (std::is_same_v<T, Unary>) {
        auto e = std::make_shared<Expr>();
        e->kind = Expr::Kind::unary;
        e->op = unary_op_name(n.op);
        e->operands = {expr(*n.operand)};
        e->is_float = e->operands[0]->is_float && n.op != UnaryOp::logical_not;
        e->line = line;
        return e;
      } else if constexpr (std::is_same_v<T, Binary>) {
        return binary(binary_op_name(n.op), expr(*n.lhs), expr(*n.rhs), line);
      } else if constexpr (std::is_same_v<T, Conditional>) {
        auto e = std::make_shared<Expr>();
        e->kind = Expr::Kind::select;
        e->operands = {expr(*n.condition), expr(*n.then_value), expr(*n.else_value)};
        e->is_float = e->operands[1]->is_float || e->operands[2]->is_float;
        e->line = line;
        return e;
      } else if constexpr (std::is_same_v<T, Call>) {
        auto e = std::make_shared<Expr>();
        e->kind = Expr::Kind::call;
        e->op = std::get<Name>(n.callee->node).name;
        for (const auto& a : n.args) e->operands.push_back(expr(*a));
        e->is_float = e->op != "cdiv" && std::any_of(e->operands.begin(), e->operands.end(),
                                                      [](const ExprPtr& o) { return o->is_float; });
        e->line = line;
        return e;
      } else if constexpr (std::is_same_v<T, Member>) {
        return span(n, x.location);
      } else if constexpr (std::is_same_v<T, ElementCount>) {
        return element_count(*element_count_of(x), x.location);
      } else if constexpr (std::is_same_v<T, Convert>) {
        auto e = std::make_shared<Expr>();
        e->kind = Expr::Kind::convert;
        e->to = *converted_dtype(n);  // is_host_expression: a dtype
        e->operands = {expr(*n.operand)};
        e->is_float = is_floating(e->to);
        e->is_u64 = e->to == DType::u64;
        e->line = line;
        return e;
      } else {
        fail(x.location, "this expression is not supported in host code yet");
      }
    }, x.node);
  }

  const bind::BoundFunction& bound_;
  const Function& fn_;
  Program program_;
  std::map<const void*, int> slot_of_site_;
  std::vector<bool> slot_float_;
  std::vector<std::map<std::string, int>> scopes_;
  // The names each enclosing host `with` bounds: slot and extent, and the
  // elements of each tuple name.
  struct WithScope {
    std::map<std::string, std::pair<int, ExprPtr>> extent;
    std::map<std::string, std::vector<std::string>> tuple;
  };
  std::vector<WithScope> withs_;
  int next_kernel_ = 0;
};

}  // namespace

Program lower_host(const bind::BoundFunction& bound, int kernels) {
  if (!is_host_program(*bound.function)) {
    Program p;
    for (int k = 0; k < kernels; ++k) {
      Stmt launch;
      launch.kind = Stmt::Kind::launch;
      launch.kernel = k;
      p.body.push_back(std::move(launch));
    }
    return p;
  }
  return HostLowering(bound).run();
}

}  // namespace croq::host
