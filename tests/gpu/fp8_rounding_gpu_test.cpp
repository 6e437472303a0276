// On the device (sm_89 and later convert with cvt.rn.satfinite): f32 -> fp8
// conversions in a kernel give tests/common/fp8_rounding_cases.hpp's table,
// the same one the interpreter is held to (tests/interp), so a tie or an
// overflow that the two round differently shows here.
#include <gtest/gtest.h>

#include "common/fp8_rounding_cases.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(Fp8RoundingGpu, TiesToEvenAndSaturationMatchTheInterpreter) {
  CROQ_REQUIRE_HOPPER("the fp8 conversions of sm_90a");
  CompileOptions options;
  options.source_name = "fp8_rounding.co";
  Kernel kernel = compile(test::fp8_rounding_source(test::fp8_rounding_cases().size()), options);
  EXPECT_EQ(test::fp8_rounding_mismatches(kernel), "");
}

}  // namespace
}  // namespace croq
