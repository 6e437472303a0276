// Programs of several kernels (one per top-level parallel statement) must
// cost no hidden synchronization: a hot call of an N-kernel program enqueues
// N launches, so its host time should be at most N x the hot call of a
// one-kernel function + 2 us. Measured for N = 2, 4, 8 without program
// buffers, and for N = 4 with a function-scope `global` buffer (allocated
// and freed in stream order for each call; reported, no budget). The results
// are checked once. Exit status 1 when a result is wrong or a program
// without buffers is over its budget.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "croq/croq.hpp"
#include "jit/driver.hpp"
#include "bench_args.hpp"
#include "launch_timing.hpp"
#include "support/utf8.hpp"

using namespace croq;

namespace {

// One kernel: y = x * 3 + 1 over N elements.
const char* kOneKernel = R"(__co__ void step(f32 [N] x, f32 [N] y) {
  parallel i by N
    y.at(i) = x.at(i) * 3.0f + 1.0f;
}
)";

// `kernels` top-level parallel statements, alternating between x and y, so
// each reads what the previous one wrote; with `scratch`, the first writes a
// program buffer that the last reads.
std::string program(int kernels, bool scratch) {
  std::string s = "__co__ void steps(f32 [N] x, f32 [N] y) {\n";
  if (scratch) s += "  global f32 [N] tmp;\n";
  for (int k = 0; k < kernels; ++k) {
    const bool forward = k % 2 == 0;
    std::string dst = forward ? "y" : "x", src = forward ? "x" : "y";
    if (scratch && k == 0) dst = "tmp";
    if (scratch && k == 1) src = "tmp";
    s += "  parallel i" + std::to_string(k) + " by N\n    " + dst + ".at(i" + std::to_string(k) + ") = " + src +
         ".at(i" + std::to_string(k) + ") * 3.0f + 1.0f;\n";
  }
  return s + "}\n";
}

// x after `kernels` steps of v -> 3v + 1 starting from `x0` (the program
// alternates buffers, so the last write holds the final value).
float expected_after(int kernels, float x0) {
  float v = x0;
  for (int k = 0; k < kernels; ++k) v = v * 3.0f + 1.0f;
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  croq::bench::BenchArgs args;
  if (!croq::bench::parse_bench_args(argc, argv, "program_bench", {}, args)) return 2;
  const std::string& json_path = args.json;
  std::string why;
  if (!cuda_available(&why)) {
    std::printf("program_bench: needs a CUDA GPU (%s)\n", why.c_str());
    return 0;
  }
  jit::make_current(0);
  nlohmann::json out;
  constexpr std::size_t n = 1024;  // small: host enqueue cost is what is measured
  Tensor x = Tensor::empty(DType::f32, Shape{n}), y = Tensor::empty(DType::f32, Shape{n});
  Kernel one = compile(kOneKernel);
  one(x, y);

  std::printf("libcroqjit programs of several kernels on %s (host time per call, median)\n",
              jit::device_info(0).name.c_str());
  bool all_within = true;
  struct Case {
    int kernels;
    bool scratch;
  };
  for (Case c : {Case{2, false}, Case{4, false}, Case{8, false}, Case{4, true}}) {
    Kernel prog = compile(program(c.kernels, c.scratch));
    // Correctness once: x = 0.5 everywhere, poisoned y.
    std::vector<float> host(n, 0.5f), poison(n, -7.0f);
    CROQ_CU(cuMemcpyHtoD, reinterpret_cast<CUdeviceptr>(x.data()), host.data(), n * 4);
    CROQ_CU(cuMemcpyHtoD, reinterpret_cast<CUdeviceptr>(y.data()), poison.data(), n * 4);
    prog(x, y);
    CROQ_CU(cuCtxSynchronize);
    const bool last_into_y = c.kernels % 2 == 1;
    std::vector<float> result(n);
    CROQ_CU(cuMemcpyDtoH, result.data(), reinterpret_cast<CUdeviceptr>(last_into_y ? y.data() : x.data()), n * 4);
    const float want = expected_after(c.kernels, 0.5f);
    for (std::size_t i = 0; i < n; ++i)
      if (result[i] != want) {
        std::fprintf(stderr, "program_bench: %d kernels%s: element %zu is %f, expected %f\n", c.kernels,
                     c.scratch ? " with a buffer" : "", i, result[i], want);
        return 1;
      }

    auto timing = bench::compare_launch_paths(
        [&] {
          for (int k = 0; k < c.kernels; ++k) one(x, y);
        },
        [&] { prog(x, y); }, 200);
    const double budget = timing.reference_us + 2.0;
    const bool within = timing.candidate_us <= budget;
    all_within = all_within && (within || c.scratch);
    const std::string key = std::to_string(c.kernels) + (c.scratch ? "_kernels_with_buffer" : "_kernels");
    out[key] = {{"program_call_us", timing.candidate_us}, {"n_single_calls_us", timing.reference_us},
                {"within_budget", within}};
    std::printf("  %d kernels%-14s: program %.2f us, %d x one-kernel call %.2f us, budget %.2f us: %s\n", c.kernels,
                c.scratch ? " + buffer" : "", timing.candidate_us, c.kernels, timing.reference_us, budget,
                within ? "within" : "OVER");
  }
  out["within_budget_without_buffers"] = all_within;
  if (!json_path.empty()) std::ofstream(json_path) << croq::support::json_text(out, 2) << "\n";
  if (!all_within) std::printf("program_bench: a program without buffers is over its budget\n");
  return all_within ? 0 : 1;
}
