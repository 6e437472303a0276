// GEMM benchmark: the persistent warp-specialized Croqtile GEMM of
// samples/matmul_persistent.cpp, f16 and bf16 inputs (fp32 accumulate),
// on device tensors; median time of 20 launches after warm-up, TFLOP/s.
// bench/gemm_reference.py measures torch.matmul (cuBLAS) on the same shapes
// in the same device run; scripts/gpu-check.sh prints the ratios.
//   gemm_bench [--json FILE]
#include <cuda.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "croq/croq.hpp"
#include "jit/driver.hpp"

#ifndef CROQ_SAMPLES_DIR
#define CROQ_SAMPLES_DIR "samples"
#endif

namespace {

std::string kernel_source(const std::string& element) {
  std::ifstream in(std::string(CROQ_SAMPLES_DIR) + "/matmul_persistent.cpp");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  auto begin = text.find("R\"croq(") + 7, end = text.find(")croq\"");
  std::string src = text.substr(begin, end - begin);
  return std::regex_replace(src, std::regex("\\bf16\\b"), element);
}

croq::Tensor random_device_tensor(croq::DType t, std::size_t rows, std::size_t cols) {
  croq::Tensor host = croq::Tensor::empty(t, croq::Shape{rows, cols}, croq::MemoryKind::host);
  std::mt19937 rng(rows * 31 + cols);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto* p = static_cast<unsigned short*>(host.data());
  for (std::size_t i = 0; i < rows * cols; ++i) {
    float v = dist(rng);
    if (t == croq::DType::f16) p[i] = croq::f16(v).bits;
    else p[i] = croq::bf16(v).bits;
  }
  return croq::Tensor::copy_of(host.view(), croq::MemoryKind::device);
}

}  // namespace

int main(int argc, char** argv) {
  std::string json_path;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--json") json_path = argv[i + 1];
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "gemm_bench: needs a CUDA GPU (" << why << ")\n";
    return 0;
  }
  using namespace croq::jit;
  nlohmann::json results = nlohmann::json::array();
  const int shapes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {128, 8192, 8192}};
  for (const char* element : {"f16", "bf16"}) {
    croq::DType t = std::string(element) == "f16" ? croq::DType::f16 : croq::DType::bf16;
    croq::Kernel k = croq::compile(kernel_source(element));
    for (const auto& s : shapes) {
      const std::size_t m = s[0], n = s[1], kk = s[2];
      croq::Tensor a = random_device_tensor(t, m, kk), b = random_device_tensor(t, n, kk);
      croq::Tensor c = croq::Tensor::empty(t, croq::Shape{m, n}, croq::MemoryKind::device);
      for (int i = 0; i < 3; ++i) k(a, b, c);
      CROQ_CU(cuCtxSynchronize);
      CUevent start, stop;
      CROQ_CU(cuEventCreate, &start, 0);
      CROQ_CU(cuEventCreate, &stop, 0);
      std::vector<double> ms;
      for (int i = 0; i < 20; ++i) {
        CROQ_CU(cuEventRecord, start, nullptr);
        k(a, b, c);
        CROQ_CU(cuEventRecord, stop, nullptr);
        CROQ_CU(cuEventSynchronize, stop);
        float t_ms = 0;
        CROQ_CU(cuEventElapsedTime, &t_ms, start, stop);
        ms.push_back(t_ms);
      }
      CROQ_CU(cuEventDestroy, start);
      CROQ_CU(cuEventDestroy, stop);
      std::sort(ms.begin(), ms.end());
      double median = ms[ms.size() / 2];
      double tflops = 2.0 * m * n * kk / (median * 1e-3) / 1e12;
      std::cout << "  croq GEMM " << element << " " << m << "x" << n << "x" << kk << ": " << median << " ms, " << tflops
                << " TFLOP/s\n";
      results.push_back({{"dtype", element}, {"m", m}, {"n", n}, {"k", kk}, {"ms", median}, {"tflops", tflops}});
    }
  }
  if (!json_path.empty()) std::ofstream(json_path) << results.dump(2) << "\n";
}
