// Prints the Croqtile source of a kernel that the benchmark harness times,
// from where the C++ samples keep it, so both sides run one text:
//
//   kernel_sources sample NAME          the R"croq(...)croq" text of samples/NAME.cpp
//   kernel_sources gemm f16|bf16|fp8    the persistent GEMM (samples/matmul_persistent.cpp;
//                                       bf16: its f16 replaced; fp8: samples/matmul_fp8.cpp)
//   kernel_sources attention f16|bf16|e4m3 D [--no-ping-pong] [--consumers N] [--grouped] [--varlen]
//                  [--output f16|bf16]  samples/attention_source.hpp's forward attention (e4m3:
//                                       the FP8 forward, V^T input, descales; --output its O)
//   kernel_sources attention-backward f16|bf16 D [--dq-atomics]
//                                       samples/attention_backward_source.hpp's backward (dQ from
//                                       kernel 2's atomics instead of a third pass)
//   kernel_sources readme-gemm README   upstream README's persistent GEMM (samples/upstream_readme.hpp)
//   kernel_sources rows softmax|rmsnorm|layernorm f16|bf16 H [--chunks C] [--rows R]
//                                       samples/row_norm_source.hpp's row reduction for rows of H
//                                       (softmax, rmsnorm: C 8-element chunks a thread, R rows a block;
//                                       default: the generator's choice)
//   kernel_sources gemm-any f16|bf16    the GEMM for every shape (samples/gemm_any_source.hpp)
//   kernel_sources gemm-config M N K [SMS BYTES_PER_S FLOPS] [--top COUNT]
//                                       its configurations for that shape, best first, one a
//                                       line: NAME=VALUE ... (default device: an H100's figures)
//
// Exit 0 with the text on stdout; 1 when a file cannot be read or holds no
// such source; 2 on a usage error.
#include <cstdlib>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "../../samples/attention_backward_source.hpp"
#include "../../samples/attention_source.hpp"
#include "../../samples/gemm_any_source.hpp"
#include "../../samples/row_norm_source.hpp"
#include "../../samples/upstream_readme.hpp"
#include "../sample_source.hpp"

namespace {

constexpr const char* kUsage =
    "usage: kernel_sources sample NAME\n"
    "       kernel_sources gemm f16|bf16|fp8\n"
    "       kernel_sources attention f16|bf16|e4m3 D [--no-ping-pong] [--consumers N] [--grouped] [--varlen]\n"
    "                      [--output f16|bf16]\n"
    "       kernel_sources attention-backward f16|bf16 D [--dq-atomics]\n"
    "       kernel_sources readme-gemm README.md\n"
    "       kernel_sources rows softmax|rmsnorm|layernorm f16|bf16 H [--chunks C] [--rows R]\n"
    "       kernel_sources gemm-any f16|bf16\n"
    "       kernel_sources gemm-config M N K [SMS BYTES_PER_S FLOPS] [--top COUNT]\n";

int usage(const std::string& why) {
  std::cerr << "kernel_sources: " << why << "\n" << kUsage;
  return 2;
}

// The one raw string R"croq( ... )croq" of samples/<name>.cpp; empty with
// `error` set when the file cannot be read or has none.
std::string sample_source(const std::string& name, std::string& error) {
  try {
    return croq::bench::sample_source(name);
  } catch (const std::exception& e) {
    error = e.what();
    return "";
  }
}

bool positive_int(const std::string& text, int& out) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v <= 0 || v > 1024) return false;
  out = static_cast<int>(v);
  return true;
}

