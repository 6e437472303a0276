// Interpret mode: f32 -> fp8 conversions in a kernel round as the device's
// cvt.rn.satfinite does (tests/common/fp8_rounding_cases.hpp): ties to
// even, subnormal ties, saturation past the largest finite (e5m2 too,
// where the host type f8_e5m2 gives inf), NaN.
#include <gtest/gtest.h>

#include "common/fp8_rounding_cases.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretFp8Rounding, TiesToEvenAndSaturationAsTheDevice) {
  croq::Kernel kernel = croq::test::interpreted(croq::test::fp8_rounding_source(croq::test::fp8_rounding_cases().size()));
  EXPECT_EQ(croq::test::fp8_rounding_mismatches(kernel), "");
}

}  // namespace
