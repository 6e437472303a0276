// Declarations of tensors and scalars: their storage, shapes and initial
// values, shared memory counted, the returned tensor (other declarations:
// check_declarations.cpp).
#include <algorithm>
#include <utility>

#include "frontend/builtins.hpp"
#include "frontend/host_code.hpp"
#include "frontend/limits.hpp"
#include "sema/checker.hpp"
#include "support/checked_int.hpp"

namespace croq::sema::detail {

namespace {

std::string dtype_text_of(DType t) { return std::string(dtype_name(t)); }

}  // namespace

void StatementChecker::declaration(const Stmt& s, const Declaration& d) {
  if (declaration_form(s, d)) return;
  const TypeRef& t = d.type;
  if (t.kind == TypeKind::event) return c_.transfers.event_declaration(s, d);
  if (t.kind == TypeKind::element && t.has_shape) return tensor_declaration(s, d);
  if (t.kind == TypeKind::int_ || t.kind == TypeKind::bool_ || t.kind == TypeKind::auto_ || t.kind == TypeKind::element)
    return scalar_declaration(d);
  const std::string what = t.kind == TypeKind::ituple   ? "`ituple` declarations are"
                           : t.kind == TypeKind::mdspan ? "`mdspan` (named shape) declarations are"
                           : t.kind == TypeKind::void_  ? "`void` declarations are"
                                                        : "declarations of type `" + t.name + "` are";
  fail(Rule::unsupported_declaration, t.location, what + " not supported yet by libcroqjit");
}

void StatementChecker::count_shared_memory(const Declarator& decl, DType dtype,
                                  const std::vector<std::optional<std::int64_t>>& dims,
                                  std::optional<std::int64_t> slots) {
  if (!cx_.options_.target || (decl.array_size && !slots)) return;
  const std::int64_t limit = cx_.options_.target->max_shared_bytes_per_block();
  if (cx_.kernel_shared_bytes_ > limit) return;  // reported once per kernel
  std::vector<std::int64_t> extents;
  for (const auto& d : dims) {
    if (!d) return;  // known at specialization: the layout pass counts it then
    extents.push_back(*d);
  }
  extents.push_back(static_cast<std::int64_t>(dtype_size(dtype)));
  extents.push_back(slots.value_or(1));
  const auto bytes = support::checked_product(extents);
  // Tiles start 128-byte aligned (lay_out_shared_memory): a lower bound of what the kernel needs.
  const auto total = bytes ? support::checked_add(cx_.kernel_shared_bytes_, (*bytes + 127) / 128 * 128)
                           : support::CheckedInt{0, support::ArithmeticFault::overflow};
  if (total.ok() && total.value <= limit) {
    cx_.kernel_shared_bytes_ = total.value;
    return;
  }
  cx_.kernel_shared_bytes_ = limit + 1;
  fail(Rule::shared_memory_limit, decl.location,
       "`" + decl.name + "` (" + std::string(dtype_name(dtype)) + ", " +
           (bytes ? std::to_string(*bytes) : std::string("more than 2^63")) + " bytes) brings the shared memory this " +
           "kernel declares to " + (total.ok() ? std::to_string(total.value) : std::string("more than 2^63")) +
           " bytes; " + cx_.options_.target->arch + " allows " + std::to_string(limit) + " per block",
       "use smaller tiles, or fewer stages");
}

void StatementChecker::tensor_declaration(const Stmt& s, const Declaration& d) {
  const TypeRef& t = d.type;
  DType dtype;
  if (!parse_dtype(t.name, dtype))
    fail(Rule::unsupported_element_type, t.location, "element type `" + t.name + "` is not supported yet");
  std::vector<std::optional<std::int64_t>> dims;
  for (const auto& dim : t.shape) {
    ExtentsNow extents(cx_.extents_now_);
    auto part = c_.expressions.shape_dims(*dim);
    dims.insert(dims.end(), part.begin(), part.end());
  }
  const int rank = static_cast<int>(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] && *dims[i] <= 0)
      fail(Rule::extent_positive, t.location,
           "extent " + std::to_string(i) + " of the tensor is " + std::to_string(*dims[i]) + "; extents are positive");
  (void)s;
  const bool inside = cx_.parallel_depth_ > 0;
  if ((t.storage == Storage::shared || t.storage == Storage::local) && !inside)
    fail(Rule::storage_scope, t.location,
         std::string(t.storage == Storage::shared ? "shared" : "local") +
             " tensors are declared inside a parallel statement",
         "move the declaration into the parallel body that uses it");
  if (t.storage == Storage::global && inside)
    fail(Rule::storage_scope, t.location, "global tensors are declared outside parallel statements",
         "declare it at function scope, or make it `shared` or `local`");
  for (const Declarator& decl : d.declarators) {
    cx_.require_new_name(decl.name, decl.location);
    const std::optional<Buffer::Initial> initial = tensor_initial(decl, t.storage);
    Type v;
    v.kind = Kind::tensor;
    v.rank = rank;
    v.dims = dims;
    std::optional<std::int64_t> slots;
    if (decl.array_size) {
      if (cx_.has_output_ && decl.name == cx_.out_.returned)
        limitation(Rule::buffer_array_not_shared, decl.location,
                   "the returned tensor `" + decl.name + "` is one buffer, not an array of them",
                   "declare the array under another name and copy its result into the returned tensor");
      slots = c_.expressions.constant(*decl.array_size, what::buffer_count);
      if (Verdict broken = slots ? buffer_array_size(*slots) : std::nullopt) fail(decl.array_size->location, std::move(*broken));
    }
    if (t.storage == Storage::shared || t.storage == Storage::local) {
      v.buffer = cx_.new_buffer(decl.name, dtype, rank, t.storage == Storage::shared ? Space::shared : Space::local, decl.location);
      v.buffer->is_array = decl.array_size != nullptr;
      v.buffer->slots = slots;
    } else if (cx_.has_output_ && decl.name == cx_.out_.returned) {
      if (cx_.output_declared_) {
        cx_.output_dtype_ = dtype;
        cx_.output_rank_ = rank;
        if (cx_.output_rank_only_ && *cx_.output_rank_only_ != rank)
          fail(Rule::returned_declaration, decl.location,
               "`" + decl.name + "` is declared of rank " + std::to_string(rank) +
                   " but the function returns a tensor of rank " + std::to_string(*cx_.output_rank_only_) + " (`" +
                   cx_.fn_.return_type.name + " mdspan<" + std::to_string(*cx_.output_rank_only_) + ">`)",
               "declare the returned tensor with " + std::to_string(*cx_.output_rank_only_) + " dims");
      }
      if (Verdict broken = returned_declaration(decl.name, dtype_text_of(dtype) + " of rank " + std::to_string(rank),
                                                 dtype_text_of(cx_.output_dtype_) + " of rank " + std::to_string(cx_.output_rank_)))
        fail(decl.location, {broken->rule, broken->message, "declare the returned tensor with the function's return type"});
      v.buffer = cx_.new_buffer(decl.name, dtype, rank, Space::global, decl.location);
      v.buffer->returned = true;
    } else if ((t.storage == Storage::global || t.storage == Storage::none) && cx_.scope_ == Scope::kernel) {
      // A buffer of the program, allocated by the runtime for each call
      // (at function scope, tensors are global without saying so).
      v.buffer = cx_.new_buffer(decl.name, dtype, rank, Space::global, decl.location);
      v.buffer->declared_global = t.storage == Storage::global;
      // An array is one allocation of its buffers, a slot each.
      v.buffer->is_array = decl.array_size != nullptr;
      v.buffer->slots = slots;
    } else {
      // Checked on as a global buffer: its uses may break rules of their own.
      limitation(Rule::unsupported_global_tensor, decl.location,
                 "global tensors other than the returned one are not supported yet",
                 "declare it `global` at function scope, `shared` or `local`, or return it");
      v.buffer = cx_.new_buffer(decl.name, dtype, rank, Space::global, decl.location);
      v.buffer->is_array = decl.array_size != nullptr;
      v.buffer->slots = slots;
    }
    for (const auto& dim : t.shape) v.buffer->shape.push_back(dim.get());
    v.buffer->dims = dims;
    v.buffer->initial = initial;
    // Lowering allocates the buffer from these facts (and applies its own
    // limits to a shape sema found too large for the target).
    if (!cx_.trial_) cx_.out_.declared_buffers[&decl] = v.buffer;
    if (t.storage == Storage::shared) count_shared_memory(decl, dtype, dims, slots);
    if (v.buffer && !decl.more_array_dims.empty()) {
      v.buffer->array_dims.push_back(slots);
      for (const ExprPtr& size : decl.more_array_dims) v.buffer->array_dims.push_back(c_.expressions.constant(*size, "an array size"));
    }
    define(decl.name, v, Origin::declaration, decl.location);
  }
}

