// Host conversions of the sub-byte element types, and their dense packing.
#include "croq/subbyte.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include "core/minifloat.hpp"
#include "core/tensor_size.hpp"
#include "croq/error.hpp"

namespace croq {
namespace {

using E2M3 = detail::MiniFloat<2, 3, detail::Specials::finite_only>;
using E3M2 = detail::MiniFloat<3, 2, detail::Specials::finite_only>;
using E2M1 = detail::MiniFloat<2, 1, detail::Specials::finite_only>;

template <typename Int>
double integer_value(std::uint8_t bits) {
  Int v;
  v.bits = bits;
  return static_cast<int>(v);
}

// Where element i of `bits` bits starts in the dense form; whole groups of
// 8 elements first, so no bit count overflows.
struct BitPosition {
  std::size_t byte;
  unsigned shift;
};
BitPosition position(std::size_t i, std::size_t bits) {
  const std::size_t in_group = i % 8 * bits;
  return {i / 8 * bits + in_group / 8, static_cast<unsigned>(in_group % 8)};
}

}  // namespace

f6_e2m3::f6_e2m3(float v) : bits(static_cast<std::uint8_t>(E2M3::encode(v))) {}
f6_e2m3::operator float() const { return E2M3::decode(bits & 0x3fu); }
f6_e3m2::f6_e3m2(float v) : bits(static_cast<std::uint8_t>(E3M2::encode(v))) {}
f6_e3m2::operator float() const { return E3M2::decode(bits & 0x3fu); }
f4_e2m1::f4_e2m1(float v) : bits(static_cast<std::uint8_t>(E2M1::encode(v))) {}
f4_e2m1::operator float() const { return E2M1::decode(bits & 0xfu); }

double subbyte_value(DType t, std::uint8_t bits) {
  switch (t) {
    case DType::f6_e2m3: return E2M3::decode(bits & 0x3fu);
    case DType::f6_e3m2: return E3M2::decode(bits & 0x3fu);
    case DType::f4_e2m1: return E2M1::decode(bits & 0xfu);
    case DType::u6: return integer_value<u6>(bits);
    case DType::s6: return integer_value<s6>(bits);
    case DType::u4: return integer_value<u4>(bits);
    case DType::s4: return integer_value<s4>(bits);
    case DType::u2: return integer_value<u2>(bits);
    case DType::s2: return integer_value<s2>(bits);
    case DType::u1: return integer_value<u1>(bits);
    case DType::bin1: return integer_value<bin1>(bits);
    default: throw Error("croq::subbyte_value: " + std::string(dtype_name(t)) + " is not a sub-byte type");
  }
}

namespace {

// The inputs of pack_elements / unpack_elements: a real type, a count whose
// bytes have a 64-bit size, and both buffers when there is anything to move.
void check_packing(const char* what, DType t, const void* from, std::size_t count, const void* to) {
  const std::string who = std::string("croq::") + what;
  if (std::string problem = detail::dtype_problem(t); !problem.empty()) throw ArgumentError(who + ": " + problem);
  if (count > static_cast<std::size_t>(INT64_MAX) / dtype_size(t))
    throw ArgumentError(who + ": " + std::to_string(count) + " elements of " + std::string(dtype_name(t)) +
                        " hold more bytes than a 64-bit size can count (2^63 - 1)");
  if (count > 0 && (from == nullptr || to == nullptr))
    throw ArgumentError(who + ": null " + (from == nullptr ? "source" : "destination") + " pointer for " +
                        std::to_string(count) + " elements");
}

}  // namespace

void pack_elements(DType t, const void* elements, std::size_t count, void* packed) {
  check_packing("pack_elements", t, elements, count, packed);
  if (!is_subbyte(t)) {
    std::memcpy(packed, elements, count * dtype_size(t));
    return;
  }
  const auto* in = static_cast<const std::uint8_t*>(elements);
  auto* out = static_cast<std::uint8_t*>(packed);
  const std::size_t bits = static_cast<std::size_t>(dtype_bits(t));
  const unsigned mask = (1u << bits) - 1;
  std::memset(out, 0, packed_bytes(t, count));
  for (std::size_t i = 0; i < count; ++i) {
    const BitPosition at = position(i, bits);
    // An element spans at most two bytes (6 bits from bit 4 or 6, say).
    const unsigned value = (in[i] & mask) << at.shift;
    out[at.byte] = static_cast<std::uint8_t>(out[at.byte] | (value & 0xffu));
    if (value > 0xffu) out[at.byte + 1] = static_cast<std::uint8_t>(out[at.byte + 1] | (value >> 8));
  }
}

void unpack_elements(DType t, const void* packed, std::size_t count, void* elements) {
  check_packing("unpack_elements", t, packed, count, elements);
  if (!is_subbyte(t)) {
    std::memcpy(elements, packed, count * dtype_size(t));
    return;
  }
  const auto* in = static_cast<const std::uint8_t*>(packed);
  auto* out = static_cast<std::uint8_t*>(elements);
  const std::size_t bits = static_cast<std::size_t>(dtype_bits(t));
  const unsigned mask = (1u << bits) - 1;
  const std::size_t bytes = packed_bytes(t, count);
  for (std::size_t i = 0; i < count; ++i) {
    const BitPosition at = position(i, bits);
    unsigned window = in[at.byte];
    if (at.byte + 1 < bytes) window |= static_cast<unsigned>(in[at.byte + 1]) << 8;
    out[i] = static_cast<std::uint8_t>((window >> at.shift) & mask);
  }
}

}  // namespace croq
