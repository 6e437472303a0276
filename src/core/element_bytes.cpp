#include "core/element_bytes.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/minifloat.hpp"
#include "croq/subbyte.hpp"

namespace croq::detail {
namespace {

template <typename T>
void put(void* at, const T& v) {
  std::memcpy(at, &v, sizeof(T));
}

}  // namespace

std::int64_t truncated_integer(double d, bool unsigned_64) {
  if (std::isnan(d)) return 0;
  if (unsigned_64) {
    if (d <= 0) return 0;
    if (d >= 18446744073709551615.0) return -1;
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(d));
  }
  if (d <= -9223372036854775808.0) return std::numeric_limits<std::int64_t>::min();
  if (d >= 9223372036854775807.0) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(d);
}

void write_element(DType t, void* at, std::int64_t i) {
  switch (t) {
    case DType::bin1: put(at, static_cast<std::uint8_t>(i != 0)); return;
    case DType::u6: case DType::s6: case DType::u4: case DType::s4: case DType::u2: case DType::s2: case DType::u1:
      put(at, static_cast<std::uint8_t>(static_cast<std::uint64_t>(i) & ((1u << dtype_bits(t)) - 1)));
      return;
    case DType::s64: case DType::u64: put(at, i); return;
    case DType::s32: case DType::u32: put(at, static_cast<std::uint32_t>(i)); return;
    case DType::s16: case DType::u16: put(at, static_cast<std::uint16_t>(i)); return;
    case DType::s8: case DType::u8: put(at, static_cast<std::uint8_t>(i)); return;
    default: write_element(t, at, static_cast<double>(i)); return;
  }
}

void write_element(DType t, void* at, double d) {
  switch (t) {
    // The OCP MX sub-byte floats (a byte each, the code in its low bits), as croq/subbyte.hpp encodes them.
    case DType::f6_e2m3:
      put(at, static_cast<std::uint8_t>(MiniFloat<2, 3, Specials::finite_only>::encode(static_cast<float>(d))));
      return;
    case DType::f6_e3m2:
      put(at, static_cast<std::uint8_t>(MiniFloat<3, 2, Specials::finite_only>::encode(static_cast<float>(d))));
      return;
    case DType::f4_e2m1:
      put(at, static_cast<std::uint8_t>(MiniFloat<2, 1, Specials::finite_only>::encode(static_cast<float>(d))));
      return;
    case DType::f64: put(at, d); return;
    case DType::f32: put(at, static_cast<float>(d)); return;
    case DType::tf32: put(at, tf32(static_cast<float>(d)).bits); return;
    case DType::f16: put(at, f16(static_cast<float>(d)).bits); return;
    case DType::bf16: put(at, bf16(static_cast<float>(d)).bits); return;
    case DType::f8_e4m3: put(at, f8_e4m3(static_cast<float>(d)).bits); return;
    case DType::f8_e5m2: put(at, f8_e5m2(static_cast<float>(rounded_to(t, d))).bits); return;
    case DType::f8_ue8m0: put(at, f8_ue8m0(static_cast<float>(d)).bits); return;
    case DType::f8_ue4m3: put(at, f8_ue4m3(static_cast<float>(d)).bits); return;
    default: write_element(t, at, truncated_integer(d, t == DType::u64)); return;
  }
}

double rounded_to(DType t, double d) {
  switch (t) {
    case DType::f32: return static_cast<float>(d);
    case DType::f64: return d;
    case DType::f16: return static_cast<float>(croq::f16(static_cast<float>(d)));
    case DType::bf16: return static_cast<float>(croq::bf16(static_cast<float>(d)));
    case DType::f8_e4m3: return static_cast<float>(croq::f8_e4m3(static_cast<float>(d)));
    case DType::f8_e5m2: {
      // The device converts with cvt.rn.satfinite (__nv_fp8_e5m2(float)):
      // past the largest finite, infinities included, it is 57344; the host
      // type rounds to inf there, as IEEE, torch and ml_dtypes do.
      const float r = static_cast<float>(croq::f8_e5m2(static_cast<float>(d)));
      return std::isinf(r) ? std::copysign(57344.0, r) : r;
    }
    case DType::tf32: return static_cast<float>(croq::tf32(static_cast<float>(d)));
    case DType::f8_ue8m0: return static_cast<float>(croq::f8_ue8m0(static_cast<float>(d)));
    case DType::f8_ue4m3: return static_cast<float>(croq::f8_ue4m3(static_cast<float>(d)));
    case DType::f6_e2m3: return static_cast<float>(croq::f6_e2m3(static_cast<float>(d)));
    case DType::f6_e3m2: return static_cast<float>(croq::f6_e3m2(static_cast<float>(d)));
    case DType::f4_e2m1: return static_cast<float>(croq::f4_e2m1(static_cast<float>(d)));
    default: return d;
  }
}

std::int64_t wrapped_to(DType t, std::int64_t i) {
  if (is_floating(t) || dtype_bits(t) >= 64) return i;
  const int bits = dtype_bits(t);
  const std::uint64_t low = static_cast<std::uint64_t>(i) & ((std::uint64_t{1} << bits) - 1);
  if (is_signed_integer(t) && (low >> (bits - 1)) != 0) return static_cast<std::int64_t>(low | (~std::uint64_t{0} << bits));
  return static_cast<std::int64_t>(low);
}

std::vector<std::uint8_t> element_bytes(DType t, std::int64_t i) {
  std::vector<std::uint8_t> out(dtype_size(t));
  write_element(t, out.data(), i);
  return out;
}

std::vector<std::uint8_t> element_bytes(DType t, double d) {
  std::vector<std::uint8_t> out(dtype_size(t));
  write_element(t, out.data(), d);
  return out;
}

}  // namespace croq::detail
