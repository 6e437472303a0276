// TMA tensor maps through the driver: encoding real allocations and the
// process-wide cache of encoded maps.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "common/process.hpp"
#include "gpu_test_util.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/launcher.hpp"
#include "jit/tensor_map.hpp"

namespace croq::jit {
namespace {

using croq::test::DeviceBuffer;
using croq::test::TempDir;

// Tensor maps need compute capability 9.0 (Hopper) or newer.
#define CROQ_REQUIRE_TMA()                                                             \
  do {                                                                                 \
    CROQ_REQUIRE_GPU();                                                                \
    if (device_info(0).cc_major < 9) GTEST_SKIP() << "TMA needs sm_90 or newer";       \
  } while (0)

// The cache lives as long as the process and a freed buffer's address comes
// back, so each test (and each --gtest_repeat) takes a row count of its own
// to start from an uncached spec. The maps are encoded, never read through.
std::int64_t fresh_rows() {
  static std::atomic<std::int64_t> next{0};
  return 256 + next.fetch_add(1) % 256;
}
constexpr std::size_t kBufferBytes = 512 * 128 * 2;  // any fresh_rows() x 128 f16

TensorMapSpec f16_spec(const DeviceBuffer& buffer, std::int64_t rows, std::uint32_t box_rows) {
  TensorMapSpec s;
  s.dtype = DType::f16;
  s.base = reinterpret_cast<const void*>(buffer.ptr());
  s.dims = {rows, 128};
  s.box = {box_rows, 64};
  s.swizzle_bytes = 128;
  s.what = "tensor_map_gpu_test";
  return s;
}

bool same_map(const CUtensorMap& a, const CUtensorMap& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

TEST(GpuTensorMap, RepeatedSpecIsEncodedOnce) {
  CROQ_REQUIRE_TMA();
  DeviceBuffer buffer(kBufferBytes);
  const std::int64_t rows = fresh_rows();
  const TensorMapSpec spec = f16_spec(buffer, rows, 64);

  const std::uint64_t before = tensor_map_encode_count();
  const CUtensorMap first = encoded_tensor_map(spec);
  EXPECT_EQ(tensor_map_encode_count(), before + 1);
  const CUtensorMap again = encoded_tensor_map(spec);
  EXPECT_EQ(tensor_map_encode_count(), before + 1) << "a repeated spec must come from the cache";
  EXPECT_TRUE(same_map(first, again));

  // Explicit dense strides are the same map as none.
  TensorMapSpec strided = spec;
  strided.strides = {128, 1};
  EXPECT_TRUE(same_map(encoded_tensor_map(strided), first));
  EXPECT_EQ(tensor_map_encode_count(), before + 1);

  // A different box is a different map.
  const CUtensorMap other = encoded_tensor_map(f16_spec(buffer, rows, 32));
  EXPECT_EQ(tensor_map_encode_count(), before + 2);
  EXPECT_FALSE(same_map(first, other));
  encoded_tensor_map(f16_spec(buffer, rows, 32));
  EXPECT_EQ(tensor_map_encode_count(), before + 2);
}

TEST(GpuTensorMap, MatchesADirectDriverEncode) {
  CROQ_REQUIRE_TMA();
  DeviceBuffer buffer(kBufferBytes);
  const TensorMapSpec spec = f16_spec(buffer, fresh_rows(), 16);
  const EncodeArgs a = encode_args(spec);
  CUtensorMap direct{};
  CROQ_CU(cuTensorMapEncodeTiled, &direct, a.dtype, a.rank, a.base, a.dims, a.strides, a.box,
          a.element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, a.swizzle, a.l2,
          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT_TRUE(same_map(encoded_tensor_map(spec), direct));
}

TEST(GpuTensorMap, ConcurrentFirstUseEncodesOnce) {
  CROQ_REQUIRE_TMA();
  DeviceBuffer buffer(kBufferBytes);
  const TensorMapSpec spec = f16_spec(buffer, fresh_rows(), 8);
  const std::uint64_t before = tensor_map_encode_count();
  std::vector<std::thread> threads;
  std::vector<CUtensorMap> maps(8);
  for (std::size_t i = 0; i < maps.size(); ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 100; ++k) maps[i] = encoded_tensor_map(spec);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(tensor_map_encode_count(), before + 1);
  for (const auto& m : maps) EXPECT_TRUE(same_map(m, maps[0]));
}

// One TMA load of a 16 x 8 f32 box at tile (blockIdx.y, blockIdx.x), written
// out densely so the host sees exactly what landed in shared memory.
const char* kTmaTile = R"(
struct alignas(64) TmaMap { unsigned long long opaque[16]; };
extern "C" __global__ void tma_tile(const __grid_constant__ TmaMap map, float* out, int out_cols) {
  __shared__ alignas(128) float tile[16 * 8];
  __shared__ alignas(8) unsigned long long bar;
  unsigned bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
  unsigned tile_addr = (unsigned)__cvta_generic_to_shared(tile);
  int k0 = blockIdx.x * 8, m0 = blockIdx.y * 16;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar_addr) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(bar_addr), "r"(16 * 8 * 4) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(tile_addr), "l"(&map), "r"(k0), "r"(m0), "r"(bar_addr) : "memory");
  }
  asm volatile("{\n .reg .pred done;\n WAIT:\n"
               " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
               " @!done bra WAIT;\n}" :: "r"(bar_addr) : "memory");
  for (int i = threadIdx.x; i < 16 * 8; i += blockDim.x)
    out[(m0 + i / 8) * out_cols + k0 + i % 8] = tile[i];
}
)";

