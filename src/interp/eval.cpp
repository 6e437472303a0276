// Expressions, with the rounding and wrapping of their types, and element
// accesses with their bounds and hazard checks.
#include <array>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <string>

#include "interp/executor.hpp"
#include "ir/builder.hpp"
#include "interp/values.hpp"

namespace croq::interp {

namespace {

using Kind = ir::Type::Kind;

std::string coords_text(const std::vector<std::int64_t>& c) {
  std::string out = "[";
  for (std::size_t i = 0; i < c.size(); ++i) out += (i ? ", " : "") + std::to_string(c[i]);
  return out + "]";
}

double math1(const std::string& op, double x, bool is_double) {
  auto f = [&](double v) { return is_double ? v : static_cast<double>(static_cast<float>(v)); };
  if (op == "sqrt") return f(std::sqrt(x));
  if (op == "rsqrt") return f(1.0 / std::sqrt(x));
  if (op == "exp") return f(std::exp(x));
  if (op == "exp2") return f(std::exp2(x));
  if (op == "expm1") return f(std::expm1(x));
  if (op == "log") return f(std::log(x));
  if (op == "log1p") return f(std::log1p(x));
  if (op == "sin") return f(std::sin(x));
  if (op == "cos") return f(std::cos(x));
  if (op == "tan") return f(std::tan(x));
  if (op == "asin") return f(std::asin(x));
  if (op == "acos") return f(std::acos(x));
  if (op == "atan") return f(std::atan(x));
  if (op == "sinh") return f(std::sinh(x));
  if (op == "cosh") return f(std::cosh(x));
  if (op == "tanh") return f(std::tanh(x));
  if (op == "ceil") return std::ceil(x);
  if (op == "floor") return std::floor(x);
  if (op == "round") return std::round(x);
  if (op == "fabs") return std::fabs(x);
  if (op == "rcp") return f(1.0 / x);
  return std::nan("");
}

}  // namespace

std::int64_t Executor::extent(Thread& t, int buffer, std::size_t d) {
  const ir::Extent& x = kernel().buffers[static_cast<std::size_t>(buffer)].dims[d];
  if (!x.is_dynamic()) return x.value;
  const std::string name = "dim_" + x.dim;
  if (auto it = launch_.param_vars.find(name); it != launch_.param_vars.end()) return it->second.i;
  fault(t.line, "internal error: no value for dynamic dim `" + x.dim + "`");
}

Address Executor::element_address(Thread& t, int buffer, const Value* slot, const std::vector<std::int64_t>& coords,
                                  bool write, bool bounds) {
  const ir::Buffer& b = kernel().buffers[static_cast<std::size_t>(buffer)];
  const int root = b.alias_of >= 0 ? b.alias_of : buffer;
  Address a;
  a.dtype = b.dtype;
  std::size_t base = 0;
  const auto registers = launch_.register_buffers.find(buffer);
  if (registers != launch_.register_buffers.end()) {
    // An accumulator's registers (`apply`): sized by its mma, not by the buffer's dims.
    a.storage = &accumulator_registers(t, registers->second, 0);
    a.dtype = DType::f32;
  } else if (auto p = t.pointers.find(buffer); p != t.pointers.end()) {
    a.storage = p->second.storage;
    base = static_cast<std::size_t>(p->second.i);
  } else if (b.space == ir::Space::shared) {
    a.storage = t.block->shared[static_cast<std::size_t>(root)].get();
  } else if (b.space == ir::Space::local) {
    // A local array used before its declaration point: give it zeroed storage.
    if (!t.locals[root]) declare_local(t, root);
    a.storage = t.locals[root].get();
  } else {
    a.storage = launch_.globals[static_cast<std::size_t>(root)].get();
  }
  if (a.storage == nullptr) fault(t.line, "internal error: buffer `" + b.name + "` has no memory in interpret mode");
  std::int64_t linear = 0;
  for (std::size_t d = 0; d < coords.size(); ++d) {
    if (registers != launch_.register_buffers.end()) {
      linear = coords[d];  // one dim; the storage's end bounds it below
      if (linear < 0) fault(t.line, "out-of-bounds access of the registers of `" + shown_name(b.name) + "`");
      continue;
    }
    const std::int64_t n = d < b.dims.size() ? extent(t, buffer, d) : 1;
    if (bounds && (coords[d] < 0 || coords[d] >= n))
      fault(t.line, std::string("out-of-bounds ") + (write ? "write" : "read") + " of `" + shown_name(b.name) + "` at " +
                        coords_text(coords) + ": dimension " + std::to_string(d) + " has " + std::to_string(n) +
                        " elements");
    // A strided view's elements are its strides apart; the storage's end bounds them below.
    linear = d < b.strides.size() ? linear + coords[d] * b.strides[d] : linear * n + coords[d];
  }
  if (b.slots > 0 && slot != nullptr) {
    if (slot->i < 0 || slot->i >= b.slots)
      fault(t.line, "out-of-bounds " + std::string(write ? "write" : "read") + " of `" + shown_name(b.name) + "`: slot " +
                        std::to_string(slot->i) + " of a ring of " + std::to_string(b.slots));
    linear += slot->i * b.slot_elems;
  }
  a.offset = base + static_cast<std::size_t>(linear) * dtype_size(a.dtype);  // wraps below 0: past any storage
  if (bounds && a.offset + dtype_size(a.dtype) > a.storage->bytes)
    fault(t.line, std::string("out-of-bounds ") + (write ? "write" : "read") + " of `" + shown_name(b.name) + "` at " +
                      coords_text(coords) + ": past the end of its memory");
  return a;
}

Address Executor::element_address(Thread& t, const ir::Expr& e, bool write, bool bounds) {
  Value slot;
  const bool has_slot = e.operands[0] != nullptr;
  if (has_slot) slot = eval(t, e.operands[0]);
  std::vector<std::int64_t> coords;
  coords.reserve(e.operands.size() - 1);
  for (std::size_t i = 1; i < e.operands.size(); ++i)
    coords.push_back(as_int(e.operands[i]->type, eval(t, e.operands[i])));
  return element_address(t, e.buffer, has_slot ? &slot : nullptr, coords, write, bounds);
}

Value Executor::read(Thread& t, const Address& a) {
  const std::size_t size = dtype_size(a.dtype);
  if (a.offset + size > a.storage->bytes) fault(t.line, "out-of-bounds read of `" + shown_name(a.storage->name) + "`");
  if (a.storage->space == ir::Space::shared) {
    check_shared_read(t, a.storage, a.offset, a.offset + size);
    race_access(t, a.storage, a.offset, a.offset + size, false, a.offset / size);
  }
  return load_element(a.dtype, a.storage->data + a.offset);
}

void Executor::write(Thread& t, const Address& a, const ir::Type& from, const Value& v) {
  const std::size_t size = dtype_size(a.dtype);
  if (a.offset + size > a.storage->bytes) fault(t.line, "out-of-bounds write of `" + shown_name(a.storage->name) + "`");
  if (a.storage->space == ir::Space::shared) {
    check_shared_write(t, a.storage, a.offset, a.offset + size);
    std::array<std::byte, 16> bytes{};
    store_element(a.dtype, bytes.data(), from, v);
    const bool same_value = size <= bytes.size() && std::memcmp(bytes.data(), a.storage->data + a.offset, size) == 0;
    race_access(t, a.storage, a.offset, a.offset + size, true, a.offset / size, same_value);
  }
  store_element(a.dtype, a.storage->data + a.offset, from, v);
}

Value Executor::eval(Thread& t, const ir::ExprRef& ep) {
  const ir::Expr& e = *ep;
  switch (e.kind) {
    case ir::ExprKind::int_const: return from_int(e.type, e.value);
    case ir::ExprKind::float_literal: {
      if (e.text == "inf") return from_double(e.type, INFINITY);
      return from_double(e.type, std::strtod(e.text.c_str(), nullptr));
    }
    case ir::ExprKind::by_index_width:
      fault(t.line, "internal error: an index width was left unchosen (the index-width pass did not run)");
    // C++ code is NVRTC's: the interpreter executes tile IR only.
    case ir::ExprKind::device_call:
      fault(t.line, "interpret mode cannot run C++: `call " + e.text +
                        "` calls a __device__ function; run this kernel on the GPU, or write the function in "
                        "Croqtile as a __co_device__ function");
    case ir::ExprKind::var: {
      if (auto it = t.vars.find(e.text); it != t.vars.end()) return it->second;
      if (auto it = launch_.param_vars.find(e.text); it != launch_.param_vars.end())
        return e.type.is_float() ? from_double(e.type, it->second.f) : converted(ir::Type::i64(), e.type, it->second);
      fault(t.line, "internal error: variable `" + e.text + "` has no value in interpret mode");
    }
    case ir::ExprKind::special: {
      std::int64_t v = 0;
      if (e.text == "threadIdx.x") v = t.tid;
      else if (e.text == "blockIdx.x") v = t.block->index;
      else if (e.text == "blockDim.x") v = launch_.threads;
      else if (e.text == "gridDim.x") v = launch_.blocks;
      else if (e.text.size() > 2 && (e.text.back() == 'y' || e.text.back() == 'z')) v = e.text.rfind("Dim") != std::string::npos;
      else fault(t.line, "interpret mode does not know `" + e.text + "`");
      return from_int(e.type, v);
    }
    case ir::ExprKind::unary: {
      const Value x = eval(t, e.operands[0]);
      const ir::Type& xt = e.operands[0]->type;
      if (e.op == "!") return from_int(e.type, !as_bool(xt, x));
      if (e.op == "-") return e.type.is_float() ? from_double(e.type, -as_double(xt, x)) : from_int(e.type, -x.i);
      if (e.op == "~") return from_int(e.type, ~x.i);
      if (e.op == "+") return converted(xt, e.type, x);
      fault(t.line, "interpret mode does not know the operator `" + e.op + "`");
    }
    case ir::ExprKind::binary: return binary(t, e);
    case ir::ExprKind::select: {
      const bool c = as_bool(e.operands[0]->type, eval(t, e.operands[0]));
      const ir::ExprRef& chosen = e.operands[c ? 1 : 2];
      return converted(chosen->type, e.type, eval(t, chosen));
    }
    case ir::ExprKind::element: return read(t, element_address(t, e, false));
    case ir::ExprKind::address_of: {
      // Taking an address accesses nothing (an mma.store's tile may start
      // past a tail it then skips): the accesses through it are checked.
      const Address a = element_address(t, *e.operands[0], false, false);
      Value v;
      v.storage = a.storage;
      v.i = static_cast<std::int64_t>(a.offset);
      return v;
    }
    case ir::ExprKind::typed_zero: return from_double(e.type, std::strtod(e.text.c_str(), nullptr));
    case ir::ExprKind::zero_like: return from_int(e.type, 0);
    case ir::ExprKind::convert: return converted(e.operands[0]->type, e.type, eval(t, e.operands[0]));
    case ir::ExprKind::math: return math(t, e);
    case ir::ExprKind::atomic: return atomic(t, e);
  }
  return {};
}

Value Executor::binary(Thread& t, const ir::Expr& e) {
  const ir::Type& lt = e.operands[0]->type;
  const ir::Type& rt = e.operands[1]->type;
  if (e.op == "&&" || e.op == "||") {  // short-circuit, as C++
    const bool l = as_bool(lt, eval(t, e.operands[0]));
    if (e.op == "&&" ? !l : l) return from_int(e.type, l);
    return from_int(e.type, as_bool(rt, eval(t, e.operands[1])));
  }
  const Value lv = eval(t, e.operands[0]);
  const Value rv = eval(t, e.operands[1]);
  if (lv.storage != nullptr) {  // pointer arithmetic: p + n elements
    Value p = lv;
    p.i += (e.op == "-" ? -1 : 1) * rv.i * static_cast<std::int64_t>(dtype_size(lt.dtype));
    return p;
  }
  const bool shift = e.op == "<<" || e.op == ">>";
  const ir::Type ct = arithmetic_type(shift ? lt : ir::common_type(lt, rt));
  const Value r = arithmetic(t, e.op, ct, lt, lv, rt, rv);
  if (e.type.kind == ir::Type::Kind::boolean) return from_int(e.type, r.i);  // a comparison
  return converted(ct, e.type, r);
}

// `a op b` in type ct (the operands' common type): a value of ct, or for a
// comparison 0 or 1 in `i`.
Value Executor::arithmetic(Thread& t, const std::string& op, const ir::Type& ct, const ir::Type& lt, const Value& lv,
                           const ir::Type& rt, const Value& rv) {
  if (ct.is_float()) {
    const double a = as_double(lt, lv), b = as_double(rt, rv);
    double r = 0;
    if (op == "+") r = a + b;
    else if (op == "-") r = a - b;
    else if (op == "*") r = a * b;
    else if (op == "/") r = a / b;
    else if (op == "<") return Value{a < b};
    else if (op == ">") return Value{a > b};
    else if (op == "<=") return Value{a <= b};
    else if (op == ">=") return Value{a >= b};
    else if (op == "==") return Value{a == b};
    else if (op == "!=") return Value{a != b};
    else fault(t.line, "interpret mode does not know `" + op + "` on floats");
    return from_double(ct, r);
  }
  const Value a = converted(lt, ct, lv), b = converted(rt, ct, rv);
  const bool u = is_unsigned(ct);
  const auto ua = static_cast<std::uint64_t>(a.i), ub = static_cast<std::uint64_t>(b.i);
  std::int64_t r = 0;
  if (op == "+") r = static_cast<std::int64_t>(ua + ub);
  else if (op == "-") r = static_cast<std::int64_t>(ua - ub);
  else if (op == "*") r = static_cast<std::int64_t>(ua * ub);
  else if (op == "/" || op == "%") {
    if (b.i == 0) fault(t.line, "integer division by zero");
    if (u) r = static_cast<std::int64_t>(op == "/" ? ua / ub : ua % ub);
    else if (a.i == INT64_MIN && b.i == -1) r = op == "/" ? a.i : 0;
    else r = op == "/" ? a.i / b.i : a.i % b.i;
  } else if (op == "&") r = a.i & b.i;
  else if (op == "|") r = a.i | b.i;
  else if (op == "^") r = a.i ^ b.i;
  else if (op == "<<") r = static_cast<std::int64_t>(ua << (ub & 63));
  else if (op == ">>") r = u ? static_cast<std::int64_t>(ua >> (ub & 63)) : a.i >> (ub & 63);
  else if (op == "<") return Value{u ? ua < ub : a.i < b.i};
  else if (op == ">") return Value{u ? ua > ub : a.i > b.i};
  else if (op == "<=") return Value{u ? ua <= ub : a.i <= b.i};
  else if (op == ">=") return Value{u ? ua >= ub : a.i >= b.i};
  else if (op == "==") return Value{a.i == b.i};
  else if (op == "!=") return Value{a.i != b.i};
  else fault(t.line, "interpret mode does not know `" + op + "`");
  return normalized(ct, Value{r, 0, nullptr});
}

Value Executor::math(Thread& t, const ir::Expr& e) {
  const ir::Type& at = e.operands[0]->type;
  std::vector<Value> args;
  for (const auto& o : e.operands) args.push_back(eval(t, o));
  if (e.op == "quad_max" || e.op == "quad_sum") return quad_reduce(t, e, args[0]);
  if (e.op == "isfinite") return from_int(e.type, std::isfinite(as_double(at, args[0])));
  if (!at.is_float()) {  // max and min of integers
    const bool u = is_unsigned(at);
    const auto a = args[0].i, b = args[1].i;
    const bool less = u ? static_cast<std::uint64_t>(a) < static_cast<std::uint64_t>(b) : a < b;
    if (e.op == "max") return from_int(e.type, less ? b : a);
    if (e.op == "min") return from_int(e.type, less ? a : b);
    fault(t.line, "interpret mode does not know the integer function `" + e.op + "`");
  }
  const bool is_double = at.kind == Kind::f64 || (at.kind == Kind::element && at.dtype == DType::f64);
  const double x = as_double(at, args[0]);
  if (e.operands.size() == 1) return from_double(e.type, math1(e.op, x, is_double));
  const double y = as_double(e.operands[1]->type, args[1]);
  if (e.op == "pow") return from_double(e.type, std::pow(x, y));
  if (e.op == "atan2") return from_double(e.type, std::atan2(x, y));
  if (e.op == "max") return from_double(e.type, std::fmax(x, y));
  if (e.op == "min") return from_double(e.type, std::fmin(x, y));
  if (e.op == "fma") return from_double(e.type, std::fma(x, y, as_double(e.operands[2]->type, args[2])));
  fault(t.line, "interpret mode does not know the function `" + e.op + "`");
}

Value Executor::atomic(Thread& t, const ir::Expr& e) {
  // Fibers switch only at barriers and waits, so a read-modify-write is atomic.
  const ir::Expr& element = *e.operands[0];
  const Address a = element_address(t, element, true);
  t.atomic = true;  // not a race with other atomics (the read and the write below)
  const Value old = read(t, a);
  t.atomic = false;
  const ir::Type& et = element.type;
  auto value = [&](std::size_t i) { return converted(e.operands[i]->type, et, eval(t, e.operands[i])); };
  Value next = old;
  const ir::Type ct = arithmetic_type(et);
  if (e.op == "cas") {
    const Value compare = value(1), replacement = value(2);
    const bool equal = et.is_float() ? old.f == compare.f : old.i == compare.i;
    if (equal) next = replacement;
  } else {
    const Value v = value(1);
    if (et.is_float()) {
      const double x = old.f, y = v.f;
      if (e.op == "add") next = from_double(et, x + y);
      else if (e.op == "sub") next = from_double(et, x - y);
      else if (e.op == "exch") next = v;
      else if (e.op == "min") next = from_double(et, std::fmin(x, y));
      else if (e.op == "max") next = from_double(et, std::fmax(x, y));
      else fault(t.line, "interpret mode does not know atomic `" + e.op + "` on floats");
    } else {
      const bool u = is_unsigned(ct);
      const auto x = old.i, y = v.i;
      const bool less = u ? static_cast<std::uint64_t>(x) < static_cast<std::uint64_t>(y) : x < y;
      std::int64_t r = x;
      if (e.op == "add") r = static_cast<std::int64_t>(static_cast<std::uint64_t>(x) + static_cast<std::uint64_t>(y));
      else if (e.op == "sub") r = static_cast<std::int64_t>(static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y));
      else if (e.op == "exch") r = y;
      else if (e.op == "min") r = less ? x : y;
      else if (e.op == "max") r = less ? y : x;
      else if (e.op == "and") r = x & y;
      else if (e.op == "or") r = x | y;
      else if (e.op == "xor") r = x ^ y;
      else fault(t.line, "interpret mode does not know atomic `" + e.op + "`");
      next = converted(ct, et, Value{r, 0, nullptr});
    }
  }
  t.atomic = true;
  write(t, a, et, next);
  t.atomic = false;
  return old;
}

}  // namespace croq::interp
