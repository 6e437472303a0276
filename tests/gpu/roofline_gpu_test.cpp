// The figures of a roofline on a device: device_peaks against the driver's
// attributes, time_kernel on the GEMM sample, and `croq bench --plot`
// writing the PNG through the Python package.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/plot_python.hpp"
#include "common/process.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"
#include "common/specialize_test_util.hpp"

namespace croq {
namespace {

using test::run_process;
using test::TempDir;

int attribute(CUdevice_attribute a) {
  CUdevice dev = 0;
  CROQ_CU(cuDeviceGet, &dev, 0);
  int v = 0;
  CROQ_CU(cuDeviceGetAttribute, &v, a, dev);
  return v;
}

TEST(RooflineGpu, PeaksAreTheDriversFigures) {
  CROQ_REQUIRE_GPU();
  const DevicePeaks peaks = device_peaks(0);
  EXPECT_EQ(peaks.device, jit::device_info(0).name);
  EXPECT_EQ(peaks.sm_count, attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  EXPECT_EQ(peaks.clock_hz, attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) * 1e3);
  EXPECT_DOUBLE_EQ(peaks.memory_bytes_per_second, 2.0 * attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) * 1e3 *
                                                      attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) / 8);
  const auto rates = compute_rates_per_sm_clock(peaks.compute_capability);
  ASSERT_EQ(peaks.compute.size(), rates.size());
  for (std::size_t i = 0; i < rates.size(); ++i)
    EXPECT_DOUBLE_EQ(peaks.compute[i].flops_per_second, rates[i].flops_per_second * peaks.sm_count * peaks.clock_hz);
  std::cout << peaks.device << ": " << peaks.memory_bytes_per_second / 1e12 << " TB/s";
  for (const ComputePeak& c : peaks.compute) std::cout << ", " << c.name << " " << c.flops_per_second / 1e12 << " TFLOP/s";
  std::cout << "\n";
  if (peaks.compute_capability == 90) {
    // H100 PCIe (2.0 TB/s) to H200 (4.8 TB/s); 114 to 132 SMs.
    EXPECT_GT(peaks.memory_bytes_per_second, 1.5e12);
    EXPECT_LT(peaks.memory_bytes_per_second, 5.5e12);
    EXPECT_GT(peaks.compute[1].flops_per_second, 6e14);
  }
}

TEST(RooflineGpu, TimesTheGemmSample) {
  CROQ_REQUIRE_HOPPER("the persistent WGMMA GEMM");
  const std::size_t m = 4096, n = 4096, k = 4096;
  Tensor a = Tensor::empty(DType::f16, {m, k}), b = Tensor::empty(DType::f16, {n, k}),
         c = Tensor::empty(DType::f16, {m, n});
  CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(a.data()), 0, a.bytes());
  CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(b.data()), 0, b.bytes());
  const Kernel kernel = compile(pipeline::test::sample_source("matmul_persistent"));
  const Arg args[] = {a, b, c};
  const KernelTiming t = time_kernel(kernel, args, 2, 20);
  EXPECT_EQ(t.repetitions, 20);
  EXPECT_EQ(t.bytes, (m * k + n * k + m * n) * 2);
  EXPECT_GT(t.min_ms, 0);
  EXPECT_LE(t.min_ms, t.median_ms);
  const double tflops = 2.0 * m * n * k / (t.median_ms * 1e-3) / 1e12;
  std::cout << "matmul 4096^3 f16: " << t.median_ms << " ms, " << tflops << " TFLOP/s\n";
  EXPECT_GT(tflops, 50);  // a real WGMMA GEMM, whatever the clock
  EXPECT_LT(tflops * 1e12, device_peaks(0).compute[1].flops_per_second * 1.05);  // under the f16 roof
}

TEST(RooflineGpu, BenchPlotWritesThePng) {
  CROQ_REQUIRE_GPU();
  TempDir dir;
  const test::PlotPython python = test::plot_python(dir.path());
  if (!python.why_not.empty()) GTEST_SKIP() << python.why_not;
  const std::string png = (dir.path() / "add.png").string();
  auto r = run_process({CROQ_BINARY_DIR "/croq", "bench", CROQ_TEST_DATA_DIR "/cli/add.co", "--shape", "M=4096",
                        "--shape", "N=4096", "--reps", "10", "--flops", "16777216", "--plot", png},
                       python.env, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("  roofline written to " + png + "\n"), std::string::npos) << r.out;
  EXPECT_TRUE(test::is_png(png));
}

}  // namespace
}  // namespace croq
