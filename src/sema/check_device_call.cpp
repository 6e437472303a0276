// `call f(args)` (a statement or a value) and `f(args)` of a C++ function
// the source defines with `__device__` or in a `__cok__ { }` block. The
// generated CUDA calls it by name, so the name must be one the source
// defines (the frontend collected them: Program::find_device_function);
// its C++ body is NVRTC's to check. Here: where the call stands, what each
// argument passes (a tile's element pointer or a number), the template
// arguments (types and constants) and, for a value, the C++ return type.
// The result is a DeviceCall fact that lowering reads.
#include <algorithm>

#include "frontend/frontend.hpp"
#include "sema/checker.hpp"

namespace croq::sema::detail {

namespace {

// The element type a C++ scalar type name stands for (template arguments,
// return types); false for the names libcroqjit does not map.
bool cxx_scalar_dtype(const std::string& name, DType& out) {
  static const std::pair<const char*, DType> names[] = {
      {"int", DType::s32},      {"unsigned", DType::u32}, {"float", DType::f32},
      {"double", DType::f64},   {"half", DType::f16},     {"__half", DType::f16},
      {"int32_t", DType::s32},  {"uint32_t", DType::u32}, {"int64_t", DType::s64},
      {"uint64_t", DType::u64}, {"__nv_bfloat16", DType::bf16}};
  for (const auto& [n, t] : names)
    if (name == n) {
      out = t;
      return true;
    }
  return false;
}

}  // namespace

Type ExpressionChecker::cxx_call(const SourceLocation& at, const frontend::ast::DeviceCode::Function& callee,
                                 const ExprList& template_args, const ExprList& args, bool value_wanted,
                                 const void* key) {
  call_placement(at, callee.name, "__device__", value_wanted, callee.return_type);
  const std::string called = "`call " + callee.name + "`";
  DeviceCall fact;
  fact.callee = callee.name;
  if (value_wanted) {
    if (callee.return_type == "void")
      fail(Rule::call_no_value, at, "`" + callee.name + "` returns `void`; " + called + " has no value",
           "call it as a statement: `call " + callee.name + "(...);`");
    DType result;
    if (!cxx_scalar_dtype(callee.return_type, result))
      fail(Rule::unsupported_call, at,
           "the value of " + called + (callee.return_type.empty() ? "" : ", of C++ type `" + callee.return_type + "`,") +
               " is not supported yet by libcroqjit",
           "return int, unsigned, float, double or half, or call it as a statement");
    fact.result = result;
  }
  for (const auto& arg : template_args) {
    const auto* n = std::get_if<Name>(&arg->node);
    DType dtype;
    if (n && !lookup(n->name) && (parse_dtype(n->name, dtype) || cxx_scalar_dtype(n->name, dtype))) {
      fact.template_types.push_back(std::string(dtype_name(dtype)));
      continue;
    }
    if (n && !lookup(n->name) && !cx_.program_.defines.count(n->name))
      fail(Rule::call_argument, arg->location,
           "template argument `" + n->name + "` of " + called + " is neither a type nor a value",
           "pass an element type (f32, s32, ...), a C++ scalar type (int, float, ...) or an integer constant");
    constant(*arg, what::template_argument);
    fact.template_types.emplace_back();
  }
  device_arguments(called, args, fact);
  Type out;
  if (value_wanted) {
    out.kind = Kind::scalar;
    out.number = is_floating(*fact.result) ? Number::float_ : Number::int_;
    out.known = Known::at_run_time;
  }
  if (!cx_.trial_) cx_.out_.device_calls[key] = std::move(fact);
  return out;
}

void ExpressionChecker::device_arguments(const std::string& called, const ExprList& args, DeviceCall& fact) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Expr& arg = *args[i];
    Type v = expr(arg);
    require_ok(v);
    // A register fragment or an accumulator passes by reference: the
    // calling thread's own registers of it, in their layout (Croqtile's
    // `(float*)values`).
    const Accumulator* acc = v.kind == Kind::accumulator ? v.accumulator : nullptr;
    if ((acc && !acc->warp && acc->dtype == DType::f32 && acc->array_dims.empty()) ||
        (v.kind == Kind::tensor && v.buffer && v.buffer->fragment)) {
      fact.pointers.push_back(true);
      continue;
    }
    if (v.kind == Kind::accumulator) {
      limitation(Rule::unsupported_call, arg.location,
                 "argument " + std::to_string(i + 1) + " of " + called + " is " +
                     (!acc ? std::string("an mma accumulator")
                      : acc->warp ? std::string("a warp's mma accumulator")
                      : !acc->array_dims.empty() ? std::string("an array of mma accumulators")
                                                 : "an mma accumulator of " + std::string(dtype_name(acc->dtype))) +
                     " (`" + text(arg) + "`); passing it to a __device__ function is not supported yet by libcroqjit "
                     "(a warpgroup's f32 accumulator passes)",
                 "store it into a shared or local tile and pass that");
      fact.pointers.push_back(false);
      continue;
    }
    // Valid Croqtile that libcroqjit cannot pass yet: mma.load operands,
    // and tiles whose elements are permuted in memory.
    if (v.kind == Kind::operand || (v.kind == Kind::tensor && v.buffer && v.buffer->swizzle > 0)) {
      limitation(Rule::unsupported_call, arg.location,
                 "argument " + std::to_string(i + 1) + " of " + called + " is " +
                     (v.kind == Kind::operand ? kind_phrase(v.kind) : std::string("a tile stored swizzled (`.swiz`)")) +
                     " (`" + text(arg) + "`); passing it to a __device__ function is not supported yet by libcroqjit",
                 "store it into a shared or local tile without `.swiz` and pass that");
      fact.pointers.push_back(false);
      continue;
    }
    if (v.kind == Kind::tensor) {
      require_selected(arg, v);
      fact.pointers.push_back(true);
      continue;
    }
    if (v.is_number()) {  // a number, an element, a bounded index: its value
      fact.pointers.push_back(false);
      continue;
    }
    fail(Rule::call_argument, arg.location,
         "argument " + std::to_string(i + 1) + " of " + called + " is " + kind_phrase(v.kind) + " (`" + text(arg) + "`); a __device__ function takes numbers and tensors",
         v.kind == Kind::future ? "pass the future's tile: `" + text(arg) + ".data`" : "pass its values one by one, as numbers",
         notes_of(v));
  }
}

Type ExpressionChecker::intrinsic_call(const Expr& e, const Call& c) {
  const std::string& name = std::get<Name>(c.callee->node).name;
  const std::string called = "intrinsic `" + name + "(...)`";
  if (cx_.parallel_depth_ == 0)
    fail(Rule::call_outside_parallel, e.location, called + " outside a parallel statement",
         "an intrinsic is device code: call it inside a parallel body");
  DeviceCall fact;
  fact.callee = name;
  device_arguments(called, c.args, fact);
  if (cx_.statement_expr_ != &e)  // nothing says what C++ type it returns
    limitation(Rule::unsupported_call, e.location,
               "the value of " + called + " is not supported yet by libcroqjit: its C++ return type is unknown",
               "call it as a statement: `" + name + "(...);`");
  if (!cx_.trial_) cx_.out_.device_calls[&c] = std::move(fact);
  Type out;
  if (cx_.statement_expr_ != &e) {
    out.kind = Kind::scalar;
    out.known = Known::at_run_time;
  }
  return out;
}

}  // namespace croq::sema::detail
