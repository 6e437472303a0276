// Tensors past 2^31 elements on the device: u8 [2^31 + 4099] (and a 2-D
// shape of as many elements) through element-wise kernels of every mapping
// lowering has (flat, tiled through shared memory, one block per element
// with more blocks than a grid holds, static and dynamic extents), against
// a host reference on random data, the output poisoned first, every
// element compared (the tail included). About 6.5 GB of device memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/large_tensor_kernels.hpp"
#include "croq/croq.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {

constexpr std::int64_t kElements = (std::int64_t{1} << 31) + 4099;
constexpr std::uint8_t kPoison = 0xa5;
const Shape kFlat = {static_cast<std::size_t>(kElements)};

// Fast random bytes (splitmix64): 2 GiB in well under a second.
std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint8_t> v(n);
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < n; i += 8) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    std::memcpy(v.data() + i, &z, std::min<std::size_t>(8, n - i));
  }
  return v;
}

// Inputs on the host and the device, made once for the suite.
class LargeTensor : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string why;
    if (!cuda_available(&why)) return;
    jit::make_current(0);
    try {
      a_ = Tensor::empty(DType::u8, kFlat, MemoryKind::device);
      b_ = Tensor::empty(DType::u8, kFlat, MemoryKind::device);
      out_ = Tensor::empty(DType::u8, kFlat, MemoryKind::device);
    } catch (const CudaError& e) {  // too little device memory: the tests skip
      out_why_ = e.what();
      a_ = b_ = out_ = Tensor();
      return;
    }
    host_a_ = random_bytes(kElements, croq::test::seed_for("LargeTensorGpu", 0));
    host_b_ = random_bytes(kElements, croq::test::seed_for("LargeTensorGpu", 1));
    CROQ_CU(cuMemcpyHtoD, reinterpret_cast<CUdeviceptr>(a_.data()), host_a_.data(), host_a_.size());
    CROQ_CU(cuMemcpyHtoD, reinterpret_cast<CUdeviceptr>(b_.data()), host_b_.data(), host_b_.size());
  }
  static void TearDownTestSuite() {
    a_ = b_ = out_ = Tensor();
    host_a_ = host_b_ = {};
  }
  void SetUp() override {
    CROQ_REQUIRE_GPU();
    if (!out_.defined()) GTEST_SKIP() << "three u8 tensors of 2^31 + 4099 elements do not fit: " << out_why_;
  }

  // `out` poisoned, the kernel launched on views of a, b, out with `shape`
  // (the bytes seen as [2^31 + 4099] or 2-D), then every element of the
  // buffers checked: a[i] + b[i] (mod 256) inside the view, the poison past it.
  static void run_and_check(const Kernel& kernel, const Shape& shape) {
    ASSERT_LE(static_cast<std::int64_t>(shape.numel()), kElements);
    CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out_.data()), kPoison, static_cast<std::size_t>(kElements));
    auto view = [&](const Tensor& t) { return TensorView::contiguous(t.data(), DType::u8, shape, MemoryKind::device, 0); };
    kernel(view(a_), view(b_), view(out_));
    CROQ_CU(cuCtxSynchronize);
    std::vector<std::uint8_t> got(static_cast<std::size_t>(kElements));
    CROQ_CU(cuMemcpyDtoH, got.data(), reinterpret_cast<CUdeviceptr>(out_.data()), got.size());
    auto want = [&](std::size_t i) {
      return i < shape.numel() ? static_cast<std::uint8_t>(host_a_[i] + host_b_[i]) : kPoison;
    };
    std::size_t wrong = 0, first_wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != want(i) && wrong++ == 0) first_wrong = i;
    EXPECT_EQ(wrong, 0u) << "first wrong element " << first_wrong << " of " << kElements << ": got "
                         << int(got[first_wrong]) << ", want " << int(want(first_wrong));
    // The head, 2^31 and the view's last element, named for the log.
    for (std::size_t i : {std::size_t{0}, std::size_t{1} << 31, shape.numel() - 1})
      EXPECT_EQ(got[i], want(i)) << "element " << i;
  }

  static inline std::vector<std::uint8_t> host_a_, host_b_;
  static inline Tensor a_, b_, out_;
  static inline std::string out_why_;
};

// One thread per element, 256 per block: 8388625 blocks, 64-bit indices.
TEST_F(LargeTensor, FlatElementwiseStatic) { run_and_check(compile(test::kLargeFlatAdd), kFlat); }

// The same with N a dynamic dim: the grid is computed at launch and the
// kernel loops over the instances past it.
TEST_F(LargeTensor, FlatElementwiseDynamic) {
  CompileOptions options;
  options.dynamic_dims = {"N"};
  run_and_check(compile(test::kLargeFlatAdd, options), kFlat);
}

// [524289, 4096] = 2^31 + 4096 elements: the 2-D index decomposition and
// row strides in 64 bits; the last 3 bytes of the buffers lie past the view
// and keep the poison.
TEST_F(LargeTensor, TwoDimensionalElementwise) { run_and_check(compile(test::kLargeTwoDimAdd), {524289, 4096}); }

// Tiles of 4096 through shared memory: tile origins t * 4096 pass 2^31,
// and the last tile is a guarded tail of 4099 elements.
TEST_F(LargeTensor, TiledThroughSharedMemory) { run_and_check(compile(test::kLargeTiledAdd), kFlat); }

// One block per element: 2^31 + 4099 blocks, more than a grid holds, so the
// kernel loops over block indices (static count, then a dynamic one).
TEST_F(LargeTensor, MoreBlocksThanAGridHolds) {
  run_and_check(compile(test::kLargeBlockAdd), kFlat);
  CompileOptions options;
  options.dynamic_dims = {"N"};
  run_and_check(compile(test::kLargeBlockAdd, options), kFlat);
}

}  // namespace
}  // namespace croq
