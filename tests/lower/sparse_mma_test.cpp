// mma.row.row.sp (2:4 sparse lhs with u8 metadata) lowers on sm_90a to
// wgmma.mma_async.sp: the kernels of tests/common/sparse_mma_sources.hpp
// call croq_dev::wgmma_sp_m64nNkK once per .sp step (K 32 for 16-bit types,
// 64 for fp8) with each step's metadata register, the prelude's sparse
// section has exactly the forms used, and NVRTC compiles them for sm_90a to
// PTX with the .sp instruction. Also the shape errors of the form.
#include <gtest/gtest.h>

#include <string>

#include "common/specialize_test_util.hpp"
#include "backend/cuda/hopper_prelude.hpp"
#include "common/sparse_mma_sources.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::count;
using test::contains;
using test::dtype_of;

using croq::test::SparseGemm;
using test::generate_cuda;
using test::tensor;

// `source` for packed [m, k/2], meta [m, k/8], rhs [n, k], out f32 [m, n].
GeneratedKernel generate_for(const std::string& source, const std::string& type, const std::string& arch = "sm_90a",
                             std::int64_t m = 128, std::int64_t n = 256, std::int64_t k = 256) {
  CompileOptions options;
  options.source_name = "sparse.co";
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  return generate_cuda(*program, fn,
                       {tensor(dtype_of(type), {m, k / 2}), tensor(DType::u8, {m, k / 8}), tensor(dtype_of(type), {n, k}),
                        tensor(DType::f32, {m, n})},
                       227 * 1024, {}, arch);
}

std::string ptx_type(const std::string& t) { return t.rfind("f8_", 0) == 0 ? t.substr(3) : t; }
std::string cuda_type(const std::string& t) {
  return t == "f16" ? "__half" : t == "bf16" ? "__nv_bfloat16" : "__nv_fp8_" + ptx_type(t);
}
std::string ptx_form(const SparseGemm& c) {
  const std::string t = ptx_type(c.type);
  return "wgmma.mma_async.sp.sync.aligned.m64n" + std::to_string(c.tile_n) + (c.fp8() ? "k64." : "k32.") + c.acc + "." +
         t + "." + t;
}

class SparseMma : public ::testing::TestWithParam<SparseGemm> {};

TEST_P(SparseMma, CudaIssuesOneSparseWgmmaPerStepWithItsMetadata) {
  const SparseGemm& c = GetParam();
  GeneratedKernel k = generate_for(c.source(), c.type);
  EXPECT_TRUE(k.needs_sm90);
  const std::string& cuda = k.cuda_source;
  // One chunk per mma statement: one .sp step each.
  EXPECT_TRUE(contains(cuda, "for (int ks = 0; ks < 1; ++ks)")) << cuda;
  EXPECT_TRUE(contains(cuda, "croq_dev::wgmma_sp_m64nNkK<" + std::to_string(c.tile_n) + ", " + cuda_type(c.type) + ", " +
                                 cuda_type(c.type) + ">(")) << cuda;
  EXPECT_TRUE(contains(cuda, std::string("croq_dev::sparse_metadata<") + (c.fp8() ? "true" : "false") + ">(meta + ks * " +
                                 std::to_string(c.step() / 8) + ", " + std::to_string(c.tile_k / 8) + "u)"))
      << "metadata rows are tile_k / 8 bytes";
  EXPECT_TRUE(contains(cuda, "croq_dev::make_kmajor_desc<" + std::to_string(c.packed_span()) + ">(")) << cuda;
  EXPECT_TRUE(contains(cuda, "croq_dev::make_kmajor_desc<" + std::to_string(c.rhs_span()) + ">(")) << cuda;
  EXPECT_FALSE(contains(cuda, "croq_dev::wgmma_m64nNk16<")) << "a sparse mma must not take a dense form";
  EXPECT_FALSE(contains(cuda, "croq_dev::wgmma_m64nNk32<")) << "a sparse mma must not take a dense form";
  // The section holds the one form used; the dense fp8 section is absent.
  EXPECT_EQ(count(cuda, "wgmma.mma_async.sp.sync.aligned."), 1u);
  EXPECT_EQ(count(cuda, ptx_form(c)), 1u) << ptx_form(c);
  EXPECT_FALSE(contains(cuda, "fp8 WGMMA (m64nNk32"));
}

TEST_P(SparseMma, Sm90aPtxHasTheSparseWgmma) {
  const SparseGemm& c = GetParam();
  GeneratedKernel k = generate_for(c.source(), c.type);
  jit::NvrtcOutput out;
  try {
    out = jit::nvrtc_compile(k.cuda_source, "sparse.cu", k.entry, {"sm_90a", false, {}});
  } catch (const CompileError& e) {
    FAIL() << "NVRTC rejected the kernel:\n" << e.what() << "\n" << k.cuda_source;
  }
  ASSERT_FALSE(out.cubin.empty());
  EXPECT_GE(count(out.ptx, ptx_form(c)), 1u) << "no " << ptx_form(c) << " in the PTX";
  EXPECT_GE(count(out.ptx, "wgmma.wait_group.sync.aligned"), 1u);
  EXPECT_GE(count(out.ptx, "cp.async.bulk.tensor.2d"), 2u);
  EXPECT_FALSE(contains(out.ptx, "ld.local")) << "the accumulator must stay in registers";
}

