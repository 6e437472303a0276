// The exact ArgumentError text for each host-side TMA misuse the Hopper
// issue names (base and stride alignment, box limits, innermost box bytes
// against 16 bytes and the swizzle span), in the form a kernel call reports
// it: "argument N 'name' (tma.copy of 'name' at L:C): <rule and value>".
// tensor_map_test.cpp covers every rule by fragments; this pins whole
// messages. No driver is needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "croq/error.hpp"
#include "jit/tensor_map.hpp"

namespace croq::jit {
namespace {

// f16 [256, 128], 64 x 64 box, 128B swizzle: valid until a case changes it.
TensorMapSpec lhs_map() {
  TensorMapSpec s;
  s.dtype = DType::f16;
  s.base = reinterpret_cast<const void*>(std::uintptr_t{0x7f2000000000});
  s.dims = {256, 128};
  s.box = {64, 64};
  s.swizzle_bytes = 128;
  s.what = "argument 1 'lhs' (tma.copy of 'lhs' at 12:9)";
  return s;
}

struct MapErrorCase {
  std::string name;
  std::function<void(TensorMapSpec&)> misuse;
  std::string message;
};

void PrintTo(const MapErrorCase& c, std::ostream* os) { *os << c.name; }

class TensorMapErrors : public ::testing::TestWithParam<MapErrorCase> {};

TEST_P(TensorMapErrors, ExactMessage) {
  TensorMapSpec spec = lhs_map();
  EXPECT_NO_THROW(validate(spec));
  GetParam().misuse(spec);
  try {
    validate(spec);
    FAIL() << "validate accepted the spec";
  } catch (const ArgumentError& e) {
    EXPECT_EQ(std::string(e.what()), "argument 1 'lhs' (tma.copy of 'lhs' at 12:9): " + GetParam().message);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Host, TensorMapErrors,
    ::testing::Values(
        MapErrorCase{"BaseOff16Bytes",
                     [](TensorMapSpec& s) { s.base = reinterpret_cast<const void*>(std::uintptr_t{0x7f2000000004}); },
                     "the TMA base address 0x7f2000000004 is not 16-byte aligned"},
        MapErrorCase{"ExplicitStrideOff16Bytes", [](TensorMapSpec& s) { s.strides = {132, 1}; },
                     "the stride of dim 0 is 132 elements = 264 bytes; TMA strides must be multiples of 16 bytes"},
        MapErrorCase{"DenseStrideOff16Bytes",
                     [](TensorMapSpec& s) {
                       s.dims = {256, 100};
                       s.box = {64, 64};
                     },
                     "the dense row-major stride of dim 0 is 100 elements = 200 bytes; TMA strides must be "
                     "multiples of 16 bytes"},
        MapErrorCase{"BoxExtentOver256", [](TensorMapSpec& s) { s.box = {257, 64}; },
                     "the TMA box extent of dim 0 is 257; box extents must be 1..256"},
        MapErrorCase{"InnerBoxBytesOff16", [](TensorMapSpec& s) {
                       s.swizzle_bytes = 0;
                       s.box = {64, 20};
                     },
                     "the innermost TMA box extent is 20 elements = 40 bytes; it must be a multiple of 16 bytes"},
        MapErrorCase{"InnerBoxBytesOverTheSwizzleSpan", [](TensorMapSpec& s) { s.box = {64, 128}; },
                     "the innermost TMA box extent is 128 elements = 256 bytes; with a 128-byte swizzle it must be "
                     "at most 128 bytes"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace croq::jit
