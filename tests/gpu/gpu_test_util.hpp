// Shared by the GPU tests: skip without a device, device buffers, random data
// (seeded: common/test_seed.hpp).
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/test_seed.hpp"
#include "jit/driver.hpp"
#include "common/test_seed.hpp"

namespace croq::test {

// GTEST_SKIP()s the calling test when no CUDA driver or device is present.
#define CROQ_REQUIRE_GPU()                                                               \
  do {                                                                                   \
    std::string why_no_gpu;                                                              \
    if (!::croq::jit::driver_available(&why_no_gpu)) GTEST_SKIP() << why_no_gpu;         \
    if (::croq::jit::device_count() == 0) GTEST_SKIP() << "no CUDA device";              \
    ::croq::jit::make_current(0);                                                        \
  } while (0)

// CROQ_REQUIRE_GPU on a Hopper (sm_90a) device; `what` says what needs it.
#define CROQ_REQUIRE_HOPPER(what)                                                           \
  do {                                                                                      \
    CROQ_REQUIRE_GPU();                                                                     \
    if (::croq::jit::device_info(0).cc_major != 9) GTEST_SKIP() << what << " needs sm_90a (Hopper)"; \
  } while (0)

// A device allocation freed on scope exit.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) { CROQ_CU(cuMemAlloc, &ptr_, bytes); }
  ~DeviceBuffer() { if (ptr_) croq::jit::driver().cuMemFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  CUdeviceptr ptr() const { return ptr_; }
  CUdeviceptr* ptr_address() { return &ptr_; }
  // Fills with a NaN pattern so unwritten outputs cannot pass a comparison.
  // Both fill and upload are ordered on `stream` and complete before return,
  // so a kernel on any stream sees them.
  void poison(CUstream stream = nullptr) {
    CROQ_CU(cuMemsetD8Async, ptr_, 0xff, bytes_, stream);
    CROQ_CU(cuStreamSynchronize, stream);
  }
  template <typename T> void upload(const std::vector<T>& v, CUstream stream = nullptr) {
    CROQ_CU(cuMemcpyHtoDAsync, ptr_, v.data(), v.size() * sizeof(T), stream);
    CROQ_CU(cuStreamSynchronize, stream);
  }
  template <typename T> std::vector<T> download(std::size_t n) const {
    std::vector<T> v(n);
    CROQ_CU(cuMemcpyDtoH, v.data(), ptr_, n * sizeof(T));
    return v;
  }

 private:
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_;
};

inline std::vector<float> random_floats(std::size_t n, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(croq::test::next_seed());
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

}  // namespace croq::test
