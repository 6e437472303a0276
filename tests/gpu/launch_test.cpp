// Launching hand-written CUDA through the jit layer, on a real device.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "common/process.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/launcher.hpp"

namespace croq::jit {
namespace {

using croq::test::DeviceBuffer;
using croq::test::random_floats;
using croq::test::TempDir;

JitRequest request(std::string source, std::string entry) {
  JitRequest r;
  r.cuda_source = std::move(source);
  r.entry = std::move(entry);
  r.arch = "";  // the device's own
  return r;
}

DiskCacheSettings temp_settings(const TempDir& dir) {
  DiskCacheSettings s;
  s.dir = dir.path();
  return s;
}

const char* kAxpby = R"(
extern "C" __global__ void axpby(const float* x, const float* y, float* out, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + b * y[i];
}
)";

TEST(GpuLaunch, HandWrittenKernelMatchesHostReference) {
  CROQ_REQUIRE_GPU();
  TempDir dir;
  JitCompiler jit(temp_settings(dir));
  auto kernel = jit.compile(request(kAxpby, "axpby"));
  EXPECT_EQ(kernel->arch, "sm_" + std::to_string(device_info(0).cc_major * 10 + device_info(0).cc_minor) +
                              (device_info(0).cc_major == 9 ? "a" : ""));
  for (int n : {1, 1000, 1 << 20, (1 << 20) + 77}) {
    auto x = random_floats(n), y = random_floats(n);
    float a = 1.5f, b = -0.25f;
    DeviceBuffer dx(n * 4), dy(n * 4), dout(n * 4);
    dx.upload(x);
    dy.upload(y);
    dout.poison();
    CUdeviceptr px = dx.ptr(), py = dy.ptr(), pout = dout.ptr();
    void* args[] = {&px, &py, &pout, &a, &b, &n};
    LaunchConfig cfg;
    cfg.block = {256, 1, 1};
    cfg.grid = {static_cast<unsigned>((n + 255) / 256), 1, 1};
    launch(*kernel, cfg, args, nullptr, 0);
    CROQ_CU(cuCtxSynchronize);
    auto out = dout.download<float>(n);
    // The device may contract to an FMA: allow a couple of ulps.
    for (int i = 0; i < n; ++i)
      ASSERT_NEAR(out[i], a * x[i] + b * y[i], 4e-7f * (std::fabs(a * x[i]) + std::fabs(b * y[i])) + 1e-30f)
          << "n=" << n << " i=" << i;
  }
}

TEST(GpuLaunch, HundredKilobytesOfDynamicSharedMemory) {
  CROQ_REQUIRE_GPU();
  // Reverses 25600 floats (100 KB) through dynamic shared memory in one block.
  const char* src = R"(
extern "C" __global__ void reverse_through_smem(const float* in, float* out, int n) {
  extern __shared__ float tile[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) tile[i] = in[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = tile[n - 1 - i];
}
)";
  TempDir dir;
  JitCompiler jit(temp_settings(dir));
  auto kernel = jit.compile(request(src, "reverse_through_smem"));
  int n = 25600;
  auto in = random_floats(n);
  DeviceBuffer din(n * 4), dout(n * 4);
  din.upload(in);
  dout.poison();
  CUdeviceptr pin = din.ptr(), pout = dout.ptr();
  void* args[] = {&pin, &pout, &n};
  LaunchConfig cfg;
  cfg.block = {512, 1, 1};
  cfg.shared_bytes = n * 4;
  ASSERT_EQ(cfg.shared_bytes, 102400u);
  launch(*kernel, cfg, args, nullptr, 0);
  CROQ_CU(cuCtxSynchronize);
  auto out = dout.download<float>(n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], in[n - 1 - i]) << i;
}

TEST(GpuLaunch, SharedMemoryBeyondTheDeviceLimitIsAClearError) {
  CROQ_REQUIRE_GPU();
  const char* src = "extern \"C\" __global__ void uses_smem(int* p) { extern __shared__ int s[]; s[0] = 1; p[0] = s[0]; }\n";
  TempDir dir;
  JitCompiler jit(temp_settings(dir));
  auto kernel = jit.compile(request(src, "uses_smem"));
  DeviceBuffer d(4);
  CUdeviceptr p = d.ptr();
  void* args[] = {&p};
  LaunchConfig cfg;
  cfg.shared_bytes = 400 * 1024;
  try {
    launch(*kernel, cfg, args, nullptr, 0);
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_EQ(e.call(), "cuFuncSetAttribute");
    EXPECT_NE(std::string(e.what()).find("needs 409600 bytes of shared memory per block"), std::string::npos)
        << e.what();
  }
}

