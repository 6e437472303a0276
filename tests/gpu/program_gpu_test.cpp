// Programs of several kernels on the GPU: the second kernel reads what the
// first wrote into a global buffer, reversed, so each element crosses blocks
// and only the kernel boundary orders the two.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/program_sources.hpp"
#include "croq/croq.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {


TEST(GpuProgram, TwoKernelsThroughAGlobalBufferMatchTheHostReference) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(croq::test::kReverseTwice);
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{1} << 20}) {
    auto a = make_spandata<float>(n), b = make_spandata<float>(n);
    a.fill_random(-10, 10);
    b.fill_random(-10, 10);
    Tensor da = Tensor::copy_of(a.view(), MemoryKind::device), db = Tensor::copy_of(b.view(), MemoryKind::device);
    Tensor out = Tensor::empty(DType::f32, Shape{n}, MemoryKind::device);
    CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out.data()), 0xff, out.bytes());  // poison (NaN)
    LaunchOptions options;
    TensorView out_view = out.view();
    options.output = &out_view;
    const std::vector<Arg> call{da, db};
    k.launch(call, options);
    Tensor host = out.to_host();
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t r = n - 1 - j;
      const float want = (static_cast<float>(a[r]) + static_cast<float>(b[r])) * 2.0f + static_cast<float>(a[j]);
      ASSERT_NEAR(static_cast<float>(host[j]), want, 1e-4f * (1.0f + std::abs(want))) << "n " << n << " at " << j;
    }
    // Host arguments take the same path (staged, synchronous).
    Tensor again = k(a.view(), b.view());
    for (std::size_t j = 0; j < n; j += 997)
      ASSERT_EQ(static_cast<float>(again[j]), static_cast<float>(host[j])) << j;
  }
}

}  // namespace
}  // namespace croq
