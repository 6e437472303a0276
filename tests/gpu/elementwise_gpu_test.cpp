// The vectorized element-wise kernels (passes/elementwise_pass.cpp) on the
// device: the README's add, a fused multiply-add of three tensors and a
// cast from f32, for f32, f16 and bf16, at sizes that are no multiple of the
// vector (the scalar tail) and at one that is. Random inputs, the output
// poisoned with NaN before the call, host references rounded as the kernel
// rounds (bitwise equal; the fused multiply-add either of its two orders):
// tests/common/elementwise_checks.hpp, which the interpret-mode test shares.
#include <gtest/gtest.h>

#include <cstdint>

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

// The plain transpose (ew_transpose.co) through the tile_transposes pass:
// 64 x 64 tiles of f32, 128 x 128 of f16 and bf16, whole and past the edges.
TEST(GpuElementwise, TransposeThroughSharedTiles) {
  CROQ_REQUIRE_GPU();
  for (Shape2 s : {Shape2{64, 192}, Shape2{1000, 1030}, Shape2{192, 67}}) {
    SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n));
    check_transpose<float>(test::bench_kernel_text("ew_transpose.co", "f32", "f32"), "f32", s.m, s.n);
  }
  for (Shape2 s : {Shape2{128, 256}, Shape2{1000, 1030}, Shape2{300, 129}, Shape2{130, 256}}) {
    SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n));
    check_transpose<f16>(test::bench_kernel_text("ew_transpose.co", "f32", "f16"), "f16", s.m, s.n);
    check_transpose<bf16>(test::bench_kernel_text("ew_transpose.co", "f32", "bf16"), "bf16", s.n, s.m);
  }
}

// Rows of x off a 16-byte chunk, rows of y off one, both, with tails in M
// and N, for every element size (tests/interp/transpose_windows_interp_test.cpp
// runs the same shapes in interpret mode): window chunks dealt over the block.
TEST(GpuElementwise, TransposeRowsOffAChunkEveryElementSize) {
  CROQ_REQUIRE_GPU();
  auto source = [](const char* element) { return test::bench_kernel_text("ew_transpose.co", "f32", element); };
  for (Shape2 s : {Shape2{128, 130}, Shape2{130, 128}, Shape2{131, 133}, Shape2{1000, 1027}})
    check_transpose<float>(source("f32"), "f32", s.m, s.n);
  for (Shape2 s : {Shape2{128, 259}, Shape2{259, 128}, Shape2{257, 261}, Shape2{1021, 1027}}) {
    check_transpose<f16>(source("f16"), "f16", s.m, s.n);
    check_transpose<bf16>(source("bf16"), "bf16", s.n, s.m);
  }
  for (Shape2 s : {Shape2{128, 131}, Shape2{133, 256}, Shape2{135, 139}})
    check_transpose<std::int8_t>(source("s8"), "s8", s.m, s.n);
  for (Shape2 s : {Shape2{64, 33}, Shape2{33, 64}, Shape2{35, 37}})
    check_transpose<double>(source("f64"), "f64", s.m, s.n);
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
