// croq/choreo_cuda_runtime.hpp: under CROQ_INTERPRET=1 a host program's own
// CUDA runtime calls act on host memory (no GPU or driver needed).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "croq/choreo.hpp"

#if CROQ_CHOREO_CUDA

namespace {

// CROQ_INTERPRET=1 for one test (the shim reads it at each call; nothing
// here calls into the library, which reads it once).
class InterpretingShim : public ::testing::Test {
 protected:
  void SetUp() override { setenv("CROQ_INTERPRET", "1", 1); }
  void TearDown() override { unsetenv("CROQ_INTERPRET"); }
};

TEST_F(InterpretingShim, MallocCopySetAndFreeActOnHostMemory) {
  int* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, 64 * sizeof(int)), cudaSuccess);
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(device) % 256, 0u);  // cudaMalloc's alignment
  int host[64];
  for (int i = 0; i < 64; ++i) host[i] = i * 3;
  EXPECT_EQ(cudaMemcpy(device, host, sizeof host, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(device[10], 30);
  EXPECT_EQ(cudaMemset(device, 0, 8 * sizeof(int)), cudaSuccess);
  int back[64];
  EXPECT_EQ(cudaMemcpy(back, device, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back[7], 0);
  EXPECT_EQ(back[8], 24);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaFree(device), cudaSuccess);
}

TEST_F(InterpretingShim, FreeingAPointerItDidNotAllocateIsInvalid) {
  int local = 0;
  EXPECT_EQ(cudaFree(&local), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(nullptr, &local, sizeof local, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
}

TEST_F(InterpretingShim, StreamsAreTheDefaultStream) {
  cudaStream_t stream = reinterpret_cast<cudaStream_t>(1);
  EXPECT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  EXPECT_EQ(stream, nullptr);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
}

}  // namespace

#endif  // CROQ_CHOREO_CUDA
