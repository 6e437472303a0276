// mma.row.row on fp8 tiles (f8_e4m3 / f8_e5m2, either on each side) lowers
// on sm_90a to wgmma.mma_async m64nNk32 with f32 or f16 accumulators: the
// kernels of tests/common/fp8_mma_sources.hpp and samples/matmul_fp8.cpp are
// generated for tail shapes, their CUDA calls croq_dev::wgmma_m64nNk32 with
// the case's types, one instruction per 32 elements of K, and NVRTC compiles
// them for sm_90a to PTX with the fp8 instruction (SASS QGMMA where
// cuobjdump exists). Also the errors that stay: K slices of 16, fp8 mixed
// with f16, fp8 below sm_90a, a row that is not one swizzle span.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "common/specialize_test_util.hpp"
#include "backend/cuda/hopper_prelude.hpp"
#include "common/fp8_mma_sources.hpp"
#include "common/process.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::count;
using test::contains;
using test::dtype_of;

using croq::test::Fp8Gemm;
using test::generate_cuda;
using test::tensor;

// `source` generated for `arch` and A [m, k] of `lhs`, B [n, k] of `rhs`, C [m, n] of `out`.
GeneratedKernel generate_for(const std::string& source, const std::string& lhs, const std::string& rhs,
                             const std::string& out, const std::string& arch = "sm_90a", std::int64_t m = 300,
                             std::int64_t n = 200, std::int64_t k = 208) {
  CompileOptions options;
  options.source_name = "fp8.co";
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  return generate_cuda(*program, fn,
                       {tensor(dtype_of(lhs), {m, k}), tensor(dtype_of(rhs), {n, k}), tensor(dtype_of(out), {m, n})},
                       227 * 1024, {}, arch);
}

jit::NvrtcOutput compile(const GeneratedKernel& k) {
  try {
    return jit::nvrtc_compile(k.cuda_source, "fp8.cu", k.entry, {"sm_90a", false, {}});
  } catch (const CompileError& e) {
    ADD_FAILURE() << "NVRTC rejected the kernel:\n" << e.what() << "\n" << k.cuda_source;
    return {};
  }
}

// "e4m3" of "f8_e4m3": the PTX spelling.
std::string ptx_type(const std::string& t) { return t.substr(3); }
std::string cuda_type(const std::string& t) { return "__nv_fp8_" + ptx_type(t); }

class Fp8Mma : public ::testing::TestWithParam<Fp8Gemm> {};

TEST_P(Fp8Mma, CudaIssuesOneK32WgmmaPer32ElementsOfK) {
  const Fp8Gemm& c = GetParam();
  GeneratedKernel k = generate_for(c.source(), c.lhs, c.rhs, c.out);
  EXPECT_TRUE(k.needs_sm90);
  const std::string& cuda = k.cuda_source;
  EXPECT_TRUE(contains(cuda, "#include <cuda_fp8.h>"));
  // Each mma statement covers the K of its operands: span elements, or one
  // k32 slice of them.
  const int steps = c.operands == Fp8Gemm::Operands::k_slices ? 1 : c.span / 32;
  EXPECT_TRUE(contains(cuda, "for (int k32 = 0; k32 < " + std::to_string(steps) + "; ++k32)")) << cuda;
  EXPECT_TRUE(contains(cuda, "croq_dev::wgmma_m64nNk32<" + std::to_string(c.tile_n) + ", " + cuda_type(c.lhs) + ", " +
                                 cuda_type(c.rhs) + ">(")) << cuda;
  EXPECT_TRUE(contains(cuda, "croq_dev::make_kmajor_desc<" + std::to_string(c.span) + ">(")) << cuda;
  EXPECT_FALSE(contains(cuda, "croq_dev::wgmma_m64nNk16<")) << "fp8 must not take the 16-bit form";
  // The prelude's fp8 section holds the one form the kernel uses.
  const std::string form = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(c.tile_n) + "k32." + c.acc + "." +
                           ptx_type(c.lhs) + "." + ptx_type(c.rhs);
  EXPECT_EQ(count(cuda, "wgmma.mma_async.sync.aligned.m64n"), 96u + 1u) << "the 16-bit forms and " << form;
  EXPECT_EQ(count(cuda, form), 1u);
}

TEST_P(Fp8Mma, Sm90aPtxHasTheFp8Wgmma) {
  const Fp8Gemm& c = GetParam();
  GeneratedKernel k = generate_for(c.source(), c.lhs, c.rhs, c.out);
  jit::NvrtcOutput out = compile(k);
  ASSERT_FALSE(out.cubin.empty());
  const std::string& ptx = out.ptx;
  const std::string form = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(c.tile_n) + "k32." + c.acc + "." +
                           ptx_type(c.lhs) + "." + ptx_type(c.rhs);
  EXPECT_GE(count(ptx, form), 1u) << "no " << form << " in the PTX";
  EXPECT_FALSE(std::regex_search(ptx, std::regex(R"(wgmma\.mma_async\.sync\.aligned\.m64n\d+k16)")));
  EXPECT_GE(count(ptx, "wgmma.commit_group.sync.aligned"), 1u);
  EXPECT_GE(count(ptx, "wgmma.wait_group.sync.aligned"), 1u);
  EXPECT_FALSE(contains(ptx, "mma.sync"));
  EXPECT_EQ(contains(ptx, "cp.async.bulk.tensor.2d"), c.copy == "tma");
  EXPECT_FALSE(contains(ptx, "ld.local")) << "the accumulator must stay in registers";
}

