// croq bench --plot's hand-off to Python: the figures' JSON, and
// `python -m croqjit._bench_plot` drawing them (no GPU needed; the whole
// command on a device is tests/gpu/roofline_gpu_test.cpp's).
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/roofline_plot.hpp"
#include "common/plot_python.hpp"
#include "common/process.hpp"

namespace croq::cli {
namespace {

using croq::test::TempDir;

DevicePeaks h100() {
  DevicePeaks p;
  p.device = "NVIDIA H100 80GB HBM3";
  p.compute_capability = 90;
  p.memory_bytes_per_second = 3.35e12;
  p.compute = {{"f16/bf16 tensor cores", 989e12}, {"f32 CUDA cores", 67e12}};
  return p;
}

KernelTiming gemm_timing() {
  KernelTiming t;
  t.median_ms = 0.2;
  t.min_ms = 0.19;
  t.repetitions = 10;
  t.bytes = 3u * 4096 * 4096 * 2;
  return t;
}

TEST(RooflinePlot, FiguresAsJson) {
  const auto j = nlohmann::json::parse(roofline_figures(h100(), "matmul(f16 [4096, 4096])", gemm_timing(), 1.37e11));
  EXPECT_EQ(j["peaks"]["device"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(j["peaks"]["memory_bytes_per_second"], 3.35e12);
  EXPECT_EQ(j["peaks"]["compute"], nlohmann::json::parse(R"([["f16/bf16 tensor cores", 989e12], ["f32 CUDA cores", 67e12]])"));
  ASSERT_EQ(j["kernels"].size(), 1u);
  EXPECT_EQ(j["kernels"][0]["label"], "matmul(f16 [4096, 4096])");
  EXPECT_DOUBLE_EQ(j["kernels"][0]["seconds"].get<double>(), 0.2e-3);
  EXPECT_EQ(j["kernels"][0]["bytes"], 3u * 4096 * 4096 * 2);
  EXPECT_EQ(j["kernels"][0]["flops"], 1.37e11);
  const auto no_flops = nlohmann::json::parse(roofline_figures(h100(), "add\xff", gemm_timing(), std::nullopt));
  EXPECT_TRUE(no_flops["kernels"][0]["flops"].is_null());
  EXPECT_EQ(no_flops["kernels"][0]["label"], "add\xef\xbf\xbd");  // not UTF-8: U+FFFD
}

// Sets an environment variable for one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(RooflinePlot, DrawsThroughThePythonPackage) {
  TempDir dir;
  const test::PlotPython python = test::plot_python(dir.path());
  if (!python.why_not.empty()) GTEST_SKIP() << python.why_not;
  ScopedEnv interpreter("CROQ_PYTHON", python.python);
  ScopedEnv path("PYTHONPATH", python.env.at("PYTHONPATH"));
  const std::string png = (dir.path() / "roofline.png").string();
  ASSERT_EQ(draw_roofline(roofline_figures(h100(), "matmul", gemm_timing(), 1.37e11), png), 0);
  EXPECT_TRUE(test::is_png(png));
}

TEST(RooflinePlot, SaysWhatIsMissing) {
  TempDir dir;
  const std::string png = (dir.path() / "roofline.png").string();
  {
    ScopedEnv missing("CROQ_PYTHON", (dir.path() / "no-python").string());
    testing::internal::CaptureStderr();
    EXPECT_EQ(draw_roofline(roofline_figures(h100(), "matmul", gemm_timing(), std::nullopt), png), 1);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("croq bench: --plot runs " + (dir.path() / "no-python").string() +
                       " (CROQ_PYTHON) with the croqjit package and matplotlib, which could not be started: "),
              std::string::npos)
        << err;
  }
  {
    // A Python without croqjit on its path.
    ScopedEnv python("CROQ_PYTHON", "python3");
    ScopedEnv path("PYTHONPATH", dir.path().string());
    testing::internal::CaptureStderr();
    EXPECT_EQ(draw_roofline(roofline_figures(h100(), "matmul", gemm_timing(), std::nullopt), png), 1);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("croq bench: --plot: `python3 -m croqjit._bench_plot` failed (exit status 1); it needs the "
                       "croqjit package and matplotlib importable there (CROQ_PYTHON, PYTHONPATH)"),
              std::string::npos)
        << err;
  }
  EXPECT_FALSE(std::filesystem::exists(png));
}

}  // namespace
}  // namespace croq::cli
