// mma.* below sm_90: generated for targets 80..89 the same statements lower
// to mma.sync m16n8k16 fed by ldmatrix, and the CUDA compiles with NVRTC for
// sm_80 (sm_86, sm_89 where NVRTC has them) and to PTX for compute_80; for
// sm_90a the same source is WGMMA. Covers f16 / bf16 inputs, f32 / f16
// accumulators, 128/64/32-byte swizzles and unswizzled tiles, tails
// (.zfill), two consumer warpgroups, events on sm_80, and the errors that
// stay: tma.copy needs sm_90, the shape rules, targets below sm_80.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "common/specialize_test_util.hpp"
#include "backend/cuda/hopper_prelude.hpp"
#include "common/mma_sync_sources.hpp"
#include "croq/croq.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::contains;
using test::dtype_of;

using backend::cuda::hopper_prelude;

using croq::test::kMmaSyncPipelined;
using croq::test::mma_sync_gemm;
using croq::test::MmaSyncGemm;
using croq::test::WarpMmaGemm;
using test::generate_cuda;
using test::integer_scalar;
using test::tensor;

bool nvrtc_has(const std::string& arch) {
  auto archs = jit::nvrtc_supported_archs();
  return std::find(archs.begin(), archs.end(), arch) != archs.end();
}

// Generates `source` for `arch` and the tail shape M = 300,
// N = 200, K = 136 (every tile edge is partial).
GeneratedKernel generate_for(const std::string& source, const std::string& in, const std::string& out, const std::string& arch,
                             std::int64_t m = 300, std::int64_t n = 200, std::int64_t k = 136) {
  CompileOptions options;
  options.source_name = "mma_sync.co";
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  return generate_cuda(*program, fn, {tensor(dtype_of(in), {m, k}), tensor(dtype_of(in), {n, k}), tensor(dtype_of(out), {m, n})},
                       227 * 1024, {}, arch);
}

// The same for compute capability `sm` (sm_90a for 90, else sm_XY).
GeneratedKernel generate_for(const std::string& source, const std::string& in, const std::string& out, int sm,
                             std::int64_t m = 300, std::int64_t n = 200, std::int64_t k = 136) {
  return generate_for(source, in, out, sm == 90 ? "sm_90a" : "sm_" + std::to_string(sm), m, n, k);
}

jit::NvrtcOutput compile(const GeneratedKernel& k, const std::string& arch) {
  try {
    return jit::nvrtc_compile(k.cuda_source, "mma_sync.cu", k.entry, {arch, false, {}});
  } catch (const CompileError& e) {
    ADD_FAILURE() << "NVRTC rejected the kernel for " << arch << ":\n" << e.what() << "\n" << k.cuda_source;
    return {};
  }
}

// The PTX type suffix of the m16n8k16 the case lowers to.
std::string mma_types(const MmaSyncGemm& c) {
  return c.acc == "f16" ? ".f16.f16.f16.f16" : ".f32." + c.in + "." + c.in + ".f32";
}

class MmaSync : public ::testing::TestWithParam<MmaSyncGemm> {};

