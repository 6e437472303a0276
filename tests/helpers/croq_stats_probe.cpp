// Runs croq::compile / prepare / precompile steps on one Croqtile file in a
// fresh process (the kernel cache configured from the environment, as an
// application's is) and prints every kernel's stats() as JSON. Tests use it
// to see where specializations came from across processes.
//
//   croq_stats_probe FILE.co STEP...
//     kernel[:N=V,...]          croq::compile FILE.co (with those defines);
//                               the calls after it use this kernel
//     call:SIG                  kernel.prepare() with SIG's arguments
//     precompile:ARCH,...:SIG   croq::precompile FILE.co for SIG and the archs
//   SIG: arguments separated by `;`: a tensor `f32[128,256]`, `int`, `float`
//
// Output: {"kernels": [{"specializations": [...], "compiled": N, ...}, ...],
//          "precompiled": [...], "error": MESSAGE, "error_type": TYPE}
// (error only when a step threw; the steps after it do not run).
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "croq/croq.hpp"

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::vector<croq::Arg> arguments(const std::string& signature) {
  std::vector<croq::Arg> args;
  for (const std::string& a : split(signature, ';')) {
    if (a == "int") {
      args.emplace_back(0);
      continue;
    }
    if (a == "float") {
      args.emplace_back(0.0);
      continue;
    }
    const std::size_t open = a.find('[');
    croq::DType dtype;
    if (open == std::string::npos || !croq::parse_dtype(a.substr(0, open), dtype))
      throw std::invalid_argument("bad argument `" + a + "`");
    croq::Shape shape;
    for (const std::string& extent : split(a.substr(open + 1, a.size() - open - 2), ','))
      shape.push_back(std::stoull(extent));
    args.emplace_back(croq::TensorView::contiguous(nullptr, dtype, shape));
  }
  return args;
}

nlohmann::json to_json(const croq::KernelStats& stats) {
  nlohmann::json specs = nlohmann::json::array();
  for (const auto& s : stats.specializations)
    specs.push_back({{"signature", s.signature}, {"arch", s.arch}, {"source", croq::image_source_name(s.source)},
                     {"reason", s.reason}, {"compile_ms", s.compile_ms}, {"images", s.images},
                     {"images_compiled", s.images_compiled}});
  return {{"specializations", specs}, {"memory", stats.memory}, {"disk", stats.disk}, {"remote", stats.remote},
          {"compiled", stats.compiled}, {"nvrtc_compiles", stats.nvrtc_compiles}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: croq_stats_probe FILE.co STEP...\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  const std::string source = text.str();
  std::vector<croq::Kernel> kernels;
  nlohmann::json out{{"kernels", nlohmann::json::array()}, {"precompiled", nlohmann::json::array()}};
  try {
    for (int i = 2; i < argc; ++i) {
      const std::string step = argv[i];
      if (step.rfind("kernel", 0) == 0) {
        croq::CompileOptions options;
        options.source_name = argv[1];
        if (step.size() > 7)
          for (const std::string& d : split(step.substr(7), ',')) {
            const std::size_t eq = d.find('=');
            options.defines[d.substr(0, eq)] = std::int64_t{std::stoll(d.substr(eq + 1))};
          }
        kernels.push_back(croq::compile(source, options));
      } else if (step.rfind("call:", 0) == 0) {
        const auto args = arguments(step.substr(5));
        kernels.back().prepare(args);
      } else if (step.rfind("precompile:", 0) == 0) {
        const std::size_t colon = step.find(':', 11);
        const std::vector<std::string> archs = split(step.substr(11, colon - 11), ',');
        const std::vector<std::vector<croq::Arg>> signatures{arguments(step.substr(colon + 1))};
        croq::CompileOptions options;
        options.source_name = argv[1];  // as the kernel steps: the generated code names it
        out["precompiled"].push_back(to_json(croq::precompile(source, options, signatures, archs)));
      } else {
        std::cerr << "unknown step `" << step << "`\n";
        return 2;
      }
    }
  } catch (const croq::CacheError& e) {
    out["error"] = e.what();
    out["error_type"] = "CacheError";
  } catch (const croq::Error& e) {
    out["error"] = e.what();
    out["error_type"] = "Error";
  }
  for (const croq::Kernel& k : kernels) out["kernels"].push_back(to_json(k.stats()));
  std::cout << out.dump() << std::endl;
  return 0;
}