// The map's dims, strides and box reach the hardware in the right order:
// tiles of a strided [M, K] view come back in place, and box elements past
// the tensor's edge read as zeros (.zfill).
TEST(GpuTensorMap, KernelLoadsTilesWithZeroFill) {
  CROQ_REQUIRE_TMA();
  TempDir dir;
  DiskCacheSettings settings;
  settings.dir = dir.path();
  JitCompiler jit(settings);
  JitRequest request;
  request.cuda_source = kTmaTile;
  request.entry = "tma_tile";
  auto kernel = jit.compile(request);

  // A [40, 20] view of rows 28 floats apart (112 bytes, a multiple of 16).
  constexpr int M = 40, K = 20, ld = 28;
  constexpr int tiles_m = (M + 15) / 16, tiles_k = (K + 7) / 8;
  constexpr int out_rows = tiles_m * 16, out_cols = tiles_k * 8;
  std::vector<float> host(M * ld);
  for (int i = 0; i < M * ld; ++i) host[i] = static_cast<float>(i + 1);
  DeviceBuffer src(host.size() * 4), out(out_rows * out_cols * 4);
  src.upload(host);
  out.poison();

  TensorMapSpec spec;
  spec.dtype = DType::f32;
  spec.base = reinterpret_cast<const void*>(src.ptr());
  spec.dims = {M, K};
  spec.strides = {ld, 1};
  spec.box = {16, 8};
  spec.what = "KernelLoadsTilesWithZeroFill";
  CUtensorMap map = encoded_tensor_map(spec);
  CUdeviceptr out_ptr = out.ptr();
  int cols = out_cols;
  void* args[] = {&map, &out_ptr, &cols};
  LaunchConfig cfg;
  cfg.grid = {tiles_k, tiles_m, 1};
  cfg.block = {128, 1, 1};
  launch(*kernel, cfg, args, nullptr, 0);
  CROQ_CU(cuCtxSynchronize);

  const std::vector<float> got = out.download<float>(out_rows * out_cols);
  int wrong = 0;
  for (int r = 0; r < out_rows; ++r)
    for (int c = 0; c < out_cols; ++c) {
      const float want = (r < M && c < K) ? host[r * ld + c] : 0.0f;
      if (got[r * out_cols + c] != want && ++wrong <= 5)
        ADD_FAILURE() << "[" << r << ", " << c << "] = " << got[r * out_cols + c] << ", want " << want;
    }
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace croq::jit