INSTANTIATE_TEST_SUITE_P(Gemm, SparseMma, ::testing::ValuesIn(croq::test::sparse_gemm_cases()),
                         [](const auto& info) { return info.param.name(); });

TEST(SparsePrelude, EveryTypeAndAccumulatorCompilesForSm90a) {
  std::vector<backend::cuda::SparseWgmmaForm> forms;
  for (int n : {8, 64, 256})
    for (int type : {0, 1, 2, 3})
      for (bool f16 : {false, true})
        if (!(f16 && type == 1)) forms.push_back({n, type, type >= 2 ? 5 - type : type, f16});
  std::string source = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n";
  source += std::string(backend::cuda::hopper_prelude()) + "#include <cuda_fp8.h>\n" +
            backend::cuda::hopper_prelude_sparse(forms);
  // Operands from the kernel's parameters: NVRTC (13) crashes on .sp forms whose
  // descriptors and metadata are constants.
  source += "extern \"C\" __global__ void probe(const unsigned char* meta, float* out, unsigned long long da, "
            "unsigned long long db) {\n"
            "  float d[32] = {}, d8[4] = {};\n  unsigned h[16] = {};\n"
            "  const unsigned e = croq_dev::sparse_metadata<false>(meta, 8u) ^ croq_dev::sparse_metadata<true>(meta, 8u);\n"
            "  croq_dev::wgmma_sp_m64nNkK<64, __half, __half>(d, da, db, e);\n"
            "  croq_dev::wgmma_sp_m64nNkK<64, __nv_fp8_e4m3, __nv_fp8_e5m2>(h, da, db, e);\n"
            "  croq_dev::wgmma_sp_m64nNkK<8, __nv_bfloat16, __nv_bfloat16>(d8, da, db, e);\n"
            "  out[threadIdx.x] = d[0] + d[31] + d8[3] + h[0];\n}\n";
  jit::NvrtcOutput out;
  ASSERT_NO_THROW(out = jit::nvrtc_compile(source, "sparse_prelude.cu", "probe", {"sm_90a", false, {}})) << source;
  EXPECT_TRUE(contains(out.ptx, "wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.f16.f16"));
  EXPECT_TRUE(contains(out.ptx, "wgmma.mma_async.sp.sync.aligned.m64n64k64.f16.e4m3.e5m2"));
  EXPECT_TRUE(contains(out.ptx, "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16"));
}

// ---- errors -----------------------------------------------------------------------

std::string first_error(const std::string& source, const std::string& type = "f16", const std::string& arch = "sm_90a") {
  try {
    generate_for(source, type, arch);
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

TEST(SparseMmaErrors, ShapesTargetsAndMetadata) {
  const SparseGemm g;  // f16, K 64 a stage (two .sp steps), N 32
  const std::string base = g.source();
  // mma.sync has no .sp form in libcroqjit.
  std::string dma = base;
  for (std::size_t at = dma.find("tma.copy"); at != std::string::npos; at = dma.find("tma.copy")) dma.replace(at, 3, "dma");
  EXPECT_EQ(first_error(dma, "f16", "sm_80"),
            "a sparse mma (`.sp`) lowers to WGMMA .sp, which needs sm_90a; compiling for sm_80");
  // The packed lhs must hold half of rhs's K: here the whole stage against one chunk of rhs.
  EXPECT_EQ(first_error(replaced(base, "a.chunkat(_, iv_s)", "a")),
            "a sparse lhs holds half of K: rhs has K = 32, so lhs must be [64, 16], got [64, 32]");
  // Metadata of the whole stage for one step.
  EXPECT_EQ(first_error(replaced(base, "mma.load e.chunkat(_, iv_s)", "mma.load e")),
            "the metadata of a sparse mma with K = 32 is a u8 [64, 4] tile (two 4-bit codes a byte), got u8 [64, 8]");
  // A K that is not a whole .sp step: 16 columns of rhs (8 packed of lhs).
  EXPECT_EQ(first_error(replaced(replaced(base, "a.chunkat(_, iv_s)", "a.subspan(64, 8).at(0, iv_s)"), "b.chunkat(_, iv_s)",
                                 "b.subspan(32, 16).at(0, iv_s)")),
            "a sparse 16-bit WGMMA multiplies K in steps of 32, got K = 16");
}

}  // namespace
}  // namespace croq::pipeline