// `gemm-config M N K [SMS BYTES_PER_S FLOPS] [--top COUNT]`: the ranked
// configurations, one a line of NAME=VALUE defines.
int gemm_config(const std::vector<std::string>& args) {
  std::vector<std::string> numbers;
  long long top = 1;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--top" && i + 1 < args.size()) {
      char* end = nullptr;
      top = std::strtoll(args[++i].c_str(), &end, 10);
      if (*end != '\0' || top <= 0) return usage("--top takes a positive count");
    } else {
      numbers.push_back(args[i]);
    }
  }
  if (numbers.size() != 3 && numbers.size() != 6) return usage("gemm-config takes M N K and optionally SMS BYTES_PER_S FLOPS");
  std::vector<double> v;
  for (const std::string& text : numbers) {
    char* end = nullptr;
    const double x = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(x >= 1) || x > 1e18) return usage("`" + text + "` is not a positive number");
    v.push_back(x);
  }
  gemm_any::Device device = gemm_any::h100();
  if (v.size() == 6) {
    device.sms = static_cast<int>(v[3]);
    device.dram_bytes_per_s = v[4];
    device.tensor_flops = v[5];
  }
  const long long m = static_cast<long long>(v[0]), n = static_cast<long long>(v[1]), k = static_cast<long long>(v[2]);
  const std::vector<gemm_any::Config> ranked = gemm_any::candidates(m, n, k, device);
  for (std::size_t i = 0; i < ranked.size() && static_cast<long long>(i) < top; ++i) {
    std::string line;
    for (const auto& [name, value] : ranked[i].defines()) line += (line.empty() ? "" : " ") + name + "=" + std::to_string(value);
    std::cout << line << "\n";
  }
  return std::cout.good() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // `rows ... [--chunks C] [--rows R]`: the counts taken off here, checked with the rest below.
  int chunks = 0, rows = 0;
  while (args.size() >= 6 && args[0] == "rows" && (args[args.size() - 2] == "--chunks" || args[args.size() - 2] == "--rows")) {
    const bool is_chunks = args[args.size() - 2] == "--chunks";
    if (!positive_int(args.back(), is_chunks ? chunks : rows))
      return usage(is_chunks ? "--chunks takes a positive count" : "--rows takes a positive count");
    args.resize(args.size() - 2);
  }
  if (args.empty()) return usage("no kernel named");
  const std::string& what = args[0];
  std::string error, source;
  if (what == "sample" && args.size() == 2) {
    source = sample_source(args[1], error);
  } else if (what == "gemm" && args.size() == 2) {
    const std::string& element = args[1];
    if (element != "f16" && element != "bf16" && element != "fp8") return usage("gemm takes f16, bf16 or fp8");
    source = sample_source(element == "fp8" ? "matmul_fp8" : "matmul_persistent", error);
    if (element == "bf16") source = std::regex_replace(source, std::regex("\\bf16\\b"), "bf16");
  } else if (what == "attention" && args.size() >= 3) {
    const std::string& element = args[1];
    int head_dim = 0, consumers = 2;
    bool ping_pong = true, grouped = false, varlen = false;
    std::string output = "f16";
    if (element != "f16" && element != "bf16" && element != "e4m3") return usage("attention takes f16, bf16 or e4m3");
    if (!positive_int(args[2], head_dim) || head_dim % 32 != 0 || head_dim > 256)
      return usage("the head dim must be a multiple of 32, at most 256");
    for (std::size_t i = 3; i < args.size(); ++i) {
      if (args[i] == "--no-ping-pong") ping_pong = false;
      else if (args[i] == "--grouped") grouped = true;
      else if (args[i] == "--varlen") varlen = true;
      else if (args[i] == "--output" && i + 1 < args.size() && (args[i + 1] == "f16" || args[i + 1] == "bf16")) output = args[++i];
      else if (args[i] == "--consumers" && i + 1 < args.size() && positive_int(args[i + 1], consumers) && consumers <= 3) ++i;
      else return usage("unknown or incomplete attention option `" + args[i] + "`");
    }
    attention::Config config;
    config.element = element;
    config.head_dim = head_dim;
    config.ping_pong = ping_pong;
    config.consumers = consumers;
    config.grouped = grouped;
    config.varlen = varlen;
    config.output = output;
    try {
      source = attention::source(config);
    } catch (const std::invalid_argument& e) {
      return usage(e.what());
    }
  } else if (what == "attention-backward" && args.size() >= 3) {
    const std::string& element = args[1];
    int head_dim = 0;
    bool dq_pass = true;
    if (element != "f16" && element != "bf16") return usage("attention-backward takes f16 or bf16");
    if (!positive_int(args[2], head_dim) || (head_dim != 64 && head_dim != 128 && head_dim != 256))
      return usage("the backward's head dim is 64, 128 or 256");
    for (std::size_t i = 3; i < args.size(); ++i) {
      if (args[i] == "--dq-atomics") dq_pass = false;
      else return usage("unknown attention-backward option `" + args[i] + "`");
    }
    source = attention::backward_source(element, head_dim, false, dq_pass);
  } else if (what == "rows" && args.size() == 4) {
    const std::string& kind = args[1];
    const std::string& element = args[2];
    if (kind != "softmax" && kind != "rmsnorm" && kind != "layernorm") return usage("rows takes softmax, rmsnorm or layernorm");
    if (element != "f16" && element != "bf16") return usage("rows takes f16 or bf16");
    char* end = nullptr;
    const long long hidden = std::strtoll(args[3].c_str(), &end, 10);
    if (args[3].empty() || *end != '\0' || !row_norm::supported(hidden))
      return usage("the row length must be a multiple of 512 from 512 to 16384");
    if (chunks != 0 && (kind == "layernorm" || !row_norm::chunks_fit(hidden, chunks)))
      return usage("--chunks takes softmax's or rmsnorm's chunks a thread, whole warps of at most 1024 threads");
    const row_norm::Kind k = kind == "softmax"   ? row_norm::Kind::softmax
                             : kind == "rmsnorm" ? row_norm::Kind::rmsnorm
                                                 : row_norm::Kind::layernorm;
    const long long threads = hidden / (8 * (chunks != 0 ? chunks : row_norm::chunks_per_thread(k, hidden)));
    if (rows > 1 && (k == row_norm::Kind::layernorm || rows * threads > 1024))
      return usage("--rows takes softmax's or rmsnorm's rows a block, at most 1024 threads");
    source = row_norm::source(k, element, hidden, row_norm::detail::WarpFolds::shuffles, chunks, rows);
  } else if (what == "readme-gemm" && args.size() == 2) {
    source = upstream_readme_gemm_source(args[1], error);
  } else if (what == "gemm-any" && args.size() == 2) {
    if (args[1] != "f16" && args[1] != "bf16") return usage("gemm-any takes f16 or bf16");
    source = gemm_any::source(args[1]);
  } else if (what == "gemm-config" && args.size() >= 4) {
    return gemm_config(args);
  } else {
    return usage("unknown kernel or wrong arguments");
  }
  if (source.empty()) {
    std::cerr << "kernel_sources: " << error << "\n";
    return 1;
  }
  std::cout << source;
  return std::cout.good() ? 0 : 1;
}
