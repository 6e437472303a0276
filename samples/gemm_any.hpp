// The one call for every GEMM shape: gemm_any::Gemm computes C = A * B^T
// (A [M, K], B [N, K], C [M, N]; f16 or bf16, all three the same type) with
// the configuration gemm_any::choose picks for the shape and the device
// (samples/gemm_any_source.hpp), one compiled kernel per configuration,
// kept for later calls. `tune` refines the choice for one shape on the
// device with croq::tune over the model's best candidates.
//
//   gemm_any::Gemm gemm;                     // the device's peaks, or an H100's without one
//   gemm(lhs.view(), rhs.view(), out.view());
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <croq/croq.hpp>

#include "gemm_any_source.hpp"

namespace gemm_any {

// The cost model's device from the driver's figures; an H100's without a
// CUDA device.
inline Device device_model(int device = 0) {
  Device d = h100();
  if (!croq::cuda_available()) return d;
  const croq::DevicePeaks peaks = croq::device_peaks(device);
  if (peaks.sm_count > 0) d.sms = peaks.sm_count;
  if (peaks.memory_bytes_per_second > 0) d.dram_bytes_per_s = peaks.memory_bytes_per_second;
  for (const croq::ComputePeak& p : peaks.compute)  // fastest first: f8 before f16 on sm_90
    if (p.name == "f16/bf16 tensor cores") d.tensor_flops = p.flops_per_second;
  return d;
}

inline croq::CompileOptions options_for(const Config& c, const croq::CompileOptions& base = {}) {
  croq::CompileOptions options = base;
  for (const auto& [name, value] : c.defines()) options.defines[name] = static_cast<std::int64_t>(value);
  return options;
}

class Gemm {
 public:
  explicit Gemm(Device device = device_model(), croq::CompileOptions base = {})
      : device_(device), base_(std::move(base)) {}

  // The configuration a call with these shapes runs (a tuned one if `tune`
  // recorded one for the shape).
  Config config_for(long long m, long long n, long long k) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto t = tuned_.find({m, n, k}); t != tuned_.end()) return t->second;
    return choose(m, n, k, device_);
  }

  // out = lhs * rhs^T. Shapes and types are checked by the kernel's call
  // (an ArgumentError names the mismatch).
  void operator()(const croq::TensorView& lhs, const croq::TensorView& rhs, const croq::TensorView& out) const {
    if (lhs.shape.rank() != 2 || rhs.shape.rank() != 2)
      throw croq::ArgumentError("gemm_any: lhs and rhs must be matrices, got " + lhs.str() + " and " + rhs.str());
    const long long m = lhs.shape[0], k = lhs.shape[1], n = rhs.shape[0];
    kernel(element_name(lhs.dtype), config_for(m, n, k))(lhs, rhs, out);
  }

  // The kernel of one configuration for "f16" or "bf16" (compiled once).
  croq::Kernel kernel(const std::string& element, const Config& c) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string key = element + " " + c.name();
    auto found = kernels_.find(key);
    if (found == kernels_.end()) found = kernels_.emplace(key, croq::compile(source(element), options_for(c, base_))).first;
    return found->second;
  }

  // Times the model's best `count` configurations for these arguments
  // (croq::tune: checked against the first, the choice remembered on disk)
  // and uses the fastest for this shape from now on.
  croq::TuneResult tune(const croq::TensorView& lhs, const croq::TensorView& rhs, const croq::TensorView& out,
                        std::size_t count = 4) {
    const long long m = lhs.shape[0], k = lhs.shape[1], n = rhs.shape[0];
    const std::vector<Config> ranked = candidates(m, n, k, device_);
    std::vector<croq::TuneConfig> configs;
    for (std::size_t i = 0; i < ranked.size() && i < count; ++i) {
      croq::TuneConfig t;
      for (const auto& [name, value] : ranked[i].defines()) t.defines[name] = static_cast<std::int64_t>(value);
      configs.push_back(std::move(t));
    }
    croq::TuneOptions options;
    options.compile = base_;
    const croq::Arg args[] = {lhs, rhs, out};
    croq::TuneResult result = croq::tune(source(element_name(lhs.dtype)), configs, args, options);
    for (std::size_t i = 0; i < configs.size(); ++i)
      if (configs[i] == result.config) {
        std::lock_guard<std::mutex> lock(mutex_);
        tuned_[{m, n, k}] = ranked[i];
      }
    return result;
  }

 private:
  static std::string element_name(croq::DType t) {
    if (t == croq::DType::f16) return "f16";
    if (t == croq::DType::bf16) return "bf16";
    throw croq::ArgumentError("gemm_any: f16 or bf16 matrices, got " + std::string(croq::dtype_name(t)));
  }

  Device device_;
  croq::CompileOptions base_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, croq::Kernel> kernels_;
  std::map<std::tuple<long long, long long, long long>, Config> tuned_;
};

}  // namespace gemm_any