TEST_P(MmaSync, Sm80PtxUsesMmaSyncAndLdmatrix) {
  const MmaSyncGemm& c = GetParam();
  GeneratedKernel k = generate_for(c.source(), c.in, c.out, 80);
  EXPECT_FALSE(k.needs_sm90) << "dma.copy + mma runs below sm_90";
  EXPECT_TRUE(contains(k.cuda_source, "croq_dev::mma_sync_m64nNkK<" + std::to_string(c.tile_n) + ", " +
                                          std::to_string(c.k_step()) + ", " + std::to_string(c.span) + "u, " +
                                          std::to_string(c.span) + "u, "))
      << k.cuda_source;
  EXPECT_FALSE(contains(k.cuda_source, "croq_dev::wgmma_")) << k.cuda_source;
  jit::NvrtcOutput out = compile(k, "sm_80");
  ASSERT_FALSE(out.cubin.empty());
  const std::string& ptx = out.ptx;
  EXPECT_TRUE(contains(ptx, "mma.sync.aligned.m16n8k16.row.col" + mma_types(c))) << "no m16n8k16" << mma_types(c);
  EXPECT_TRUE(contains(ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
  EXPECT_EQ(contains(ptx, "ldmatrix.sync.aligned.m8n8.x2.shared.b16"), (c.tile_n / 8) % 2 == 1)
      << "x2 loads only the last of an odd number of n8 blocks";
  EXPECT_FALSE(contains(ptx, "wgmma"));
  EXPECT_FALSE(contains(ptx, "cp.async.bulk"));
  EXPECT_FALSE(contains(ptx, "setmaxnreg"));
  EXPECT_FALSE(contains(ptx, "ld.local")) << "the accumulator must stay in registers";
}

TEST_P(MmaSync, ComputeCapability86And89Compile) {
  const MmaSyncGemm& c = GetParam();
  for (const std::string arch : {"sm_86", "sm_89"}) {
    if (!nvrtc_has(arch)) continue;
    GeneratedKernel k = generate_for(c.source(), c.in, c.out, arch);
    jit::NvrtcOutput out = compile(k, arch);
    EXPECT_FALSE(out.cubin.empty()) << arch;
    EXPECT_TRUE(contains(out.ptx, "mma.sync.aligned.m16n8k16")) << arch;
  }
}

TEST_P(MmaSync, Compute80IsPtxOnly) {
  const MmaSyncGemm& c = GetParam();
  GeneratedKernel k = generate_for(c.source(), c.in, c.out, "compute_80");
  jit::NvrtcOutput out = compile(k, "compute_80");
  EXPECT_TRUE(out.cubin.empty()) << "a virtual architecture has no cubin";
  EXPECT_TRUE(contains(out.ptx, ".target sm_80"));
  EXPECT_TRUE(contains(out.ptx, "mma.sync.aligned.m16n8k16.row.col" + mma_types(c)));
}

// Only sm_90a / compute_90a have WGMMA: sm_90 and compute_90 without the
// 'a', and the newer archs (sm_100a, sm_120) lower mma.* to mma.sync, which
// runs on all of them; sm_90a stays WGMMA.
TEST_P(MmaSync, ArchsFrom90WithoutSm90aFeaturesUseMmaSync) {
  const MmaSyncGemm& c = GetParam();
  for (const std::string arch : {"sm_90", "compute_90", "sm_100a", "compute_100a", "sm_120"}) {
    if (!nvrtc_has("sm_" + std::to_string(jit::arch_number(arch)))) continue;
    EXPECT_FALSE(target::parse_target(arch).wgmma()) << arch;
    GeneratedKernel k = generate_for(c.source(), c.in, c.out, arch);
    EXPECT_FALSE(k.needs_sm90) << arch;
    EXPECT_FALSE(contains(k.cuda_source, "croq_dev::wgmma_")) << arch;
    jit::NvrtcOutput out = compile(k, arch);
    EXPECT_EQ(out.cubin.empty(), jit::is_virtual_arch(arch)) << arch;
    EXPECT_TRUE(contains(out.ptx, "mma.sync.aligned.m16n8k16.row.col" + mma_types(c))) << arch;
    EXPECT_FALSE(contains(out.ptx, "wgmma")) << arch;
    EXPECT_FALSE(contains(out.ptx, "setmaxnreg")) << arch;
  }
  const target::Target sm90a = target::parse_target("sm_90a");
  EXPECT_TRUE(sm90a.wgmma());
  EXPECT_EQ(sm90a.sm, 90);
  EXPECT_TRUE(target::parse_target("compute_90a").wgmma());
}

// WGMMA needs swizzled tiles whose rows are one span; those cases lower to
// wgmma for sm_90a from the very same source, the others are a CompileError
// there that says how to copy the tile.
TEST_P(MmaSync, Sm90aPtxUsesWgmma) {
  const MmaSyncGemm& c = GetParam();
  if (c.span == 0 || c.k_step() * 2 != c.span) {
    try {
      generate_for(c.source(), c.in, c.out, 90);
      ADD_FAILURE() << "an unswizzled mma operand must be refused on sm_90a";
    } catch (const CompileError& e) {
      ASSERT_FALSE(e.diagnostics().empty());
      EXPECT_NE(e.diagnostics()[0].message.find("WGMMA reads K-major tiles whose rows are one swizzle span"),
                std::string::npos)
          << e.diagnostics()[0].message;
    }
    return;
  }
  GeneratedKernel k = generate_for(c.source(), c.in, c.out, 90);
  EXPECT_TRUE(k.needs_sm90);
  jit::NvrtcOutput out = compile(k, "sm_90a");
  EXPECT_TRUE(contains(out.ptx, "wgmma.mma_async.sync.aligned.m64n" + std::to_string(c.tile_n) + "k16"));
  EXPECT_FALSE(contains(out.ptx, "mma.sync.aligned.m16n8k16"));
  EXPECT_FALSE(contains(out.ptx, "ldmatrix"));
}

INSTANTIATE_TEST_SUITE_P(Gemm, MmaSync, ::testing::ValuesIn(croq::test::mma_sync_gemm_cases()),
                         [](const auto& info) { return info.param.name(); });

// ---- events on sm_80 --------------------------------------------------------------

TEST(MmaSyncEvents, PipelineCompilesForSm80WithTheSm80MbarrierSubset) {
  GeneratedKernel k = generate_for(kMmaSyncPipelined, "f16", "f16", 80);
  EXPECT_FALSE(k.needs_sm90);
  EXPECT_FALSE(contains(k.cuda_source, "croq_dev::setmaxnreg")) << "register reallocation is sm_90 only";
  jit::NvrtcOutput out = compile(k, "sm_80");
  const std::string& ptx = out.ptx;
  EXPECT_TRUE(contains(ptx, "mbarrier.init.shared.b64"));
  EXPECT_TRUE(contains(ptx, "mbarrier.arrive.shared.b64"));
  EXPECT_TRUE(contains(ptx, "mbarrier.test_wait.parity.shared.b64"));
  EXPECT_FALSE(contains(ptx, "try_wait"));
  EXPECT_FALSE(contains(ptx, "fence.mbarrier_init"));
  EXPECT_FALSE(contains(ptx, "setmaxnreg"));
  EXPECT_TRUE(contains(ptx, "mma.sync.aligned.m16n8k16"));

  // The same kernel for sm_90a keeps try_wait, setmaxnreg and WGMMA.
  GeneratedKernel hopper = generate_for(kMmaSyncPipelined, "f16", "f16", 90);
  EXPECT_TRUE(contains(hopper.cuda_source, "croq_dev::setmaxnreg_dec<40>();"));
  jit::NvrtcOutput h = compile(hopper, "sm_90a");
  EXPECT_TRUE(contains(h.ptx, "mbarrier.try_wait.parity.shared::cta.b64"));
  EXPECT_TRUE(contains(h.ptx, "setmaxnreg.dec.sync.aligned.u32 40"));
  EXPECT_TRUE(contains(h.ptx, "wgmma.mma_async"));
}

// ---- the prelude alone ----------------------------------------------------------

TEST(MmaSyncPrelude, CompilesForSm80WithoutHopperInstructions) {
  std::string source = std::string(hopper_prelude()) +
                       "extern \"C\" __global__ void probe(float* out) {\n"
                       "  __shared__ __align__(1024) __half a[64 * 64];\n"
                       "  __shared__ __align__(1024) __half b[64 * 64];\n"
                       "  float d[32];\n"
                       "  for (int i = 0; i < 32; ++i) d[i] = 0.0f;\n"
                       "  croq_dev::mma_sync_m64nNkK<64, 64, 128u, 128u, __half>(d, a, 128u, b, 128u);\n"
                       "  croq_dev::store_accum_global<64>(d, out, 64, 64, 64);\n"
                       "}\n";
  for (const std::string arch : {"sm_80", "compute_80", "sm_90a"}) {
    jit::NvrtcOutput out;
    ASSERT_NO_THROW(out = jit::nvrtc_compile(source, "prelude_sm80.cu", "probe", {arch, false, {}})) << arch;
    EXPECT_TRUE(contains(out.ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")) << arch;
    EXPECT_FALSE(contains(out.ptx, "wgmma.")) << arch;
  }
}

// ---- errors ---------------------------------------------------------------------

std::string first_error(const std::string& source, int target_sm, const std::string& in = "f16",
                        const std::string& out = "f16") {
  try {
    generate_for(source, in, out, target_sm);
  } catch (const CompileError& e) {
    return e.diagnostics().empty() ? std::string(e.what()) : e.diagnostics()[0].message;
  }
  return "no error";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(MmaSyncErrors, ShapeRulesStayBelowSm90) {
  const std::string base = mma_sync_gemm("f16", "f16", "f32", 128).source();
  // 32 rows of lhs for one warpgroup.
  EXPECT_EQ(first_error(replaced(base, "ma = mma.load.swiz<128> a.data;", "ma = mma.load.swiz<128> a.data.subspan(32, 64).at(0, 0);"), 80),
            "one warpgroup's mma takes 64 rows of lhs (16 per warp), got 32");
  // K not a multiple of 16 (unswizzled, so the tile may be 40 wide).
  EXPECT_EQ(first_error(mma_sync_gemm("f16", "f16", "f32", 0, 40).source(), 80),
            "an mma operand's K range must start and end on multiples of 16 elements");
  // N past 256.
  EXPECT_EQ(first_error(mma_sync_gemm("f16", "f16", "f32", 128, 0, 264).source(), 80),
            "mma's N (rhs rows) must be a multiple of 8 up to 256, got 264");
  // f16 accumulator with bf16 inputs.
  EXPECT_EQ(first_error(mma_sync_gemm("bf16", "f32", "f16", 128).source(), 80, "bf16", "f32"),
            "an f16 accumulator takes f16 or fp8 inputs; use mma.fill.f32 for bf16");
  // mma.load's swizzle must match the copy's (unchanged from sm_90).
  EXPECT_EQ(first_error(replaced(base, "mb = mma.load.swiz<128> b.data;", "mb = mma.load b.data;"), 80),
            "mma.load does not match the tile's layout: it was copied with .swiz<128>");
  // An unswizzled tile for WGMMA is still the WGMMA message on sm_90.
  EXPECT_NE(first_error(mma_sync_gemm("f16", "f16", "f32", 0).source(), 90).find("WGMMA reads K-major tiles whose rows are one swizzle span"),
            std::string::npos);
  EXPECT_EQ(first_error(mma_sync_gemm("f16", "f16", "f32", 0).source(), 80), "no error");
  // In a `: group` level each warp multiplies its own tiles (warp-level
  // mma): a 64-row lhs makes each warp a 64-row accumulator, which the
  // warpgroup's 64-row destination fits.
  EXPECT_EQ(first_error(replaced(base, "parallel p by 1 : group-4", "parallel p by 4 : group"), 80), "no error");
}

// kMmaSyncPipelined with the consumer region written before the producer's
// and the copies' swizzle `swiz` (".swiz<128>" or "").
std::string consumer_first(const std::string& swiz) {
  std::string text = kMmaSyncPipelined;
  const std::size_t producer = text.find("      inthreads.async (p == 0)");
  const std::size_t consumer = text.find("      inthreads.async (p >= 1)");
  const std::size_t end = text.rfind("    }\n  }\n}");
  text = text.substr(0, producer) + text.substr(consumer, end - consumer) + text.substr(producer, consumer - producer) +
         text.substr(end);
  for (std::size_t at = text.find(".swiz<128>"); at != std::string::npos; at = text.find(".swiz<128>", at + swiz.size()))
    text.replace(at, 10, swiz);
  return text;
}

// The warp-specialized pipeline (events, producer and consumer warpgroups)
// on sm_90 without the 'a' and the newer archs: mma.sync, the sm_90 barrier
// forms, and no register reallocation (setmaxnreg is sm_90a's); sm_90a keeps
// WGMMA and setmaxnreg.
TEST(MmaSyncEvents, PipelineOnArchsWithoutSm90aFeatures) {
  for (const std::string arch : {"sm_90", "compute_90", "sm_100a", "sm_120"}) {
    if (!nvrtc_has("sm_" + std::to_string(jit::arch_number(arch)))) continue;
    GeneratedKernel k = generate_for(kMmaSyncPipelined, "f16", "f16", arch);
    EXPECT_FALSE(contains(k.cuda_source, "croq_dev::setmaxnreg_")) << arch;
    jit::NvrtcOutput out = compile(k, arch);
    EXPECT_TRUE(contains(out.ptx, "mma.sync.aligned.m16n8k16")) << arch;
    EXPECT_FALSE(contains(out.ptx, "wgmma")) << arch;
    EXPECT_FALSE(contains(out.ptx, "setmaxnreg")) << arch;
  }
  GeneratedKernel k = generate_for(kMmaSyncPipelined, "f16", "f16", "sm_90a");
  EXPECT_TRUE(contains(k.cuda_source, "croq_dev::setmaxnreg_inc<")) << k.cuda_source;
  jit::NvrtcOutput out = compile(k, "sm_90a");
  EXPECT_TRUE(contains(out.ptx, "wgmma.mma_async"));
  EXPECT_TRUE(contains(out.ptx, "setmaxnreg.inc"));
}

// An mma that reads a shared tile before the copy that fills it (in source
// order) fixes the tile's layout as unswizzled: a later swizzled copy is the
// layout error, not a kernel that reads the tile with the wrong layout.
TEST(MmaSyncErrors, ConsumerBeforeProducerFixesTheLayout) {
  try {
    generate_for(consumer_first(".swiz<128>"), "f16", "f16", 80);
    ADD_FAILURE() << "a swizzled copy after an unswizzled read must be refused";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].message, "this copy writes the tile with swizzle 128 but it was written with swizzle 0 before");
    EXPECT_EQ(e.diagnostics()[0].line, 22);  // the first dma.copy.swiz<128>
    EXPECT_EQ(e.diagnostics()[0].column, 20);  // at `swiz<128>`
  }
  // The same with mma.load: its (missing) swizzle fixes the layout too.
  const std::string loaded = replaced(consumer_first(".swiz<128>"),
                                      "mma.row.row mc, lhs_s[stage].subspan(64, 64).at(p - 1, 0), rhs_s[stage];",
                                      "ma = mma.load lhs_s[stage].subspan(64, 64).at(p - 1, 0); mma.row.row mc, ma, rhs_s[stage];");
  EXPECT_EQ(first_error(loaded, 80), "this copy writes the tile with swizzle 128 but it was written with swizzle 0 before");
  // Unswizzled copies agree with the unswizzled read: that compiles.
  GeneratedKernel k = generate_for(consumer_first(""), "f16", "f16", 80);
  EXPECT_TRUE(contains(k.cuda_source, "croq_dev::mma_sync_m64nNkK<128, 64, 0u, 0u, __half>")) << k.cuda_source;
  EXPECT_FALSE(compile(k, "sm_80").cubin.empty());
}

TEST(MmaSyncErrors, TargetsBelowSm80AreRefused) {
  EXPECT_EQ(first_error(mma_sync_gemm("f16", "f16", "f32", 128).source(), 75),
            "mma lowers to WGMMA on sm_90a and to mma.sync m16n8k16 on sm_80 to sm_89; compiling for sm_75 has neither");
  EXPECT_EQ(first_error(kMmaSyncPipelined, 75), "events are mbarriers, which need sm_80 or newer (compiling for sm_75)");
}

// tma.copy stays sm_90 only: through the public API croq::compile names the
// arch (the options give it; no device is needed).
TEST(MmaSyncErrors, TmaCopyNeedsSm90) {
  const char* source = R"croq(
__co__ void f(global f16 [M, K] lhs, global f16 [M, K] out) {
  parallel bm by cdiv(M, 64) : block {
    a = tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, 0) => shared;
    dma.copy a.data => out.subspan(64, 64).at(bm, 0);
  }
}
)croq";
  for (const std::string arch : {"sm_80", "compute_80"}) {
    CompileOptions options;
    options.arch = arch;
    try {
      croq::compile(source, options);
      ADD_FAILURE() << "expected a CompileError for " << arch;
    } catch (const CompileError& e) {
      ASSERT_FALSE(e.diagnostics().empty());
      EXPECT_EQ(e.diagnostics()[0].message, "tma.copy needs sm_90 (Hopper); use dma.copy (compiling for " + arch + ")");
    }
  }
}

}  // namespace
}  // namespace croq::pipeline

