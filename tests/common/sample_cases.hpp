// The samples' kernels as the IR tests specialize them: the shapes their
// host code uses, the IR golden files of tests/data/ir (golden), and every
// other sample (the round-trip and pass-equivalence tests take all).
#pragma once

#include <regex>
#include <string>
#include <vector>

#include "../../samples/attention_source.hpp"
#include "common/mma_accumulator_load_sources.hpp"
#include "common/ir_test_util.hpp"
#include "pipeline/specialize.hpp"

namespace croq::ir::test {

struct SampleCase {
  std::string name;    // tests/data/ir/<name>.ir for a golden case
  std::string sample;  // samples/<sample>.cpp
  std::vector<abi::ArgSignature> args;
  std::string arch = "sm_90a";
  bool bf16 = false;    // the f16 sample with its element type swapped
  bool golden = false;  // has a golden file
  std::string source;   // instead of the sample's embedded source (generated text)
};

// gtest prints parameters with this instead of their bytes.
inline void PrintTo(const SampleCase& c, std::ostream* os) { *os << c.name; }

inline std::vector<SampleCase> sample_cases() {
  using D = DType;
  const auto add = [](std::vector<SampleCase>& to, std::string name, std::string sample, std::vector<abi::ArgSignature> args,
                      std::string arch = "sm_90a") -> SampleCase& {
    SampleCase& c = to.emplace_back();
    c.name = std::move(name);
    c.sample = std::move(sample);
    c.args = std::move(args);
    c.arch = std::move(arch);
    return c;
  };
  std::vector<SampleCase> out;
  const auto pair = [](D t, std::int64_t m, std::int64_t n) {
    return std::vector<abi::ArgSignature>{tensor(t, {m, n}), tensor(t, {m, n})};
  };
  const auto gemm = [](D in, D out_type, std::int64_t m, std::int64_t n, std::int64_t k) {
    return std::vector<abi::ArgSignature>{tensor(in, {m, k}), tensor(in, {n, k}), tensor(out_type, {m, n})};
  };
  add(out, "ele_add", "ele_add", pair(D::s32, 100, 300)).golden = true;
  add(out, "tiled_add", "tiled_add", pair(D::s32, 64, 128)).golden = true;
  add(out, "matmul_dma", "matmul_dma", {tensor(D::s32, {128, 256}), tensor(D::s32, {256, 256})}).golden = true;
  add(out, "transpose", "transpose", {tensor(D::f32, {256, 512})}).golden = true;
  add(out, "view_from", "view_from", {tensor(D::f32, {300, 70}), tensor(D::f32, {8})}).golden = true;
  add(out, "pad", "pad", {tensor(D::f32, {64, 128})}).golden = true;
  add(out, "matmul_tma_sm90a", "matmul_tma", gemm(D::f16, D::f16, 300, 200, 136)).golden = true;
  add(out, "matmul_wgmma_sm90a", "matmul_wgmma", gemm(D::f16, D::f16, 256, 256, 256)).golden = true;
  SampleCase& persistent = add(out, "matmul_persistent_sm90a", "matmul_persistent", gemm(D::bf16, D::bf16, 4096, 4096, 4096));
  persistent.golden = persistent.bf16 = true;
  add(out, "matmul_scalar", "matmul_scalar", {tensor(D::s32, {128, 256}), tensor(D::s32, {256, 256})});
  add(out, "matmul_fp8", "matmul_fp8", gemm(D::f8_e4m3, D::bf16, 300, 520, 208));
  add(out, "row_scale", "row_scale", {tensor(D::f32, {100, 300})});
  add(out, "device_add", "device_add", {tensor(D::s32, {4, 16, 64}), tensor(D::s32, {4, 16, 64})});
  // Warp accumulators loaded from the output tile (ir::MmaLoad), with tails.
  add(out, "accumulator_load_sm80", "", gemm(D::f16, D::f32, 40, 20, 40), "sm_80").source =
      ::croq::test::kAccumulateIntoOutput;
  const abi::ArgSignature causal = integer_scalar();
  for (const auto& [element, d] : {std::pair{"f16", 64}, std::pair{"bf16", 128}}) {
    const auto qkv = tensor(std::string(element) == "f16" ? D::f16 : D::bf16, {2, 4, 300, d});
    add(out, std::string("flash_attention_") + element + "_d" + std::to_string(d), "flash_attention",
        {qkv, qkv, qkv, qkv, causal})
        .source = attention::source(element, d);
  }
  return out;
}

inline std::vector<SampleCase> golden_cases() {
  std::vector<SampleCase> out;
  for (SampleCase& c : sample_cases())
    if (c.golden) out.push_back(std::move(c));
  return out;
}

inline std::string case_source(const SampleCase& c) {
  std::string source = c.source.empty() ? sample_source(c.sample) : c.source;
  if (c.bf16) source = std::regex_replace(source, std::regex(R"(\bf16 \[)"), "bf16 [");
  return source;
}

// The case's kernels through the middle end (the verifier on), each
// kernel's IR text kept after `stage` in `detail`.
inline pipeline::GeneratedProgram generate_case(const SampleCase& c, const std::string& stage = "",
                                                IrDetail detail = IrDetail::summary) {
  CompileOptions options;
  options.source_name = "kernel.co";
  auto program = frontend::parse_program(case_source(c), options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  pipeline::GenerateOptions g;
  g.keep_ir = true;
  g.ir_after = stage;
  g.ir_detail = detail;
  g.verify_ir = true;
  return pipeline::generate_program(*program, fn, c.args, target::parse_target(c.arch), g);
}

}  // namespace croq::ir::test