TEST(GpuLaunch, InvalidLaunchShapeNamesTheCall) {
  CROQ_REQUIRE_GPU();
  TempDir dir;
  JitCompiler jit(temp_settings(dir));
  auto kernel = jit.compile(request(kAxpby, "axpby"));
  DeviceBuffer d(16);
  CUdeviceptr p = d.ptr();
  float a = 1, b = 1;
  int n = 1;
  void* args[] = {&p, &p, &p, &a, &b, &n};
  LaunchConfig cfg;
  cfg.block = {2048, 1, 1};  // above the 1024-thread limit
  try {
    launch(*kernel, cfg, args, nullptr, 0);
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_EQ(e.call(), "cuLaunchKernel");
    EXPECT_NE(std::string(e.what()).find("CUDA_ERROR_INVALID_VALUE"), std::string::npos) << e.what();
  }
}

TEST(GpuLaunch, ClusterLaunchUsesLaunchKernelEx) {
  CROQ_REQUIRE_GPU();
  if (device_info(0).cc_major < 9) GTEST_SKIP() << "clusters need sm_90";
  const char* src = R"(
extern "C" __global__ void cluster_rank(unsigned* out) {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) out[blockIdx.x] = rank;
}
)";
  TempDir dir;
  JitCompiler jit(temp_settings(dir));
  auto kernel = jit.compile(request(src, "cluster_rank"));
  DeviceBuffer d(8 * 4);
  d.poison();
  CUdeviceptr p = d.ptr();
  void* args[] = {&p};
  LaunchConfig cfg;
  cfg.grid = {8, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.cluster = {2, 1, 1};
  launch(*kernel, cfg, args, nullptr, 0);
  CROQ_CU(cuCtxSynchronize);
  auto out = d.download<unsigned>(8);
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(out[i], i % 2) << i;
}

TEST(GpuLaunch, EightThreadsCompileAndLaunchConcurrently) {
  CROQ_REQUIRE_GPU();
  TempDir dir;
  JitCompiler jit(temp_settings(dir));
  // Three distinct kernels (different scale constants) shared by 8 threads.
  auto source_for = [](int variant) {
    return "extern \"C\" __global__ void scale(const float* x, float* y, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i < n) y[i] = x[i] * " + std::to_string(variant + 2) + ".0f;\n}\n";
  };
  std::atomic<int> failures{0};
  std::vector<std::string> errors(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      try {
        make_current(0);
        CUstream stream;
        CROQ_CU(cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING);
        for (int iter = 0; iter < 20; ++iter) {
          int variant = (t + iter) % 3;
          auto kernel = jit.compile(request(source_for(variant), "scale"));
          int n = 4096 + 97 * t;
          auto x = random_floats(n);
          DeviceBuffer dx(n * 4), dy(n * 4);
          dx.upload(x, stream);
          dy.poison(stream);
          CUdeviceptr px = dx.ptr(), py = dy.ptr();
          void* args[] = {&px, &py, &n};
          LaunchConfig cfg;
          cfg.block = {128, 1, 1};
          cfg.grid = {static_cast<unsigned>((n + 127) / 128), 1, 1};
          launch(*kernel, cfg, args, stream, 0);
          CROQ_CU(cuStreamSynchronize, stream);
          auto y = dy.download<float>(n);
          for (int i = 0; i < n; ++i)
            if (y[i] != x[i] * static_cast<float>(variant + 2)) {
              errors[t] = "wrong value at " + std::to_string(i);
              ++failures;
              break;
            }
        }
        CROQ_CU(cuStreamDestroy, stream);
      } catch (const std::exception& e) {
        errors[t] = e.what();
        ++failures;
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_TRUE(errors[t].empty()) << "thread " << t << ": " << errors[t];
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(jit.stats().nvrtc_compiles, 3u) << "a key was compiled twice";
}

TEST(GpuTensor, HostDeviceRoundTrip) {
  CROQ_REQUIRE_GPU();
  auto host = croq::make_spandata<float>(33, 65);
  host.fill_random(-5, 5, croq::test::next_seed());
  croq::Tensor dev = croq::Tensor::copy_of(host.view(), croq::MemoryKind::device);
  EXPECT_EQ(dev.memory(), croq::MemoryKind::device);
  croq::Tensor back = dev.to_host();
  ASSERT_EQ(back.shape(), host.shape());
  for (std::size_t i = 0; i < 33; ++i)
    for (std::size_t j = 0; j < 65; ++j) ASSERT_EQ(back[i][j], static_cast<float>(host[i][j]));
  EXPECT_THROW(dev[0], croq::Error);
}

}  // namespace
}  // namespace croq::jit
