// Lowering of `with` (it binds bounded indices, 0 until a `foreach` walks
// them), `foreach` over the indices a `with` bound, the loop nest that both
// forms of `foreach` emit, and print/println.
#include <algorithm>
#include <optional>

#include "frontend/lexer.hpp"
#include "lower/lowering.hpp"

namespace croq::lower::detail {

namespace {

// The counts of a `with` bound, one per dimension: constants, dims, or
// values known only at run time (a `with` only binds, so any will do).
std::vector<Value> with_counts(const Value& v) {
  std::vector<Value> out;
  if (v.kind == Value::Kind::tuple) return v.elements;
  if (v.kind == Value::Kind::shape) {
    for (std::size_t d = 0; d < v.dims.size(); ++d) {
      if (v.dims[d] >= 0) {
        out.push_back(scalar_const(v.dims[d]));
        continue;
      }
      Value dim;
      dim.expr = ir::var("dim_" + v.dim_names[d], ir::Type::i64());
      dim.dynamic = DynamicCount{v.dim_names[d], 1, false};
      out.push_back(dim);
    }
    return out;
  }
  out.push_back(v);
  return out;
}

}  // namespace

void Lowerer::bind_with(const std::optional<Identifier>& tuple_name, const std::vector<LoopIndex>& indices,
                        bool braced, const Expr& bound) {
  std::vector<Value> counts;
  auto add = [&](const Expr& part) {
    Value v = expr(part);
    if (v.kind == Value::Kind::view || v.kind == Value::Kind::future) {
      v.kind = Value::Kind::shape;
      v.dims = shape_of(part, &v.dim_names);
    }
    if (v.kind != Value::Kind::shape && v.kind != Value::Kind::tuple) require_scalar(v, part);
    for (Value& c : with_counts(v)) counts.push_back(std::move(c));
  };
  if (const auto* list = std::get_if<ShapeList>(&bound.node)) {
    for (const auto& d : list->dims) add(*d);
  } else {
    add(bound);
  }
  auto index = [&](const Value& count) {
    Value v = scalar_const(0);  // outside a `foreach` the index is 0
    v.kind = Value::Kind::index;
    v.count = count.constant ? *count.constant : 0;
    v.count_expr = count.expr;
    return v;
  };
  Value tuple;
  tuple.kind = Value::Kind::tuple;
  if (indices.size() == 1 && counts.size() > 1 && !braced) {  // `with idx in [4, 8]`: idx is a tuple
    for (const Value& c : counts) {
      tuple.elements.push_back(index(c));
      tuple.element_names.emplace_back();
    }
    define(indices[0].name.name, tuple);
    return;
  }
  if (indices.size() != counts.size())
    fail(bound.location, std::to_string(indices.size()) + " indices but the bound has " + std::to_string(counts.size()) +
                             " dimensions");
  for (std::size_t d = 0; d < indices.size(); ++d) {
    if (indices[d].range) fail(indices[d].name.location, "range expressions in `with` are not supported yet by libcroqjit");
    define(indices[d].name.name, index(counts[d]));
    tuple.elements.push_back(*lookup(indices[d].name.name));
    tuple.element_names.push_back(indices[d].name.name);
  }
  if (tuple_name) define(tuple_name->name, tuple);
}

void Lowerer::with_loop(const Stmt& s, const Loop& l) {
  if (!l.where.empty()) unchecked(l.where.front().first.location, sema::Rule::unsupported_loop);
  push();
  bind_with(l.tuple_name, l.indices, l.braced, *l.bound);
  for (const LoopBinding& b : l.more_bindings) bind_with(b.tuple_name, b.indices, b.braced, *b.bound);
  line_mark(s.location);
  emit(braced(collect([&] { block(*l.body); })));
  pop();
}

// `foreach x, index { }`: nested loops over the named indices (a tuple's
// indices in order), outer to inner left to right.
void Lowerer::foreach_bound_indices(const Stmt& s, const Loop& l) {
  struct Walk {
    std::string name;  // the index's name in the source ("" when unnamed)
    Value index;
    std::string var;
    std::optional<LoopRange> range;  // `foreach k(1:)`: part of the index's values
  };
  std::vector<Walk> walks;
  std::vector<std::pair<std::string, Value>> tuples;  // tuple names, redefined over the loop variables
  for (const LoopIndex& i : l.indices) {
    const Value* v = lookup(i.name.name);
    if (!v || !(v->kind == Value::Kind::index || v->kind == Value::Kind::tuple))
      fail(i.name.location, "`foreach " + i.name.name + "` iterates an index that a `with` binds");
    if (v->kind == Value::Kind::index) {
      // `foreach c = a(1:)`: the body names the index c; `a` keeps its meaning.
      walks.push_back({i.local_name ? i.local_name->name : i.name.name, *v, "", std::nullopt});
      if (i.range && v->count_expr) walks.back().range = loop_range(i, v->count_expr);
      continue;
    }
    if (i.range)
      fail(i.range->location, "a range over `" + i.name.name +
                                  "`, a tuple of indices, is not supported yet by libcroqjit: range one index at a time");
    tuples.emplace_back(i.local_name ? i.local_name->name : i.name.name, *v);
    for (std::size_t e = 0; e < v->elements.size(); ++e)
      walks.push_back({e < v->element_names.size() ? v->element_names[e] : "", v->elements[e], ""});
  }
  for (const Walk& w : walks)
    if (!w.index.count_expr)
      unchecked(s.location, sema::Rule::foreach_index);
  push();
  line_mark(s.location);
  std::vector<Value> loop_values;
  for (Walk& w : walks) {
    w.var = fresh(w.name.empty() ? "i" : w.name);
    Value v;
    v.kind = Value::Kind::index;
    v.expr = ir::var(w.var, index_type());
    v.count = w.index.count;
    v.count_expr = w.index.count_expr;
    loop_values.push_back(v);
    if (!w.name.empty()) define(w.name, v);
  }
  std::size_t next = 0;
  for (auto& [name, tuple] : tuples) {
    for (Value& e : tuple.elements) e = loop_values[next++];
    define(name, tuple);
  }
  std::vector<std::string> vars;
  std::vector<LoopRange> ranges;
  for (const Walk& w : walks) {
    vars.push_back(w.var);
    ranges.push_back(w.range ? *w.range : LoopRange{ir::int_const(0), w.index.count_expr, nullptr});
  }
  foreach_nest(s, *l.body, vars, ranges);
  pop();
}

// `a op= b` of whole tensors (sema accepted it: `b` a number, or a tensor
// whose shape ends `a`'s): one loop per dim of `a`; `b`'s element is the
// one at `a`'s trailing indices. Each element is stored as `a.at(...) op= v`
// would be.
void Lowerer::tensor_arithmetic(const Stmt& s, const Assignment& a, const Value& target) {
  const View& t = target.view;
  Value value = expr(*a.value);
  const bool tile = value.kind == Value::Kind::view;
  auto plain = [](const View& v) {
    return v.pending == View::Pending::none && v.strides.empty() && v.array_left.empty() &&
           std::all_of(v.limit.begin(), v.limit.end(), [](const ExprRef& l) { return !l; });
  };
  if (!plain(t) || (tile && !plain(value.view)))
    fail(s.location, "element-wise arithmetic on a strided, pending or partial view is not supported yet by libcroqjit",
         "write the loop over its elements: `foreach {i, j} in [m, n] { t.at(i, j) += ...; }`");
  if (tile) {
    if (value.view.extent.size() > t.extent.size()) unchecked(a.value->location, sema::Rule::unsupported_tensor_arithmetic);
    auto known = [](const std::vector<std::int64_t>& extents) {
      std::vector<std::optional<std::int64_t>> dims;
      for (std::int64_t e : extents) dims.push_back(e >= 0 ? std::optional<std::int64_t>(e) : std::nullopt);
      return dims;
    };
    if (sema::Verdict v = sema::tensor_arithmetic_extents(source_text(*a.target), known(t.extent),
                                                          source_text(*a.value), known(value.view.extent)))
      fail(a.value->location, *v);
    for (std::size_t i = 1; i <= value.view.extent.size(); ++i)
      if (value.view.extent[value.view.extent.size() - i] < 0 || t.extent[t.extent.size() - i] < 0)
        fail(a.value->location,
             "element-wise arithmetic with `" + source_text(*a.value) + "` over a dynamic dim is not supported yet by "
             "libcroqjit",
             "write the loop over its elements: `foreach {i, j} in [m, n] { t.at(i, j) += ...; }`");
  } else {
    require_scalar(value, *a.value);
    atomic_value_in_thread(value, *a.value);
  }
  std::vector<std::string> vars;
  std::vector<LoopRange> ranges;
  std::vector<ExprRef> index;
  for (std::size_t d = 0; d < t.extent.size(); ++d) {
    vars.push_back(fresh("e"));
    ranges.push_back({ir::int_const(0), t.extent[d] >= 0 ? ir::int_const(t.extent[d]) : dim_expr(t.buffer, d), nullptr});
    index.push_back(ir::var(vars.back(), index_type()));
  }
  line_mark(s.location);
  ir::StmtList body = collect([&] {
    Value element;
    element.expr = element_at(t, index);
    element.element_of = t.buffer;
    ExprRef v = value.guard ? ir::select(value.guard, value.expr, ir::zero_like(value.expr)) : value.expr;
    if (tile)
      v = element_at(value.view, std::vector<ExprRef>(index.end() - static_cast<std::ptrdiff_t>(value.view.extent.size()),
                                                       index.end()));
    store_element(s, a.op, element, v);
  });
  emit_loop_nest(s, vars, ranges, std::move(body));
}

void Lowerer::foreach_nest(const Stmt& s, const Stmt& body, const std::vector<std::string>& vars,
                           const std::vector<LoopRange>& ranges) {
  const auto* body_block = std::get_if<Block>(&body.node);
  loop_bodies_.push_back(body_block ? &body_block->statements : nullptr);
  ir::StmtList nest;
  try {
    nest = collect([&] { block(body); });
  } catch (...) {
    loop_bodies_.pop_back();
    throw;
  }
  loop_bodies_.pop_back();
  emit_loop_nest(s, vars, ranges, std::move(nest));
}

void Lowerer::emit_loop_nest(const Stmt& s, const std::vector<std::string>& vars, const std::vector<LoopRange>& ranges,
                             ir::StmtList nest) {
  for (std::size_t d = vars.size(); d-- > 0;) {
    ir::For f;
    f.var = vars[d];
    f.type = index_type();
    f.begin = ranges[d].begin;
    f.end = ranges[d].end;
    f.step = ranges[d].step;
    f.body = ir::make_stmt(ir::Seq{std::move(nest), false});
    nest.clear();
    nest.push_back(ir::make_stmt(std::move(f), pos(s.location)));
  }
  for (auto& st : nest) emit(std::move(st));
}

// print(...) / println(...): one printf. At block scope one thread prints
// for the block; outside every parallel statement, one thread of the grid.
// The arguments of a print, in order: strings as text, numbers as values, a
// shape or tuple as its values in brackets or braces.
void Lowerer::print_arguments(const Call& c, const std::function<void(const std::string&)>& text,
                              const std::function<void(const Value&, const Expr&)>& value) {
  for (const auto& arg : c.args) {
    if (const auto* str = std::get_if<StringLiteral>(&arg->node)) {
      std::optional<std::string> t = frontend::string_value(str->spelling);
      if (!t) fail(arg->location, "`" + str->spelling + "` is not a plain string literal");
      text(*t);
      continue;
    }
    Value v = expr(*arg);
    if (v.kind == Value::Kind::view || v.kind == Value::Kind::future) {
      v.kind = Value::Kind::shape;
      v.dims = shape_of(*arg, &v.dim_names);
    }
    if (v.kind == Value::Kind::tuple || v.kind == Value::Kind::shape) {
      const bool shape = v.kind == Value::Kind::shape;
      text(shape ? "[" : "{");
      const std::vector<Value> parts = shape ? with_counts(v) : v.elements;
      for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) text(", ");
        value(parts[i], *arg);
      }
      text(shape ? "]" : "}");
      continue;
    }
    value(v, *arg);
  }
}

