#include "interp/values.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/element_bytes.hpp"
#include "croq/subbyte.hpp"

namespace croq::interp {

namespace {

using Kind = ir::Type::Kind;

template <typename T>
T read_as(const std::byte* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return v;
}


// An integer wrapped to a dtype's width (two's complement).
std::int64_t wrapped_to(DType t, std::int64_t i) {
  switch (t) {
    case DType::s8: return static_cast<std::int8_t>(i);
    case DType::u8: return static_cast<std::uint8_t>(i);
    case DType::s16: return static_cast<std::int16_t>(i);
    case DType::u16: return static_cast<std::uint16_t>(i);
    case DType::s32: return static_cast<std::int32_t>(i);
    case DType::u32: return static_cast<std::uint32_t>(i);
    case DType::s6: return static_cast<int>(croq::s6(i));
    case DType::u6: return static_cast<int>(croq::u6(i));
    case DType::s4: return static_cast<int>(croq::s4(i));
    case DType::u4: return static_cast<int>(croq::u4(i));
    case DType::s2: return static_cast<int>(croq::s2(i));
    case DType::u2: return static_cast<int>(croq::u2(i));
    case DType::u1: return static_cast<int>(croq::u1(i));
    case DType::bin1: return i != 0 ? 1 : 0;
    default: return i;  // s64, u64 (as its bits)
  }
}

// A float converted to an integer type as a C-style cast does (toward
// zero); NaN and out-of-range values, undefined in C++, saturate.
std::int64_t truncated(double d, bool is_unsigned_64) { return croq::detail::truncated_integer(d, is_unsigned_64); }

}  // namespace

std::string shown_name(const std::string& name) {
  std::string s = name.rfind("arg_", 0) == 0 ? name.substr(4) : name;
  const auto cut = s.rfind('_');
  if (cut != std::string::npos && cut > 0 && cut + 1 < s.size() &&
      s.find_first_not_of("0123456789", cut + 1) == std::string::npos)
    s.resize(cut);
  return s;
}

bool is_unsigned(const ir::Type& t) {
  if (t.kind == Kind::u32 || t.kind == Kind::boolean) return true;
  if (t.kind != Kind::element || croq::is_floating(t.dtype)) return false;
  return !croq::is_signed_integer(t.dtype);
}

ir::Type arithmetic_type(const ir::Type& t) {
  if (t.kind != Kind::element || croq::is_floating(t.dtype)) return t;
  if (croq::dtype_bits(t.dtype) < 32) return ir::Type::i32();
  return t;
}

Value normalized(const ir::Type& t, Value v) {
  switch (t.kind) {
    case Kind::i32: v.i = static_cast<std::int32_t>(v.i); break;
    case Kind::u32: v.i = static_cast<std::uint32_t>(v.i); break;
    case Kind::i64: break;
    case Kind::boolean: v.i = v.i != 0; break;
    case Kind::f32: v.f = static_cast<float>(v.f); break;
    case Kind::f64: break;
    case Kind::index: break;  // never met: the index-width pass chose i32 or i64
    case Kind::element:
      if (croq::is_floating(t.dtype)) v.f = croq::detail::rounded_to(t.dtype, v.f);
      else v.i = croq::dtype_bits(t.dtype) < 32 ? static_cast<std::int32_t>(v.i) : wrapped_to(t.dtype, v.i);
      break;
  }
  return v;
}

double as_double(const ir::Type& t, const Value& v) {
  if (t.is_float()) return v.f;
  if (is_unsigned(t) && croq::dtype_bits(t.kind == Kind::element ? t.dtype : DType::s32) == 64)
    return static_cast<double>(static_cast<std::uint64_t>(v.i));
  return static_cast<double>(v.i);
}

std::int64_t as_int(const ir::Type& t, const Value& v) {
  if (t.is_float()) return truncated(v.f, false);
  return v.i;
}

bool as_bool(const ir::Type& t, const Value& v) { return t.is_float() ? v.f != 0 : v.i != 0; }

Value from_double(const ir::Type& t, double d) {
  Value v;
  if (t.is_float()) v.f = d;
  else v.i = truncated(d, t.kind == Kind::element && t.dtype == DType::u64);
  return normalized(t, v);
}

Value from_int(const ir::Type& t, std::int64_t i) {
  Value v;
  if (t.is_float()) v.f = static_cast<double>(i);
  else v.i = i;
  return normalized(t, v);
}

Value converted(const ir::Type& from, const ir::Type& to, const Value& v) {
  if (v.storage != nullptr) return v;  // a pointer stays a pointer
  if (to.kind == Kind::boolean) return from_int(to, as_bool(from, v));
  Value out;
  if (to.is_float()) {
    out.f = as_double(from, v);
  } else if (from.is_float()) {
    out.i = truncated(v.f, to.kind == Kind::element && to.dtype == DType::u64);
  } else {
    out.i = v.i;
  }
  if (to.kind == Kind::element && !croq::is_floating(to.dtype)) {
    out.i = wrapped_to(to.dtype, out.i);
    return out;
  }
  return normalized(to, out);
}

double load_double(DType t, const std::byte* at) {
  switch (t) {
    case DType::s8: return read_as<std::int8_t>(at);
    case DType::u8: return read_as<std::uint8_t>(at);
    case DType::s16: return read_as<std::int16_t>(at);
    case DType::u16: return read_as<std::uint16_t>(at);
    case DType::s32: return read_as<std::int32_t>(at);
    case DType::u32: return read_as<std::uint32_t>(at);
    case DType::s64: return static_cast<double>(read_as<std::int64_t>(at));
    case DType::u64: return static_cast<double>(read_as<std::uint64_t>(at));
    case DType::f16: return static_cast<float>(read_as<croq::f16>(at));
    case DType::bf16: return static_cast<float>(read_as<croq::bf16>(at));
    case DType::f32: return read_as<float>(at);
    case DType::f64: return read_as<double>(at);
    case DType::f8_e4m3: return static_cast<float>(read_as<croq::f8_e4m3>(at));
    case DType::f8_e5m2: return static_cast<float>(read_as<croq::f8_e5m2>(at));
    case DType::tf32: return static_cast<float>(read_as<croq::tf32>(at));
    case DType::f8_ue8m0: return static_cast<float>(read_as<croq::f8_ue8m0>(at));
    case DType::f8_ue4m3: return static_cast<float>(read_as<croq::f8_ue4m3>(at));
    default: return croq::subbyte_value(t, read_as<std::uint8_t>(at));
  }
}

Value load_element(DType t, const std::byte* at) {
  Value v;
  if (croq::is_floating(t)) {
    v.f = load_double(t, at);
    return v;
  }
  switch (t) {
    case DType::s64: case DType::u64: v.i = read_as<std::int64_t>(at); break;
    default: v.i = static_cast<std::int64_t>(load_double(t, at)); break;
  }
  return v;
}

void store_double(DType t, std::byte* at, double d) { croq::detail::write_element(t, at, d); }

void store_element(DType t, std::byte* at, const ir::Type& from, const Value& v) {
  if (croq::is_floating(t))
    croq::detail::write_element(t, at, as_double(from, v));
  else
    croq::detail::write_element(t, at, from.is_float() ? truncated(v.f, t == DType::u64) : v.i);
}

}  // namespace croq::interp
