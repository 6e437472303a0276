// Copy and loop forms of Croqtile's end-to-end programs on the device:
// `.subspan` copies without `.at`, zero-filled larger destinations. Random
// inputs, outputs poisoned before each launch, exact host references.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "croq/croq.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {

// Launches `k` on `args` into a device output of `shape`, filled with 0xff
// bytes first so an element the kernel does not write cannot pass.
template <std::size_t N>
Tensor run_poisoned(Kernel& k, const std::array<Arg, N>& args, DType dtype, Shape shape) {
  Tensor out = Tensor::empty(dtype, shape, MemoryKind::device);
  CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out.data()), 0xff, out.bytes());
  TensorView out_view = out.view();
  LaunchOptions options;
  options.output = &out_view;
  k.launch(args, options);
  CROQ_CU(cuCtxSynchronize);
  return out.to_host();
}

TEST(GpuCopyForms, SubspanWithoutAtCopiesTheFirstTile) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(
__co__ s32 [3, 4, 8] first(s32 [5, 4, 16] a) {
  s32 [3, 4, 8] out;
  parallel p by 1 : block
    parallel q by 32 : thread {
      t = dma.copy a.subspan(3, 4, 8) => shared;
      dma.copy t => out;
    }
  return out;
}
)");
  auto a = make_spandata<s32>(5, 4, 16);
  a.fill_random(-1000, 1000);
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::s32, Shape{3, 4, 8});
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j)
      for (std::size_t l = 0; l < 8; ++l) ASSERT_EQ(got[i][j][l], a[i][j][l]) << i << "," << j << "," << l;
}

// The row the source does not cover is zero; a runtime-sized source too.
TEST(GpuCopyForms, LargerDestinationIsZeroFilled) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(
__co__ f32 [16, 32] grow(f32 [M, N] a) {
  f32 [16, 32] out;
  parallel p by 1 : block
    parallel q by 32 : thread {
      shared f32 [16, 32] buf;
      dma.copy a.subspan(13, 32) => buf.subspan(16, 32);
      dma.copy buf => out;
    }
  return out;
}
)");
  auto a = make_spandata<float>(20, 40);
  a.fill_random(-10, 10);
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::f32, Shape{16, 32});
  for (std::size_t i = 0; i < 16; ++i)
    for (std::size_t j = 0; j < 32; ++j)
      ASSERT_EQ(static_cast<float>(got[i][j]), i < 13 ? static_cast<float>(a[i][j]) : 0.0f) << i << "," << j;
}

}  // namespace
}  // namespace croq
