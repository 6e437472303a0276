// tests/gpu/elementwise_gpu_test.cpp's kernels in interpret mode, with its
// checks (tests/common/elementwise_checks.hpp): the vectorized add, fused
// multiply-add and cast for f32, f16 and bf16 at a shape with a scalar tail
// for every vector width (1001 x 7) and one without (64 x 256), and the
// benchmark's plain transpose (bench/harness/kernels/ew_transpose.co).
#include <gtest/gtest.h>

#include "common/bench_kernel_text.hpp"
#include "common/elementwise_checks.hpp"
#include "croq/croq.hpp"

namespace croq {
namespace {

using test::check_add;
using test::check_cast;
using test::check_fma;
using test::check_transpose;
using test::interpreting;
using test::Shape2;

constexpr Shape2 kTail{1001, 7}, kWhole{64, 256};

TEST(InterpretElementwiseGpuKernels, AddEveryElementType) {
  for (Shape2 s : {kTail, kWhole}) {
    check_add<float>("f32", s, interpreting());
    check_add<f16>("f16", s, interpreting());
    check_add<bf16>("bf16", s, interpreting());
  }
}

TEST(InterpretElementwiseGpuKernels, FusedMultiplyAddOfThreeTensors) {
  for (Shape2 s : {kTail, kWhole}) {
    check_fma<float>("f32", s, interpreting());
    check_fma<f16>("f16", s, interpreting());
    check_fma<bf16>("bf16", s, interpreting());
  }
}

TEST(InterpretElementwiseGpuKernels, CastFromF32) {
  for (Shape2 s : {kTail, kWhole, Shape2{1, 3}}) {
    check_cast<bf16>("bf16", s, interpreting());
    check_cast<f16>("f16", s, interpreting());
  }
}

// The plain transpose (ew_transpose.co), which the tile_transposes pass
// moves through shared tiles: whole tiles, and tiles past M, N or both.
TEST(InterpretElementwiseGpuKernels, TransposeThroughSharedTiles) {
  for (Shape2 s : {Shape2{64, 192}, Shape2{130, 200}, Shape2{192, 67}}) {
    SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n));
    check_transpose<float>(test::bench_kernel_text("ew_transpose.co", "f32", "f32"), "f32", s.m, s.n, interpreting());
  }
  for (Shape2 s : {Shape2{128, 256}, Shape2{300, 129}, Shape2{130, 256}}) {
    SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n));
    check_transpose<f16>(test::bench_kernel_text("ew_transpose.co", "f32", "f16"), "f16", s.m, s.n, interpreting());
    check_transpose<bf16>(test::bench_kernel_text("ew_transpose.co", "f32", "bf16"), "bf16", s.n, s.m, interpreting());
  }
}

}  // namespace
}  // namespace croq
