#include "gemm_any.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <string>
#include <vector>

#include "../../samples/gemm_any_source.hpp"
#include "croq/error.hpp"

namespace croqpy {

using namespace nb::literals;

void bind_gemm_any(nb::module_& m) {
  m.def("_gemm_any_source", [](const std::string& element) {
    if (element != "f16" && element != "bf16")
      throw croq::ArgumentError("croqjit.gemm: f16 or bf16 matrices, got " + element);
    return gemm_any::source(element);
  }, "element"_a, "The Croqtile text of the GEMM for every shape (every size a #define).");
  m.def("_gemm_any_configs", [](long long rows, long long cols, long long depth, int sms, double bytes_per_s,
                                double flops, int top) {
    if (rows <= 0 || cols <= 0 || depth <= 0 || top <= 0)
      throw croq::ArgumentError("croqjit.gemm: M, N, K and top must be positive, got " + std::to_string(rows) + ", " +
                                std::to_string(cols) + ", " + std::to_string(depth) + " and " + std::to_string(top));
    gemm_any::Device device = gemm_any::h100();
    if (sms > 0) device.sms = sms;
    if (bytes_per_s > 0) device.dram_bytes_per_s = bytes_per_s;
    if (flops > 0) device.tensor_flops = flops;
    std::vector<std::map<std::string, long long>> out;
    for (const gemm_any::Config& c : gemm_any::candidates(rows, cols, depth, device)) {
      if (static_cast<int>(out.size()) == top) break;
      out.push_back(c.defines());
    }
    return out;
  }, "m"_a, "n"_a, "k"_a, "sms"_a = 0, "bytes_per_s"_a = 0.0, "flops"_a = 0.0, "top"_a = 1,
     "The model's best `top` configurations (#define dicts) for C [M, N] = A [M, K] B [N, K]^T; device figures "
     "of 0 are an H100's.");
}

}  // namespace croqpy
