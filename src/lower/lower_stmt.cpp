// Lowering of statements, declarations and the kernel's parameters.
#include "frontend/ast_walk.hpp"
#include "frontend/builtins.hpp"
#include "lower/lowering.hpp"
#include "support/checked_int.hpp"
#include "support/format.hpp"

namespace croq::lower::detail {

// ---- statements --------------------------------------------------------------

void Lowerer::block(const Stmt& s) {
  if (&s == fn_.body.get() && host_program_) return host_level(s);
  push();
  if (const auto* b = std::get_if<Block>(&s.node)) {
    const StmtList* saved_list = block_statements_;
    std::size_t saved_position = block_position_;
    block_statements_ = &b->statements;
    const std::map<int, int> saved_partials = scale_partials_;
    open_scale_partials(b->statements);
    const bool program_level = &s == fn_.body.get() && kernel_count_ > 1;
    for (block_position_ = 0; block_position_ < b->statements.size(); ++block_position_)
      if (!program_level || in_this_kernel(*b->statements[block_position_]))
        stmt(*b->statements[block_position_]);
    block_statements_ = saved_list;
    block_position_ = saved_position;
    scale_partials_ = saved_partials;
  } else {
    stmt(s);
  }
  pop();
}

void Lowerer::declaration(const Stmt& s, const Declaration& d) {
  line_mark(s.location);
  const TypeRef& t = d.type;
  if (t.kind == TypeKind::event) {
    event_declaration(s, d);
    return;
  }
  if (t.storage == Storage::frag && t.kind == TypeKind::element) return fragment_declaration(s, d);
  if (t.kind == TypeKind::element && t.has_shape) {
    // Sema's facts of each buffer: element type, space, shape operands, slots.
    for (const Declarator& decl : d.declarators)
      if (!facts_.declared_buffers.count(&decl)) unrecorded(decl.location, "a tensor declaration");
    const sema::Buffer& first = facts_.buffer(d.declarators.front());
    // Only the returned tensor may have dynamic extents (the runtime sizes it).
    const bool returned = first.returned && d.declarators.size() == 1;
    std::vector<std::int64_t> dims;
    for (const Expr* dim : first.shape) {
      std::vector<std::string> names;
      auto part = shape_of(*dim, returned ? &names : nullptr);
      dims.insert(dims.end(), part.begin(), part.end());
    }
    for (const Declarator& decl : d.declarators) {
      const sema::Buffer& b = facts_.buffer(decl);
      std::int64_t slots = 0;
      if (b.is_array) {
        if (b.returned) unchecked(decl.location, sema::Rule::buffer_array_not_shared);
        slots = b.slots ? *b.slots : const_int(*decl.array_size, sema::what::buffer_count);
        if (sema::Verdict broken = sema::buffer_array_size(slots)) fail(decl.array_size->location, *broken);
      }
      const std::vector<std::int64_t> array_dims = array_of_arrays(decl, slots);  // s[4][2]: one ring of 8 slots
      for (std::size_t k = 1; k < array_dims.size(); ++k) slots *= array_dims[k];  // bounded: lower_array.cpp
      int id = -1;
      if (b.space == sema::Space::shared || b.space == sema::Space::local) {
        id = allocate(decl.name, b.dtype, dims, b.space == sema::Space::shared ? ir::Space::shared : ir::Space::local,
                      decl.location, slots);
      } else if (b.returned) {
        if (sema::Verdict broken = sema::returned_declaration(
                decl.name, shape_text(b.dtype, dims), shape_text(kernel_.abi.output_dtype, kernel_.abi.output_shape)))
          fail(decl.location, *broken);
        id = output_;
      } else if (scope_ == Scope::kernel) {
        id = scratch_buffer(decl.name, b.dtype, dims, decl.location, slots);
      } else {
        unchecked(decl.location, sema::Rule::unsupported_global_tensor);
      }
      fill_initial(id, b, decl.location, b.initial && b.initial->computed ? expr(*b.initial->computed).expr : nullptr);
      Value v;
      v.kind = Value::Kind::view;
      v.view = whole(id);
      v.view.array_left = array_dims;
      define(decl.name, v);
    }
    return;
  }
  if (t.kind == TypeKind::int_ || t.kind == TypeKind::bool_ || t.kind == TypeKind::auto_ ||
      (t.kind == TypeKind::element && !t.has_shape)) {
    scalar_declaration(d);
    return;
  }
  if (t.kind == TypeKind::mdspan || t.kind == TypeKind::ituple) {
    for (const Declarator& decl : d.declarators) {
      if (decl.init_values.empty()) fail(decl.location, "`" + decl.name + "` needs a value");
      define(decl.name, named_value(*decl.init_values.front(), t.kind == TypeKind::mdspan));
    }
    return;
  }
  fail(s.location, "this declaration is not supported yet by libcroqjit");
}

void Lowerer::scalar_declaration(const Declaration& d) {
  const TypeRef& t = d.type;
  for (const Declarator& decl : d.declarators) {
    ir::Type type = t.kind == TypeKind::bool_ ? ir::Type::boolean() : ir::Type::i32();
    if (t.kind == TypeKind::element) {
      DType dt;
      if (!frontend::scalar_dtype(t.name, dt)) unchecked(t.location, sema::Rule::unsupported_element_type);
      note_dtype(dt);
      type = ir::Type::element(dt);
    }
    Value init;
    bool has_init = !decl.init_values.empty();
    if (has_init) {
      init = require_scalar(expr(*decl.init_values[0]), *decl.init_values[0]);
      atomic_value_in_thread(init, *decl.init_values[0]);
      if (init.guard) init.expr = ir::select(init.guard, init.expr, ir::zero_like(init.expr));
    }
    if (t.kind == TypeKind::auto_) type = has_init && init.is_float ? ir::Type::f32() : index_type();
    // Immutable integers with a constant value stay compile-time constants.
    if (!t.is_mutable && has_init && init.constant && t.kind != TypeKind::element) {
      define(decl.name, scalar_const(*init.constant));
      continue;
    }
    std::string name = fresh(decl.name);
    // `int`/`bool` are immutable unless `mutable`; element-typed scalars are
    // accumulators and stay assignable.
    bool is_const = !t.is_mutable && t.kind != TypeKind::element;
    emit_node(ir::Let{name, type, is_const, has_init ? ir::coerce(init.expr, type) : nullptr});
    Value v;
    v.expr = ir::var(name, type);
    // An element-typed scalar computes as its type: `s32 x`, `u32 order` are integers.
    v.is_float = t.kind == TypeKind::element ? type.is_float() : init.is_float;
    define(decl.name, v);
  }
}

void Lowerer::assignment(const Stmt& s, const Assignment& a) {
  // `name = <tensor expression>;` names a view (`tile_2d = f.data.span_as([8, 16]);`);
  // sema's rebindings bind a new name over an outer one (`sum = sum + x;`).
  if (const auto* n = std::get_if<Name>(&a.target->node);
      n && a.op == AssignOp::assign &&
      (facts_.rebindings.count(&a) ||
       (!lookup(n->name) && !dims_.count(n->name) && !program_.defines.count(n->name)))) {
    Value value = expr(*a.value);
    if (value.kind == Value::Kind::view || value.kind == Value::Kind::future || value.kind == Value::Kind::tuple ||
        value.kind == Value::Kind::shape) {
      define(n->name, value);
      return;
    }
    if (value.expr && value.expr->kind == ir::ExprKind::atomic) {
      atomic_value_in_thread(value, *a.value);
      value.expr = value.guard ? ir::select(value.guard, value.expr, ir::zero_like(value.expr)) : value.expr;
      value.guard = nullptr;
    }
    // `stage = iv_k % STAGES;` declares an immutable scalar (the tutorials' form);
    // a guarded element read is zero out of range.
    if (value.kind == Value::Kind::scalar && value.guard && value.expr->kind == ir::ExprKind::element) {
      value.expr = read(value);
      value.guard = nullptr;
    }
    if ((value.kind == Value::Kind::scalar || value.kind == Value::Kind::index) && !value.guard) {
      if (value.constant) {
        define(n->name, scalar_const(*value.constant));
        return;
      }
      std::string name = fresh(n->name);
      line_mark(s.location);
      // Floats are bound as f32 (f16 and bf16 widen), f64 as f64.
      const ir::Type& t = value.expr->type;
      const bool f64 = t.kind == ir::Type::Kind::f64 || (t.kind == ir::Type::Kind::element && t.dtype == DType::f64);
      ir::Type type = f64 ? ir::Type{ir::Type::Kind::f64, DType::f64} : value.is_float ? ir::Type::f32() : index_type();
      emit_node(ir::Let{name, type, true, ir::coerce(value.expr, type)}, s.location);
      Value v;
      v.expr = ir::var(name, type);
      v.is_float = value.is_float;
      v.multiple = value.multiple;
      if (value.kind == Value::Kind::index) {  // `q1 = q #- 1;`: a bounded index still, for chunkat and `#`
        v.kind = Value::Kind::index;
        v.count = value.count;
        v.count_expr = value.count_expr;
      }
      define(n->name, v);
      return;
    }
  }
  lowering_store_target_ = true;
  Value target = expr(*a.target);
  lowering_store_target_ = false;
  if (target.kind == Value::Kind::accumulator) return accumulator_update(s, a, target);
  if (target.kind == Value::Kind::view && a.op != AssignOp::assign) return tensor_arithmetic(s, a, target);
  Value value = require_scalar(expr(*a.value), *a.value);
  atomic_value_in_thread(value, *a.value);
  if (target.kind != Value::Kind::scalar || target.constant)
    unchecked(a.target->location, sema::Rule::assign_target);
  store_element(s, a.op, target,
                value.guard ? ir::select(value.guard, value.expr, ir::zero_like(value.expr)) : value.expr);
}

void Lowerer::store_element(const Stmt& s, AssignOp assign_op, const Value& target, ExprRef value_expr) {
  ExprRef guard = target.guard;
  if (target.element_of >= 0) {
    mark_written(target.element_of);
    if (assign_op != AssignOp::assign) mark_updated(target.element_of);
    // Block scope: every thread runs this statement; one store is enough.
    // Not inside `apply`, where each thread stores its own elements.
    if (scope_ != Scope::thread && !apply_ && buffer(target.element_of).space != ir::Space::local)
      guard = ir::all_of(ir::binary("==", set_.tid, ir::int_const(0)), guard);
  }
  std::string op = assign_op_name(assign_op);
  // Narrow types have no compound assignment: `t op= v` becomes
  // `t = t op v`, computed in f32 (or i32) and converted back.
  if (op != "=" && ir::is_narrow(target.expr->type)) {
    value_expr = ir::binary(op.substr(0, op.size() - 1), target.expr, value_expr);
    op = "=";
  }
  value_expr = as_type_of(value_expr, target.expr, true);
  line_mark(s.location);
  emit_node(ir::Assign{target.expr, op, value_expr, guard}, s.location);
}

// An atomic's old value exists in the one thread that ran it: at block scope
// (one thread for the block) the others would not have it.
void Lowerer::atomic_value_in_thread(const Value& v, const Expr& e) const {
  if (v.expr && v.expr->kind == ir::ExprKind::atomic && scope_ != Scope::thread)
    fail(e.location, "the value of `" + source_text(e) + "` at block scope is not supported yet by libcroqjit",
         "use it inside a thread-level parallel statement (`parallel t by N : thread`), or drop the value");
}

void Lowerer::loop(const Stmt& s, const Loop& l) {
  if (l.kind == LoopKind::with) return with_loop(s, l);
  if (l.kind == LoopKind::apply) return apply_loop(s, l);
  if (!l.bound) return foreach_bound_indices(s, l);
  std::vector<Value> bounds = counts_of(*l.bound, sema::what::loop_bound, true);
  // `foreach x in [4, 8]` (or `in t.span`): x is the tuple of one index per dimension.
  const bool one_name_for_all = l.indices.size() == 1 && bounds.size() > 1 && !l.indices[0].range && !l.tuple_name;
  if (l.indices.size() != bounds.size() && !one_name_for_all)
    unchecked(l.bound->location, sema::Rule::loop_index_count);
  // A loop that reads what was just written would otherwise wait each pass.
  ask_barrier_before_shared_read(-1);
  // A pipelined loop's stages are issued ahead: a break or continue would skip their waits.
  const bool jumps = frontend::ast::any_statement(*l.body, [](const Stmt& st) {
    return std::holds_alternative<Break>(st.node) || std::holds_alternative<Continue>(st.node) ||
           std::holds_alternative<Yield>(st.node);
  });
  // A loop of one pass has nothing to load ahead: no candidate (its loads keep their own barriers' names).
  std::optional<ir::PipelineMark> pipeline;
  if (bounds.size() == 1 && !jumps && !(bounds[0].constant && *bounds[0].constant < 2))
    pipeline = mark_pipeline_candidate(s, l);
  const int branch = jumps && scope_ == Scope::thread;  // the threads of a level may leave it apart
  thread_branches_ += branch;
  push();
  line_mark(s.location);
  std::vector<std::string> names;
  std::vector<LoopRange> ranges;
  Value tuple;
  tuple.kind = Value::Kind::tuple;
  for (std::size_t d = 0; d < bounds.size(); ++d) {
    const LoopIndex& index = l.indices[one_name_for_all ? 0 : d];
    ranges.push_back(index.range && !one_name_for_all ? loop_range(index, bounds[d].expr)
                                                      : LoopRange{ir::int_const(0), bounds[d].expr, nullptr});
    names.push_back(fresh(index.name.name));
    if (pipeline) finish_pipeline_mark(*pipeline);
    if (bounds[d].constant) fit_index(*bounds[d].constant);
    Value v;
    v.kind = Value::Kind::index;
    v.expr = ir::var(names.back(), index_type());
    v.count = bounds[d].constant ? *bounds[d].constant : 0;  // 0: a runtime bound
    tuple.elements.push_back(v);
    if (!one_name_for_all) define(index.name.name, v);
  }
  if (one_name_for_all) define(l.indices[0].name.name, tuple);
  if (l.tuple_name) define(l.tuple_name->name, tuple);  // `foreach t = {i, j} in ...`
  foreach_nest(s, *l.body, names, ranges);
  if (pipeline) attach_pipeline_mark(std::move(*pipeline), l);
  pop();
  thread_branches_ -= branch;
}

// `y(lo:hi:stride)` over a bound of `count`: y from lo below count + hi,
// stepping stride; each part may be left out (0, 0, 1). The index keeps its
// bound (#y is count).
Lowerer::LoopRange Lowerer::loop_range(const LoopIndex& index, const ExprRef& count) {
  const auto* r = std::get_if<Range>(&index.range->node);
  if (!r) fail(index.range->location, "`" + index.name.name + "(...)` takes a range `start:end:stride`");
  auto part = [&](const ExprPtr& e, const char* what) -> Value {
    Value v = require_scalar(expr(*e), *e);
    if (v.is_float) fail(e->location, std::string("the ") + what + " of a range must be an integer");
    return v;
  };
  LoopRange out{ir::int_const(0), count, nullptr};
  if (r->start) out.begin = part(r->start, "start").expr;
  if (r->end) out.end = ir::add(count, part(r->end, "end").expr);
  if (r->stride) {
    Value stride = part(r->stride, "stride");
    if (!stride.constant || *stride.constant <= 0)
      fail(r->stride->location, "the stride of a range must be a positive constant, got `" + source_text(*r->stride) + "`");
    if (*stride.constant != 1) out.step = stride.expr;
  }
  return out;
}

// The kinds of statement without a member of their own (Dispatch).
template <typename T>
void Lowerer::other_statement(const Stmt& s, const T& n) {
  if constexpr (std::is_same_v<T, Block>) {
    emit(braced(collect([&] { block(s); })));
  } else if constexpr (std::is_same_v<T, ExprStatement>) {
    // The builtins called as statements, unless the source names something so.
    if (const auto* c = std::get_if<Call>(&n.expr->node))
      if (const auto* f = std::get_if<Name>(&c->callee->node); f && !lookup(f->name)) {
        const std::string& name = f->name;
        if (name == "print" || name == "println") return print_statement(s, *c, name == "println");
        if (name == "print!" || name == "println!") return compile_time_print(s, *c);
        if (name == "reduce_max" || name == "reduce_sum" || name == "copy") return fragment_statement(s, *c, name);
        if (name == "all_reduce_sum") return all_reduce_sum(s, *c);
        if (name == "__bar_arrive" || name == "__bar_sync") return named_barrier(s, *c, name == "__bar_sync");
      }
    // A C++ call (an intrinsic, `f(x);` of a __device__ function) emits itself.
    if (const auto* c = std::get_if<Call>(&n.expr->node); c && facts_.device_calls.count(c)) {
      line_mark(s.location);
      expr(*n.expr);
      return;
    }
    Value v = require_scalar(expr(*n.expr), *n.expr);
    line_mark(s.location);
    ExprRef guard = v.guard;
    // At block scope one thread updates the element for the block; outside
    // every parallel statement, one thread of the grid. Inside `apply` each
    // thread updates with its own elements.
    if (v.expr->kind == ir::ExprKind::atomic && scope_ != Scope::thread && !apply_)
      guard = ir::all_of(ir::binary("==", set_.tid, ir::int_const(0)), guard);
    if (v.expr->kind == ir::ExprKind::atomic && scope_ == Scope::kernel)
      guard = ir::all_of(guard, ir::binary("==", ir::special("blockIdx.x"), ir::int_const(0)));
    if (guard) {
      ir::StmtList body;
      body.push_back(ir::make_stmt(ir::Eval{v.expr}, pos(s.location)));
      emit_node(ir::If{guard, ir::make_stmt(ir::Seq{std::move(body), false}), nullptr}, s.location);
    }
    else emit_node(ir::Eval{v.expr}, s.location);
  } else if constexpr (std::is_same_v<T, While>) {
    Value c = require_scalar(expr(*n.condition), *n.condition);
    line_mark(s.location);
    const int branch = scope_ == Scope::thread;  // the threads of a level may leave it apart
    thread_branches_ += branch;
    ir::StmtList body = collect([&] { block(*n.body); });
    thread_branches_ -= branch;
    emit_node(ir::While{ir::truth(c.expr), ir::make_stmt(ir::Seq{std::move(body), false})}, s.location);
  } else if constexpr (std::is_same_v<T, If>) {
    Value c = require_scalar(expr(*n.condition), *n.condition);
    line_mark(s.location);
    const int branch = scope_ == Scope::thread;  // the threads of a level may take either side
    thread_branches_ += branch;
    ir::StmtList then_body = collect([&] { block(*n.then_branch); });
    ir::StmtPtr else_stmt;
    if (n.else_branch) else_stmt = ir::make_stmt(ir::Seq{collect([&] { block(*n.else_branch); }), false});
    thread_branches_ -= branch;
    emit_node(ir::If{ir::truth(c.expr), ir::make_stmt(ir::Seq{std::move(then_body), false}), std::move(else_stmt)}, s.location);
  } else if constexpr (std::is_same_v<T, InThreads>) {
    if (n.is_async) {
      inthreads_async(s, n);
      return;
    }
    Value c = require_scalar(expr(*n.condition), *n.condition);
    std::optional<ir::ThreadSet> narrowed = inthreads_trigger_set(*n.condition);
    std::optional<ir::ThreadSet> saved = trigger_set_;
    if (narrowed) trigger_set_ = std::move(narrowed);
    ir::StmtList body;
    ++thread_branches_;  // some of the threads
    try {
      body = collect([&] { block(*n.body); });
    } catch (...) {
      trigger_set_ = std::move(saved);
      throw;
    }
    --thread_branches_;
    trigger_set_ = std::move(saved);
    emit_node(ir::If{ir::truth(c.expr), ir::make_stmt(ir::Seq{std::move(body), false}), nullptr}, s.location);
  } else if constexpr (std::is_same_v<T, Return>) {
    if (!inline_frames_.empty()) return inline_return(n);
    if (!n.value) return;
    const auto* name = std::get_if<Name>(&n.value->node);
    if (!name || name->name != output_name_)
      unchecked(n.value->location, sema::Rule::return_value);
  } else if constexpr (std::is_same_v<T, Break> || std::is_same_v<T, Continue>) {
    line_mark(s.location);
    emit_node(ir::Jump{std::is_same_v<T, Continue>}, s.location);
  } else if constexpr (std::is_same_v<T, Yield>) {
    // The thread leaves the kernel: its work for this block index ends. Where
    // one thread runs several block indices, the later ones would be lost.
    if (kernel_.grid_stride)
      fail(s.location,
           "`yield` in a kernel whose threads loop over several block indices (a block count known only at run "
           "time, or past 2^31 - 1 blocks) is not supported yet by libcroqjit",
           "give the parallel level a count known when the kernel is specialized");
    line_mark(s.location);
    ir::Jump leave;
    leave.exit_kernel = true;
    emit_node(leave, s.location);
  } else if constexpr (std::is_same_v<T, CallStatement>) {
    const Function* callee = program_.find_co_device_function(n.callee);
    line_mark(s.location);
    if (callee) inline_call(s.location, *callee, n.args, false);
    else cxx_call(s.location, &n, n.template_args, n.args);
  } else if constexpr (std::is_same_v<T, Assert>) {
    Value c = require_scalar(expr(*n.condition), *n.condition);
    if (c.constant) {
      if (!*c.constant) fail(s.location, "assertion is false for this specialization");
    } else {
      emit_node(ir::Trap{ir::truth(c.expr)}, s.location);
    }
  } else {
    fail(s.location, "this statement is not supported yet by libcroqjit");
  }
}

void Lowerer::stmt(const Stmt& s) { Dispatch::statement(*this, s); }

// ---- the kernel ----------------------------------------------------------------

void Lowerer::setup_parameters() {
  for (std::size_t i = 0; i < fn_.params.size(); ++i) {
    const Parameter& p = fn_.params[i];
    const abi::ArgSignature& a = args_[i];
    if (a.is_stream) continue;  // where kernels launch (parallel<s>), not a kernel parameter
    abi::KernelParam kp;
    kp.argument = static_cast<int>(i);
    kp.name = p.name;
    ir::Param param;
    param.name = "arg_" + p.name;
    Value v;
    if (a.is_tensor) {
      kp.kind = abi::KernelParam::Kind::tensor;
      ir::Buffer b;
      b.name = param.name;
      b.dtype = a.dtype;
      for (std::size_t d = 0; d < a.shape.size(); ++d)
        b.dims.push_back(ir::Extent{a.shape[d], a.shape[d] < 0 ? std::get<Name>(p.type.shape[d]->node).name : ""});
      b.argument = static_cast<int>(i);
      b.align_bytes = a.align_bytes;
      note_dtype(a.dtype);
      kernel_.buffers.push_back(std::move(b));
      param.buffer = static_cast<int>(kernel_.buffers.size()) - 1;
      param.type = ir::Type::element(a.dtype);
      v.kind = Value::Kind::view;
      v.view = whole(param.buffer);
    } else {
      kp.kind = a.is_integer ? abi::KernelParam::Kind::integer : abi::KernelParam::Kind::floating;
      param.type = a.is_integer ? ir::Type::i64() : ir::Type{ir::Type::Kind::f64, DType::f64};
      v.expr = ir::var(param.name, param.type);
      v.is_float = !a.is_integer;
    }
    param.kind = kp.kind;
    kernel_.params.push_back(param);
    kernel_.abi.params.push_back(kp);
    define(p.name, v);
  }
  // Dynamic dims follow the arguments, as `long long dim_NAME`.
  for (const auto& [name, where] : dynamic_) {
    abi::KernelParam kp;
    kp.kind = abi::KernelParam::Kind::dim;
    kp.name = name;
    kp.dim = where.front();
    kp.argument = kp.dim.argument;
    kernel_.abi.params.push_back(kp);
    kernel_.params.push_back(ir::Param{kp.kind, "dim_" + name, ir::Type::i64(), -1});
  }
}

void Lowerer::setup_output() {
  // A shaped return type: the runtime allocates the output and passes it last.
  const TypeRef* returned = returned_tensor_type(fn_);  // the return type, or the declaration `auto` returns
  if (!returned) return;
  abi::KernelAbi& abi = kernel_.abi;
  if (!parse_dtype(returned->name, abi.output_dtype))
    unchecked(returned->location, sema::Rule::unsupported_element_type);
  std::vector<std::string> output_dim_names;
  for (const auto& d : returned->shape) {
    std::vector<std::string> names;
    auto part = shape_of(*d, &names);
    abi.output_shape.insert(abi.output_shape.end(), part.begin(), part.end());
    output_dim_names.insert(output_dim_names.end(), names.begin(), names.end());
  }
  std::vector<std::int64_t> known;  // the output's static extents; dynamic ones are checked at launch
  for (auto x : abi.output_shape)
    if (x >= 0) known.push_back(x);
  fit_index(element_count(known));
  known.push_back(static_cast<std::int64_t>(dtype_size(abi.output_dtype)));
  if (!support::stride_product(known))
    fail(returned->location, "the returned tensor, " + shape_text(abi.output_dtype, abi.output_shape) +
                                       ", holds more bytes than a 64-bit size can count (2^63 - 1)");
  for (std::size_t d = 0; d < abi.output_shape.size(); ++d) {
    abi.output_dim_sources.push_back(abi.output_shape[d] < 0 ? dynamic_.at(output_dim_names[d]).front() : abi::DimSource{});
  }
  abi.has_output = true;
  output_name_ = returned_name(fn_);
  if (output_name_.empty()) unchecked(returned->location, sema::Rule::missing_return);
  ir::Buffer b;
  b.name = "croq_output";
  b.dtype = abi.output_dtype;
  for (std::size_t d = 0; d < abi.output_shape.size(); ++d) b.dims.push_back(ir::Extent{abi.output_shape[d], output_dim_names[d]});
  b.argument = -2;
  note_dtype(abi.output_dtype);
  kernel_.buffers.push_back(std::move(b));
  output_ = static_cast<int>(kernel_.buffers.size()) - 1;
  kernel_.params.push_back(ir::Param{abi::KernelParam::Kind::output, "croq_output", ir::Type::element(abi.output_dtype), output_});
  abi.params.push_back(abi::KernelParam{abi::KernelParam::Kind::output, -1, output_name_, {}, {}, 0});
}

namespace {

// The __global__ function's name: croq_<function>, unless that is a name the
// Hopper prelude defines at namespace scope.
std::string entry_name(const std::string& function) {
  const std::string entry = "croq_" + function;
  return entry == "croq_dev" || entry == "croq_tensor_map" ? entry + "_kernel" : entry;
}

}  // namespace

ir::Kernel Lowerer::run() {
  // Names from the source become CUDA names (croq_F, arg_P, dim_D, N_k): the
  // parser only makes identifiers, but an AST from elsewhere must not smuggle
  // other text into the kernel.
  auto require_identifier = [&](const std::string& name, const SourceLocation& where) {
    if (!support::is_identifier(name)) fail(where, "`" + name + "` is not a valid name");
  };
  require_identifier(fn_.name, fn_.location);
  for (const Parameter& p : fn_.params) require_identifier(p.name, p.location);
  for (const auto& [name, where] : dynamic_) require_identifier(name, fn_.location);
  kernel_.abi.argument_written.assign(args_.size(), false);
  kernel_.function = fn_.name;
  kernel_.entry = entry_name(fn_.name) + (kernel_count_ > 1 ? "_" + std::to_string(kernel_index_) : "");
  kernel_.abi.entry = kernel_.entry;
  kernel_.source_name = program_.source_name;
  kernel_.where = pos(fn_.location);
  for (const auto& a : args_) {
    kernel_.description +=
        " " + (a.is_tensor ? shape_text(a.dtype, a.shape) : a.is_stream ? "stream" : a.is_integer ? "int" : "float");
    if (a.is_tensor && a.align_bytes < 16) kernel_.description += " (data aligned to " + std::to_string(a.align_bytes) + " bytes)";
  }
  for (const auto& dc : program_.device_code) kernel_.device_code.push_back({dc.location.line, dc.text});
  if (!program_.device_code.empty())
    for (const auto& [name, d] : program_.defines) {
      if (d.function_like || !d.value || !support::is_identifier(name)) continue;
      const bool float_suffix = std::holds_alternative<double>(*d.value) && !d.text.empty() &&
                                (d.text.back() == 'f' || d.text.back() == 'F') && !d.from_options;
      kernel_.device_defines.push_back({name, *d.value, float_suffix, d.line});
    }
  // Dynamic dims and tensors past 2^31 - 1 elements bound no index.
  if (!dynamic_.empty()) fit_index(INT64_MAX);
  for (const abi::ArgSignature& a : args_)
    if (a.is_tensor) fit_index(element_count(a.shape));
  push();
  setup_parameters();
  setup_output();
  if (!std::get_if<Block>(&fn_.body->node)) fail(fn_.location, "the function has no body");
  kernel_.hopper = facts_.uses_hopper;
  if (facts_.named_barriers) first_barrier_id_ = next_barrier_id_ = 8;
  if (has_cooperative_level(*fn_.body)) {
    // Before the function's own buffers, so every kernel numbers them alike.
    grid_barrier_ = scratch_buffer("grid_barrier", DType::u32, {1}, fn_.location);
    mark_updated(grid_barrier_);  // the blocks count up from zero
    kernel_.buffers[static_cast<std::size_t>(grid_barrier_)].name = kernel_.params.back().name = "croq_grid_barrier";
    kernel_.abi.scratch.back().name = "the grid barrier's counter";
  }
  find_future_rings();
  if (kernel_.hopper) {
    kernel_.needs_half = kernel_.needs_bf16 = true;  // the prelude uses both
    find_overlapped_store_tiles(*fn_.body);
  }
  ir::StmtList body = collect([&] {
    block(*fn_.body);
    // No thread leaves with its committed stores still reading shared memory.
    if (committed_stores_) emit_node(ir::BulkStoreWait{false});
    // No block leaves while a peer may still write its shared memory.
    if (kernel_.cluster_shared_memory) {
      ir::Barrier last;
      last.scope = ir::Barrier::Scope::cluster;
      emit_node(std::move(last));
    }
  });
  kernel_.body = ir::make_stmt(ir::Seq{std::move(body), false});
  kernel_.largest_index = largest_index_;
  pop();
  return std::move(kernel_);
}

}  // namespace croq::lower::detail

namespace croq::lower {

int kernel_count(const frontend::ast::Function& fn) { return frontend::ast::kernel_count(fn); }

ir::Kernel lower_function(const BoundFunction& bound, const target::Target& target, std::vector<Diagnostic>& warnings,
                          int kernel) {
  return detail::Lowerer(bound, target, warnings, kernel).run();
}

}  // namespace croq::lower