void StatementChecker::scalar_declaration(const Declaration& d) {
  const TypeRef& t = d.type;
  Number number = t.kind == TypeKind::bool_ ? Number::bool_ : Number::int_;
  if (t.kind == TypeKind::element) {
    DType dtype;
    if (!frontend::scalar_dtype(t.name, dtype))
      fail(Rule::unsupported_element_type, t.location, "element type `" + t.name + "` is not supported yet");
    number = is_floating(dtype) ? Number::float_ : Number::int_;
  }
  for (const Declarator& decl : d.declarators) {
    cx_.require_new_name(decl.name, decl.location);
    if (!decl.init_values.empty()) no_string_or_pointer(decl.name, *decl.init_values[0]);
    // `x = call f()`: a device function's value, known when it runs, of a
    // type the call does not say.
    if (const auto* c = decl.init_values.empty() ? nullptr : std::get_if<Call>(&decl.init_values[0]->node);
        c && c->with_call_keyword) {
      if (t.kind == TypeKind::auto_)
        fail(Rule::declaration_type, decl.location,
             "cannot tell the type of `" + decl.name + "` from `" + text(*decl.init_values[0]) + "`",
             "give it a type: `mutable int " + decl.name + " = ...;`");
      if (!t.is_mutable && t.kind != TypeKind::element)
        fail(Rule::declaration_init, decl.init_values[0]->location,
             "`" + decl.name + "` is immutable, but `" + text(*decl.init_values[0]) +
                 "` is known only when the kernel runs",
             "declare it `mutable " + t.name + " " + decl.name + " = ...;`");
    }
    Type init;
    const bool has_init = !decl.init_values.empty();
    if (has_init) {
      cx_.atomic_site_ = decl.init_values[0].get();
      init = c_.expressions.expr(*decl.init_values[0]);
      require_ok(init);
      if (!init.is_number())
        fail(Rule::declaration_init, decl.init_values[0]->location,
             "`" + text(*decl.init_values[0]) + "` is " + kind_phrase(init.kind) + "; `" + decl.name +
                 "` is a scalar and takes a number",
             "", notes_of(init));
      const Expr& value = *decl.init_values[0];
      if (t.kind == TypeKind::bool_ &&
          (std::holds_alternative<IntegerLiteral>(value.node) || std::holds_alternative<FloatLiteral>(value.node)))
        fail(Rule::declaration_init, value.location,
             "`" + decl.name + "` is a bool; it is initialized with `true`, `false` or a condition, not `" +
                 text(value) + "`",
             "write `" + std::string(text(value) == "0" ? "false" : "true") + "`");
    }
    Type v;
    v.kind = Kind::scalar;
    v.number = t.kind == TypeKind::auto_ ? (init.is_float() ? Number::float_ : Number::int_) : number;
    // Immutable integers with a constant value stay constants; element-typed
    // scalars are accumulators and stay assignable.
    if (!t.is_mutable && has_init && init.kind == Kind::scalar && !init.is_float() &&
        init.known != Known::at_run_time && t.kind != TypeKind::element) {
      v.known = init.known;
      v.value = init.value;
    }
    v.immutable = !t.is_mutable && t.kind != TypeKind::element;
    define(decl.name, v, Origin::declaration, decl.location);
  }
}

}  // namespace croq::sema::detail
