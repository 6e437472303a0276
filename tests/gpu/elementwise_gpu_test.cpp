// The vectorized element-wise kernels (passes/elementwise_pass.cpp) on the
// device: the README's add, a fused multiply-add of three tensors and a
// cast from f32, for f32, f16 and bf16, at sizes that are no multiple of the
// vector (the scalar tail) and at one that is. Random inputs, the output
// poisoned with NaN before the call, host references rounded as the kernel
// rounds (bitwise equal; the fused multiply-add either of its two orders):
// tests/common/elementwise_checks.hpp, which the interpret-mode test shares.
#include <gtest/gtest.h>

#include "common/bench_kernel_text.hpp"
#include "common/elementwise_checks.hpp"
#include "croq/croq.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {

using test::check_add;
using test::check_cast;
using test::check_fma;
using test::check_transpose;
using test::Shape2;

// ew_transpose.co (64 x 64 tiles, f32) and ew_transpose_2byte.co (128 x 128,
// f16 and bf16), several tiles each way.
TEST(GpuElementwise, TransposeThroughSharedTiles) {
  CROQ_REQUIRE_GPU();
  check_transpose<float>(test::bench_kernel_text("ew_transpose.co", "f32", "f32"), "f32", 64, 192);
  check_transpose<f16>(test::bench_kernel_text("ew_transpose_2byte.co", "f16", "f16"), "f16", 128, 256);
  check_transpose<bf16>(test::bench_kernel_text("ew_transpose_2byte.co", "f16", "bf16"), "bf16", 256, 128);
}

// 1001 x 7: a tail for every vector width; 64 x 256: none.
constexpr Shape2 kTail{1001, 7}, kWhole{64, 256};

TEST(GpuElementwise, AddEveryElementType) {
  CROQ_REQUIRE_GPU();
  for (Shape2 s : {kTail, kWhole}) {
    check_add<float>("f32", s);
    check_add<f16>("f16", s);
    check_add<bf16>("bf16", s);
  }
}

TEST(GpuElementwise, FusedMultiplyAddOfThreeTensors) {
  CROQ_REQUIRE_GPU();
  for (Shape2 s : {kTail, kWhole}) {
    check_fma<float>("f32", s);
    check_fma<f16>("f16", s);
    check_fma<bf16>("bf16", s);
  }
}

TEST(GpuElementwise, CastFromF32) {
  CROQ_REQUIRE_GPU();
  for (Shape2 s : {kTail, kWhole, Shape2{1, 3}}) {
    check_cast<bf16>("bf16", s);
    check_cast<f16>("f16", s);
  }
}

}  // namespace
}  // namespace croq