namespace croq::pipeline {
namespace {

// Warp-level mma (each warp of a `: group` level its own 16 x 8 tile) is
// mma.sync on every target from sm_80, sm_90a included: no WGMMA, ldmatrix
// for lhs, ldmatrix.trans for a row.col rhs ([K, N]), and NVRTC compiles it.
class WarpMma : public ::testing::TestWithParam<WarpMmaGemm> {};

GeneratedKernel generate_warp(const WarpMmaGemm& c, const std::string& arch) {
  CompileOptions options;
  options.source_name = "warp_mma.co";
  auto program = frontend::parse_program(c.source(), options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  const std::int64_t m = 100, n = 40, k = 80;  // partial tiles in M, N and K
  return test::generate_cuda(*program, fn,
                             {test::tensor(dtype_of(c.in), {m, k}),
                              test::tensor(dtype_of(c.in), c.row_col ? std::vector<std::int64_t>{k, n} : std::vector<std::int64_t>{n, k}),
                              test::tensor(dtype_of(c.out), {m, n})},
                             227 * 1024, {}, arch);
}

TEST_P(WarpMma, Sm80AndSm90aPtxUseMmaSyncPerWarp) {
  const WarpMmaGemm& c = GetParam();
  // A warp's accumulator keeps f32 registers, f16 ones too (rounded to f16
  // when stored), so every case multiplies with f32 accumulation.
  const std::string types = ".f32." + c.in + "." + c.in + ".f32";
  for (const std::string arch : {"sm_80", "sm_90a"}) {
    SCOPED_TRACE(arch);
    GeneratedKernel k = generate_warp(c, arch);
    EXPECT_FALSE(k.needs_sm90) << "warp-level mma is mma.sync, which needs no sm_90";
    EXPECT_TRUE(contains(k.cuda_source, "croq_dev::mma_sync_m16nNkK<8, " + std::to_string(c.tile_k)));
    // The warp's own 16 x 8 tile is stored with M = 16.
    EXPECT_TRUE(contains(k.cuda_source, "store_warp_accum<16, 8>(")) << k.cuda_source;
    jit::NvrtcOutput out = compile(k, arch);
    EXPECT_TRUE(contains(out.ptx, "mma.sync.aligned.m16n8k16.row.col" + types)) << "no m16n8k16" << types;
    EXPECT_TRUE(contains(out.ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16")) << "lhs through ldmatrix";
    EXPECT_EQ(contains(out.ptx, ".trans.shared.b16"), c.row_col) << "only a [K, N] rhs is read transposed";
    EXPECT_FALSE(contains(out.ptx, "wgmma.")) << "warp-level mma never uses WGMMA";
  }
}

INSTANTIATE_TEST_SUITE_P(Gemm, WarpMma, ::testing::ValuesIn(croq::test::warp_mma_gemm_cases()),
                         [](const ::testing::TestParamInfo<WarpMmaGemm>& info) { return info.param.name(); });

// What a warp's mma refuses: more than 16 rows, a K that disagrees between
// lhs and a [K, N] rhs, and a destination that is not the warp's 16 x 8.
TEST(WarpMmaErrors, ShapeRules) {
  auto first_warp_error = [](const std::string& source) -> std::string {
    try {
      CompileOptions options;
      options.source_name = "warp_mma.co";
      auto program = frontend::parse_program(source, options);
      const auto& fn = frontend::select_entry(*program, options, program->source);
      test::generate_cuda(*program, fn,
                          {tensor(DType::f16, {128, 64}), tensor(DType::f16, {64, 32}), tensor(DType::f32, {128, 32})},
                          227 * 1024, {}, "sm_80");
    } catch (const CompileError& e) {
      return e.diagnostics().empty() ? std::string(e.what()) : e.diagnostics()[0].message;
    }
    return "no error";
  };
  const std::string base = croq::test::warp_mma_gemm("f16", "f32", "f32", true).source();
  EXPECT_EQ(first_warp_error(base), "no error");
  EXPECT_EQ(first_warp_error(replaced(base, "a.data.subspan(16, 16).at(g0, 0)", "a.data.subspan(32, 16).at(g0 / 2, 0)")),
            "the accumulator is 32 x 8 but the destination tile is f32 [16, 8]");
  // Filled at block scope, the accumulator is each warp's: not a warpgroup's.
  EXPECT_EQ(first_warp_error(replaced(replaced(base, "    parallel {g0, g1} by [4, 2] : group {\n      mc = mma.fill.f32 0.0f;\n",
                                               "    mc = mma.fill.f32 0.0f;\n    parallel {g0, g1} by [4, 2] : group {\n"),
                                      "by [4, 2] : group {", "by [1, 1] : group-4 {")),
            "this accumulator is one warp's (filled in a `: group` level or at block scope); multiply into it in a `: group` level");
  EXPECT_EQ(first_warp_error(replaced(base, "b.data.subspan(16, 8).at(0, g1)", "b.data.subspan(8, 8).at(0, g1)")),
            "lhs has K = 16 but rhs has K = 8 (mma.row.col takes rhs as [K, N])");
  // A rhs that ldmatrix.trans cannot read (rows not 16-byte aligned) is
  // gathered element by element instead.
  EXPECT_EQ(first_warp_error(replaced(base, "b.data.subspan(16, 8).at(0, g1)", "b.data.view(16, 8).from(0, 4)")), "no error");
  EXPECT_EQ(first_warp_error(replaced(base, ".subspan(16, 8).at(g0, g1);", ".subspan(16, 16).at(g0, 0);")),
            "the accumulator is 16 x 8 but the destination tile is f32 [16, 16]");
}

// Warp-level mma of any tile shape, from global memory, on f16, bf16, s8,
// u8 and f32 (tf32) tiles: fragments gathered element by element
// (mma_warp_gather), the block-scope accumulator declared once and refilled
// in the `: group` level, updated element-wise, stored by store_warp_accum;
// NVRTC compiles it for sm_80 and sm_90a with the m16n8 instruction of the type.
class WarpGather : public ::testing::TestWithParam<croq::test::WarpGatherGemm> {};

TEST_P(WarpGather, Sm80AndSm90aPtxUseTheTypesMmaSync) {
  const croq::test::WarpGatherGemm& c = GetParam();
  const std::string ptx_types = c.in == "s8" || c.in == "u8" ? "m16n8k32.row.col.s32." + c.in + "." + c.in + ".s32"
                                : c.in == "f32"              ? "m16n8k8.row.col.f32.tf32.tf32.f32"
                                                             : "m16n8k16.row.col.f32." + c.in + "." + c.in + ".f32";
  const std::int64_t m = 4 * c.tm, n = 4 * c.tn, k = 3 * c.tk;
  CompileOptions options;
  options.source_name = "warp_gather.co";
  auto program = frontend::parse_program(c.source(), options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  for (const std::string arch : {"sm_80", "sm_90a"}) {
    SCOPED_TRACE(arch);
    GeneratedKernel g = generate_cuda(*program, fn,
                                      {tensor(dtype_of(c.in), {m, k}),
                                       tensor(dtype_of(c.in), c.row_col ? std::vector<std::int64_t>{k, n} : std::vector<std::int64_t>{n, k}),
                                       tensor(dtype_of(c.out), c.transpose ? std::vector<std::int64_t>{n, m} : std::vector<std::int64_t>{m, n})},
                                      227 * 1024, {}, arch);
    EXPECT_FALSE(g.needs_sm90);
    const std::string shape = std::to_string(c.tm) + ", " + std::to_string(c.tn);
    EXPECT_TRUE(contains(g.cuda_source, "croq_dev::mma_warp_gather<" + shape + ", " + std::to_string(c.tk) + ", " +
                                            (c.row_col ? "true" : "false") + ">(")) << g.cuda_source;
    EXPECT_TRUE(contains(g.cuda_source, "croq_dev::store_warp_accum<" + shape + (c.transpose ? ", true>(" : ">(")));
    // Declared once at block scope (7), refilled (0) and updated (+= 1) in the level.
    const std::string regs = std::to_string((c.tm + 15) / 16 * ((c.tn + 7) / 8) * 4);
    EXPECT_TRUE(contains(g.cuda_source, std::string(c.acc == "s32" ? "int " : "float ") + "mc_"));
    EXPECT_TRUE(contains(g.cuda_source, "[" + regs + "];"));
    EXPECT_TRUE(contains(g.cuda_source, "[i] += 1"));
    jit::NvrtcOutput out = compile(g, arch);
    EXPECT_TRUE(contains(out.ptx, "mma.sync.aligned." + ptx_types)) << "no " << ptx_types;
    EXPECT_FALSE(contains(out.ptx, "wgmma.")) << "warp-level mma never uses WGMMA";
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, WarpGather, ::testing::ValuesIn(croq::test::warp_gather_gemm_cases()),
                         [](const auto& info) { return info.param.name(); });

// One of an array of warp accumulators chosen by a runtime argument: the
// array is one register row per accumulator, indexed where it is used.
TEST(WarpGatherArrays, RuntimeIndexSelectsARow) {
  const char* source = R"croq(
__co__ void pick(global s8 [32, 64] lhs, global s8 [64, 32] rhs, global s32 [32, 32] out, int i) {
  parallel {m, n} by [2, 2] : block {
    frag.s32 acc[1][3] {0};
    parallel {g0, g1} by [2, 2] : group {
      foreach k in 4 {
        a = mma.load lhs.chunkat(m#g0, k);
        b = mma.load rhs.chunkat(k, n#g1);
        mma.row.col acc[0][i], a, b;
      }
      mma.store acc[0][i], out.chunkat(m#g0, n#g1);
    }
  }
}
)croq";
  CompileOptions options;
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  for (const std::string arch : {"sm_80", "sm_90a"}) {
    SCOPED_TRACE(arch);
    GeneratedKernel g = generate_cuda(*program, fn,
                                      {tensor(DType::s8, {32, 64}), tensor(DType::s8, {64, 32}), tensor(DType::s32, {32, 32}),
                                       integer_scalar()},
                                      227 * 1024, {}, arch);
    EXPECT_TRUE(contains(g.cuda_source, "int acc_")) << g.cuda_source;
    EXPECT_TRUE(contains(g.cuda_source, "[3][4];"));
    EXPECT_TRUE(contains(g.cuda_source, "[((0 * 3) + arg_i)], reinterpret_cast<const signed char*>"));
    EXPECT_TRUE(contains(g.cuda_source, "croq_dev::store_warp_accum<8, 8>(acc_"));
    jit::NvrtcOutput out = compile(g, arch);
    EXPECT_TRUE(contains(out.ptx, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"));
  }
}

}  // namespace
}  // namespace croq::pipeline
