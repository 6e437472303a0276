// Tiles of extents computed in the kernel on the GPU: kChunkedRows moves
// rows in chunks of four and a last chunk of what is left, against a host
// reference.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/runtime_extent_sources.hpp"
#include "croq/croq.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuRuntimeExtent, ChunksOfAComputedRowCountMatchTheHostReference) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(croq::test::kChunkedRows);
  const std::size_t cols = 48;
  for (std::size_t rows : {std::size_t{3}, std::size_t{10}, std::size_t{12}}) {
    auto x = make_spandata<float>(rows, cols), y = make_spandata<float>(rows, cols);
    x.fill_random(-10, 10, croq::test::next_seed());
    y.fill_random(-10, 10, croq::test::next_seed());
    Tensor dx = Tensor::copy_of(x.view(), MemoryKind::device), dy = Tensor::copy_of(y.view(), MemoryKind::device);
    Tensor out = Tensor::empty(DType::f32, Shape{rows, cols}, MemoryKind::device);
    CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out.data()), 0xff, out.bytes());  // poison (NaN)
    LaunchOptions options;
    TensorView out_view = out.view();
    options.output = &out_view;
    const std::vector<Arg> args{dx, dy};
    k.launch(args, options);
    Tensor host = out.to_host();
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) {
        const float want = static_cast<float>(x[r][c]) * 2.0f + static_cast<float>(y[r][c]);
        ASSERT_NEAR(static_cast<float>(host[r][c]), want, 1e-5f * (1.0f + std::abs(want)))
            << rows << " rows, at " << r << ", " << c;
      }
  }
}

}  // namespace
}  // namespace croq
