#include "core/element_bytes.hpp"

#include <cstring>

#include "core/minifloat.hpp"

namespace croq::detail {
namespace {

template <typename T>
std::vector<std::uint8_t> bytes_of(const T& v) {
  std::vector<std::uint8_t> out(sizeof(T));
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

}  // namespace

std::vector<std::uint8_t> element_bytes(DType t, std::int64_t i) {
  switch (t) {
    case DType::bin1: return {static_cast<std::uint8_t>(i != 0)};
    case DType::u6: case DType::s6: case DType::u4: case DType::s4: case DType::u2: case DType::s2: case DType::u1:
      return {static_cast<std::uint8_t>(static_cast<std::uint64_t>(i) & ((1u << dtype_bits(t)) - 1))};
    case DType::s64: case DType::u64: return bytes_of(i);
    case DType::s32: case DType::u32: return bytes_of(static_cast<std::uint32_t>(i));
    case DType::s16: case DType::u16: return bytes_of(static_cast<std::uint16_t>(i));
    case DType::s8: case DType::u8: return bytes_of(static_cast<std::uint8_t>(i));
    default: return element_bytes(t, static_cast<double>(i));
  }
}

std::vector<std::uint8_t> element_bytes(DType t, double d) {
  switch (t) {
    // The OCP MX sub-byte floats (a byte each, the code in its low bits), as croq/subbyte.hpp encodes them.
    case DType::f6_e2m3:
      return {static_cast<std::uint8_t>(MiniFloat<2, 3, Specials::finite_only>::encode(static_cast<float>(d)))};
    case DType::f6_e3m2:
      return {static_cast<std::uint8_t>(MiniFloat<3, 2, Specials::finite_only>::encode(static_cast<float>(d)))};
    case DType::f4_e2m1:
      return {static_cast<std::uint8_t>(MiniFloat<2, 1, Specials::finite_only>::encode(static_cast<float>(d)))};
    case DType::f64: return bytes_of(d);
    case DType::f32: return bytes_of(static_cast<float>(d));
    case DType::tf32: return bytes_of(tf32(static_cast<float>(d)).bits);
    case DType::f16: return bytes_of(f16(static_cast<float>(d)).bits);
    case DType::bf16: return bytes_of(bf16(static_cast<float>(d)).bits);
    case DType::f8_e4m3: return bytes_of(f8_e4m3(static_cast<float>(d)).bits);
    case DType::f8_e5m2: return bytes_of(f8_e5m2(static_cast<float>(d)).bits);
    case DType::f8_ue8m0: return bytes_of(f8_ue8m0(static_cast<float>(d)).bits);
    case DType::f8_ue4m3: return bytes_of(f8_ue4m3(static_cast<float>(d)).bits);
    default: return element_bytes(t, static_cast<std::int64_t>(d));
  }
}

}  // namespace croq::detail