INSTANTIATE_TEST_SUITE_P(Gemm, Fp8Mma, ::testing::ValuesIn(croq::test::fp8_gemm_cases()),
                         [](const auto& info) { return info.param.name(); });

// ---- the sample ---------------------------------------------------------------

jit::NvrtcOutput compile_sample(std::int64_t m, std::int64_t n, std::int64_t k) {
  GeneratedKernel g = generate_for(test::sample_source("matmul_fp8"), "f8_e4m3", "f8_e4m3", "bf16", "sm_90a", m, n, k);
  EXPECT_TRUE(g.needs_sm90);
  EXPECT_TRUE(contains(g.cuda_source, "croq_dev::wgmma_m64nNk32<256, __nv_fp8_e4m3, __nv_fp8_e4m3>(")) << g.cuda_source;
  return compile(g);
}

TEST(Fp8Sample, PtxUsesTmaFp8WgmmaAndRegisterReallocation) {
  for (const auto& [m, n, k] : {std::tuple{4096, 4096, 4096}, std::tuple{300, 520, 208}}) {
    SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k));
    jit::NvrtcOutput out = compile_sample(m, n, k);
    ASSERT_FALSE(out.cubin.empty());
    const std::string& ptx = out.ptx;
    EXPECT_GE(count(ptx, "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"), 2u);
    EXPECT_GE(count(ptx, "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3"), 1u);
    EXPECT_FALSE(contains(ptx, "mma.sync"));
    EXPECT_TRUE(contains(ptx, "setmaxnreg.dec.sync.aligned.u32"));
    EXPECT_TRUE(contains(ptx, "setmaxnreg.inc.sync.aligned.u32"));
  }
}

// fp8 WGMMA is QGMMA in SASS, where the toolkit has cuobjdump (the GPU
// machine does; the CI machine's toolkit lacks it).
TEST(Fp8Sample, SassHasQgmma) {
  const std::filesystem::path cuobjdump = "/usr/local/cuda/bin/cuobjdump";
  if (!std::filesystem::exists(cuobjdump)) GTEST_SKIP() << "no " << cuobjdump << " to disassemble the cubin";
  jit::NvrtcOutput out = compile_sample(4096, 4096, 4096);
  ASSERT_FALSE(out.cubin.empty());
  croq::test::TempDir dir;
  const std::filesystem::path cubin = dir.path() / "matmul_fp8.cubin";
  std::ofstream(cubin, std::ios::binary).write(out.cubin.data(), static_cast<std::streamsize>(out.cubin.size()));
  croq::test::Child child({cuobjdump.string(), "-sass", cubin.string()}, {}, dir.path());
  croq::test::ProcessResult r = child.wait();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(count(r.out, "QGMMA.64x256x32.F32.E4M3.E4M3"), 1u) << "no fp8 QGMMA in the SASS";
}

// ---- the prelude's fp8 section ------------------------------------------------

TEST(Fp8Prelude, SectionHasExactlyTheFormsAsked) {
  using backend::cuda::Fp8WgmmaForm;
  const std::string text = backend::cuda::hopper_prelude_fp8(
      {Fp8WgmmaForm{64, false, true, false}, Fp8WgmmaForm{256, true, false, true}});
  EXPECT_EQ(count(text, "wgmma.mma_async"), 2u);
  EXPECT_TRUE(contains(text, "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2"));
  EXPECT_TRUE(contains(text, "wgmma.mma_async.sync.aligned.m64n256k32.f16.e5m2.e4m3"));
  // fp8 WGMMA has no transpose immediates: scale-d, imm-scale-a, imm-scale-b only.
  EXPECT_TRUE(contains(text, "p, 1, 1;")) << text;
  EXPECT_FALSE(contains(text, "p, 1, 1, 0, 0;")) << text;
}