void Lowerer::print_statement(const Stmt& s, const Call& c, bool newline) {
  ir::Print p;
  auto text = [&](const std::string& t) { p.parts.push_back({t, nullptr}); };
  print_arguments(c, text, [&](const Value& v, const Expr& where) {
    require_scalar(v, where);
    p.parts.push_back({"", read(v)});
  });
  if (newline) text("\n");
  if (scope_ != Scope::thread) p.guard = ir::binary("==", set_.tid, ir::int_const(0));
  if (scope_ == Scope::kernel) p.guard = ir::all_of(p.guard, ir::binary("==", ir::special("blockIdx.x"), ir::int_const(0)));
  line_mark(s.location);
  emit_node(std::move(p), s.location);
}

// `print!(...)` / `println!(...)`: printed while the kernel is compiled, not
// run, as a note. A value known then (a constant, a shape's dims at this
// specialization) prints as itself; one computed at run time as
// `(run-time value)`.
void Lowerer::compile_time_print(const Stmt& s, const Call& c) {
  std::string out;
  print_arguments(
      c, [&](const std::string& t) { out += t; },
      [&](const Value& v, const Expr&) {
        out += v.constant && !v.is_float ? std::to_string(*v.constant) : std::string("(run-time value)");
      });
  while (!out.empty() && out.back() == '\n') out.pop_back();  // a note is one message
  note(s, out);
}

}  // namespace croq::lower::detail
