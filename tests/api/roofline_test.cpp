// The figures of a roofline without a device: the documented per-SM rates,
// and time_kernel's and device_peaks' errors (the timed runs and the
// driver's peaks are tests/gpu/roofline_gpu_test.cpp's).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "croq/croq.hpp"

namespace croq {
namespace {

TEST(Roofline, RatesPerSmAndClockFollowTheArchitecture) {
  const std::vector<ComputePeak> hopper = compute_rates_per_sm_clock(90);
  ASSERT_EQ(hopper.size(), 6u);
  EXPECT_EQ(hopper[0].name, "f8 tensor cores");
  EXPECT_EQ(hopper[0].flops_per_second, 8192);
  EXPECT_EQ(hopper[1].name, "f16/bf16 tensor cores");
  // H100 SXM: 132 SMs at 1.83 GHz (boost) x 4096 = 989 dense TFLOP/s, the datasheet's figure.
  EXPECT_NEAR(hopper[1].flops_per_second * 132 * 1.83e9, 989e12, 2e12);
  for (std::size_t i = 1; i < hopper.size(); ++i) EXPECT_LE(hopper[i].flops_per_second, hopper[i - 1].flops_per_second);
  const std::vector<ComputePeak> ampere = compute_rates_per_sm_clock(80);
  ASSERT_FALSE(ampere.empty());
  // A100: 108 SMs at 1.41 GHz x 2048 = 312 dense TFLOP/s.
  EXPECT_NEAR(ampere[0].flops_per_second * 108 * 1.41e9, 312e12, 1e12);
  EXPECT_TRUE(compute_rates_per_sm_clock(75).empty());
  EXPECT_TRUE(compute_rates_per_sm_clock(0).empty());
}

Kernel fill() { return compile("__co__ void fill(s32 [64] x) {\n  parallel i by 64\n    x.at(i) = 3;\n}\n"); }

TEST(Roofline, TimingRefusesWhatItCannotTime) {
  std::vector<std::int32_t> host(64);
  const TensorView on_host = TensorView::contiguous(host.data(), DType::s32, {64});
  const Arg args[] = {on_host};
  const auto message = [&](int warmup, int repetitions) {
    try {
      time_kernel(fill(), args, warmup, repetitions);
    } catch (const ArgumentError& e) {
      return std::string(e.what());
    }
    return std::string("no ArgumentError");
  };
  EXPECT_EQ(message(3, 20),
            "croq::time_kernel: argument 1 is host memory; a call on host data copies it, which is not the kernel's "
            "time (pass device tensors)");
  EXPECT_EQ(message(0, 20), "croq::time_kernel: warmup must be from 1 to 10000, got 0");
  EXPECT_EQ(message(1, 0), "croq::time_kernel: repetitions must be from 1 to 1000000, got 0");
}

TEST(Roofline, NoPeaksWithoutADevice) {
  if (cuda_available()) GTEST_SKIP() << "a device has peaks (tests/gpu/roofline_gpu_test.cpp)";
  EXPECT_THROW(device_peaks(0), CudaError);
  // A device tensor's call needs the device too.
  const TensorView on_device = TensorView::contiguous(reinterpret_cast<void*>(0x1000), DType::s32, {64},
                                                      MemoryKind::device);
  const Arg args[] = {on_device};
  EXPECT_THROW(time_kernel(fill(), args), CudaError);
}

}  // namespace
}  // namespace croq