TEST(Fp8Prelude, EveryFormCompilesForSm90a) {
  // All eight type combinations at N = 8 and N = 256 in one probe kernel.
  std::vector<backend::cuda::Fp8WgmmaForm> forms;
  std::string calls;
  for (int kind = 0; kind < 8; ++kind)
    for (int n : {8, 256}) {
      const bool a5 = kind & 2, b5 = kind & 1, f16 = kind & 4;
      forms.push_back({n, a5, b5, f16});
      const std::string d = "d" + std::to_string(kind) + "_" + std::to_string(n);
      const std::string regs = std::to_string(f16 ? n / 4 : n / 2);
      calls += std::string("  ") + (f16 ? "unsigned " : "float ") + d + "[" + regs + "] = {};\n" +
               "  croq_dev::wgmma_m64nNk32<" + std::to_string(n) + ", __nv_fp8_" + (a5 ? "e5m2" : "e4m3") +
               ", __nv_fp8_" + (b5 ? "e5m2" : "e4m3") + ">(" + d + ", da, db);\n" +
               "  croq_dev::store_accum_global<" + std::to_string(n) + ">(" + d + ", out, 256, 64, " +
               std::to_string(n) + ");\n";
    }
  const std::string source = "#include <cuda_fp8.h>\n" + std::string(backend::cuda::hopper_prelude()) +
                             backend::cuda::hopper_prelude_fp8(forms) +
                             "extern \"C\" __global__ void probe(float* out) {\n"
                             "  __shared__ __align__(1024) unsigned char a[64 * 128], b[256 * 128];\n"
                             "  const unsigned long long da = croq_dev::make_kmajor_desc<128>(a);\n"
                             "  const unsigned long long db = croq_dev::make_kmajor_desc<128>(b);\n"
                             "  croq_dev::wgmma_fence();\n" +
                             calls + "}\n";
  jit::NvrtcOutput out;
  ASSERT_NO_THROW(out = jit::nvrtc_compile(source, "fp8_prelude.cu", "probe", {"sm_90a", false, {}}));
  for (const char* acc : {"f32", "f16"})
    for (const char* a : {"e4m3", "e5m2"})
      for (const char* b : {"e4m3", "e5m2"})
        for (const char* n : {"8", "256"}) {
          const std::string form = std::string("wgmma.mma_async.sync.aligned.m64n") + n + "k32." + acc + "." + a + "." + b;
          EXPECT_TRUE(contains(out.ptx, form)) << form;
        }
}

// ---- errors -----------------------------------------------------------------------

std::string first_error(const std::string& source, const std::string& arch = "sm_90a", const std::string& rhs = "f8_e4m3") {
  try {
    generate_for(source, "f8_e4m3", rhs, "f32", arch);
  } catch (const CompileError& e) {
    return e.diagnostics().empty() ? std::string(e.what()) : e.diagnostics()[0].message;
  }
  return "no error";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(Fp8MmaErrors, WhatStaysRefused) {
  Fp8Gemm g;  // e4m3 x e4m3 -> f32, 128-byte rows, TMA, operands direct
  g.copy = "dma";
  const std::string base = g.source();
  // K slices of 16 elements: 16 bytes, half of one fp8 instruction.
  g.operands = Fp8Gemm::Operands::k_slices;
  EXPECT_EQ(first_error(replaced(g.source(), "foreach {kk} in [4]", "foreach {kk} in [8]")),
            "an mma operand's K range must start and end on multiples of 32 elements (fp8 WGMMA multiplies K in steps "
            "of 32)");
  // fp8 with an f16 rhs.
  EXPECT_EQ(first_error(replaced(replaced(base, "global f8_e4m3 [N, K] rhs", "global f16 [N, K] rhs"),
                                 "rhs.subspan(128, 128)", "rhs.subspan(128, 64)"),
                        "sm_90a", "f16"),
            "WGMMA multiplies f16 or bf16 tiles (both the same) or fp8 tiles (f8_e4m3, f8_e5m2, in any mix), got "
            "f8_e4m3 and f16");
  // No mma.sync form for fp8 (sm_89 has one in PTX; libcroqjit does not lower it).
  for (const std::string arch : {"sm_80", "sm_89", "sm_90"})
    EXPECT_EQ(first_error(base, arch), "mma on fp8 tiles lowers to WGMMA (sm_90a) only; libcroqjit has no mma.sync "
                                       "form for them (compiling for " + arch + ")")
        << arch;
  // mma.row.col: fp8 WGMMA reads K-major operands only.
  EXPECT_EQ(first_error(replaced(base, "mma.row.row", "mma.row.col")),
            "mma.row.col on fp8 tiles is not supported: WGMMA reads fp8 operands K-major only; write mma.row.row (lhs "
            "[M, K], rhs [N, K], both K contiguous)");
  // Unswizzled tiles of 64 fp8 elements: rows of 64 bytes, one 64B span.
  std::string unswizzled = replaced(replaced(base, "lhs.subspan(64, 128)", "lhs.subspan(64, 64)"),
                                    "rhs.subspan(128, 128)", "rhs.subspan(128, 64)");
  unswizzled = replaced(replaced(unswizzled, "dma.copy.swiz<128>", "dma.copy"), "dma.copy.swiz<128>", "dma.copy");
  EXPECT_EQ(first_error(unswizzled),
            "WGMMA reads K-major tiles whose rows are one swizzle span: copy the tile with .swiz<64> (rows of 64 bytes "
            "here) and load it with the same swizzle");
}

}  // namespace
}  // namespace croq::pipeline
