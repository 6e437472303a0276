// Register fragments on sm_90a: `frag` tiles and `mma.load.frag` as the lhs
// of an mma lower to RS-mode WGMMA (A from registers, B from a shared
// memory descriptor); the CUDA compiles with NVRTC and the PTX keeps the
// fragment in registers.
#include <gtest/gtest.h>

#include <string>

#include "common/fragment_sources.hpp"
#include "croq/croq.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::contains;

using test::generate_cuda;
using test::integer_scalar;
using test::tensor;

GeneratedKernel generate_for(const std::string& source, const std::vector<ArgSignature>& args,
                             const std::string& arch = "sm_90a") {
  CompileOptions options;
  options.source_name = "fragment.co";
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  return generate_cuda(*program, fn, args, 227 * 1024, {}, arch);
}

std::string ptx_of(const GeneratedKernel& k) {
  try {
    return jit::nvrtc_compile(k.cuda_source, "fragment.cu", k.entry, {"sm_90a", false, {}}).ptx;
  } catch (const CompileError& e) {
    ADD_FAILURE() << "NVRTC rejected the kernel:\n" << e.what() << "\n" << k.cuda_source;
    return {};
  }
}

TEST(Fragment, LoadedFragmentIsTheLhsOfRsModeWgmma) {
  GeneratedKernel k = generate_for(croq::test::kRsGemmFromLoadedFragment,
                                   {tensor(DType::f16, {300, 136}), tensor(DType::f16, {200, 136}), tensor(DType::f32, {300, 200})});
  // 64 x 64 f16 in the accumulator layout: 32 halves per thread.
  EXPECT_TRUE(contains(k.cuda_source, "__half ma_")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "croq_dev::wgmma_m64nNk16_rs<128, false, ")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "for (int k16 = 0; k16 < 4; ++k16)")) << k.cuda_source;
  const std::string ptx = ptx_of(k);
  // A as four 32-bit registers, B as a descriptor, no transpose of B.
  EXPECT_TRUE(contains(ptx, "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16")) << ptx;
  EXPECT_TRUE(contains(ptx, "}, {%r")) << "A comes from registers";
  EXPECT_FALSE(contains(ptx, "ld.local")) << "the fragment and the accumulator stay in registers";
}

// A warpgroup's mma.load of a global tile: each thread reads its fragment's
// elements from global memory (guarded at the tensor's edge), no shared copy.
TEST(Fragment, GlobalTileLoadsStraightIntoTheRsModeLhs) {
  GeneratedKernel k = generate_for(croq::test::kRsGemmFromGlobalLhs,
                                   {tensor(DType::f16, {300, 136}), tensor(DType::f16, {200, 136}), tensor(DType::f32, {300, 200})});
  EXPECT_TRUE(contains(k.cuda_source, "__half ma_")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "croq_dev::wgmma_m64nNk16_rs<128, false, ")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "lhs[")) << "A is read from global memory:\n" << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, " ? ")) << "elements past the edge read 0:\n" << k.cuda_source;
  const std::string ptx = ptx_of(k);
  EXPECT_TRUE(contains(ptx, "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16")) << ptx;
  EXPECT_TRUE(contains(ptx, "}, {%r")) << "A comes from registers";
}

TEST(Fragment, ConstantFragmentIsFilledOnceAndMultiplied) {
  GeneratedKernel k = generate_for(croq::test::kRsGemmConstantFragment,
                                   {tensor(DType::f16, {128, 96}), tensor(DType::f32, {64, 128})});
  EXPECT_TRUE(contains(k.cuda_source, "__half halves_")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "croq_dev::wgmma_m64nNk16_rs<64, false, ")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "make_kmajor_desc<64>")) << k.cuda_source;
  const std::string ptx = ptx_of(k);
  EXPECT_TRUE(contains(ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16")) << ptx;
  EXPECT_FALSE(contains(ptx, "ld.local")) << "the fragment and the accumulator stay in registers";
}

// The RS-mode registers (and the shared rhs) may not change under the
// instruction, but the mma need not be waited for at once: without
// `mma.commit`, the wait comes before the next k step overwrites what the
// group reads (the rhs tile's copy, then the fragment) and before the
// accumulator is stored; the operand is packed before the wgmma fence.
TEST(Fragment, RsModeMmaIsWaitedForBeforeItsOperandsChange) {
  std::string source = croq::test::kRsGemmFromLoadedFragment;
  source.erase(source.find("        mma.commit;\n"), std::string("        mma.commit;\n").size());
  GeneratedKernel k = generate_for(source, {tensor(DType::f16, {128, 128}), tensor(DType::f16, {128, 128}),
                                            tensor(DType::f32, {128, 128})});
  const std::string& cuda = k.cuda_source;
  const std::size_t mma = cuda.find("wgmma_m64nNk16_rs<");
  ASSERT_NE(mma, std::string::npos) << cuda;
  const std::size_t loop = cuda.rfind("for (int iv_k_", mma);
  ASSERT_NE(loop, std::string::npos) << cuda;
  const std::size_t wait_in_loop = cuda.find("croq_dev::wgmma_wait_group<0>();", loop);
  EXPECT_LT(wait_in_loop, mma) << "the previous step's group completes before its operands are overwritten\n" << cuda;
  EXPECT_LT(wait_in_loop, cuda.find("__half ma_", loop)) << "and before the fragment is loaded again";
  const std::size_t commit = cuda.find("croq_dev::wgmma_commit_group();", mma);
  const std::size_t next_wait = cuda.find("croq_dev::wgmma_wait_group<0>();", commit);
  const std::size_t loop_end = cuda.find("store_accum", commit);
  EXPECT_LT(next_wait, loop_end) << "waited before the store";
  const std::size_t after_loop = cuda.find("#line", commit);
  EXPECT_GT(cuda.find("wgmma_wait_group", commit), after_loop) << "not waited in the step that issues it\n" << cuda;
  const std::size_t pack = cuda.rfind("croq_dev::pack_fragment(", mma);
  const std::size_t fence = cuda.rfind("croq_dev::wgmma_fence();", mma);
  ASSERT_NE(pack, std::string::npos) << cuda;
  EXPECT_LT(pack, fence);
  ptx_of(k);
}

TEST(Fragment, FragmentNeedsWgmma) {
  try {
    generate_for(croq::test::kRsGemmConstantFragment, {tensor(DType::f16, {128, 96}), tensor(DType::f32, {64, 128})}, "sm_80");
    FAIL() << "a fragment on sm_80 was lowered";
  } catch (const CompileError& e) {
    EXPECT_TRUE(contains(e.what(), "register fragments are held in WGMMA's register layout, which libcroqjit has on sm_90a only"))
        << e.what();
  }
}

// Attention on one tile: the softmax runs on the accumulator's registers
// (apply, row reductions across the quad), the probabilities become an f16
// fragment that is RS-mode lhs with V read N-major (imm-trans-b = 1).
TEST(Fragment, AttentionTileRunsTheSoftmaxInRegisters) {
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "non-causal");
    const auto t = tensor(DType::f16, {64, 64});
    GeneratedKernel k = generate_for(croq::test::attention_source(causal), {t, t, t, tensor(DType::f32, {64, 64})});
    EXPECT_TRUE(contains(k.cuda_source, "croq_dev::quad_max(")) << k.cuda_source;
    EXPECT_TRUE(contains(k.cuda_source, "croq_dev::quad_sum(")) << k.cuda_source;
    EXPECT_TRUE(contains(k.cuda_source, "croq_dev::make_mnmajor_desc<128>(")) << k.cuda_source;
    EXPECT_TRUE(contains(k.cuda_source, "croq_dev::wgmma_m64nNk16_rs<64, true, ")) << k.cuda_source;
    EXPECT_EQ(contains(k.cuda_source, "(-__int_as_float(0x7f800000))"), true) << "-inf fills the row maxima";
    // The scores are read only after the SS-mode WGMMA that writes them completes.
    const std::size_t mma = k.cuda_source.find("wgmma_m64nNk16<64");
    const std::size_t wait = k.cuda_source.find("wgmma_wait_group<0>", mma);
    const std::size_t first_read = k.cuda_source.find("#pragma unroll", k.cuda_source.find("wgmma_commit_group", mma));
    ASSERT_NE(wait, std::string::npos);
    EXPECT_LT(wait, first_read);
    const std::string ptx = ptx_of(k);
    EXPECT_TRUE(contains(ptx, "shfl.sync.bfly")) << "row reductions cross the quad";
    EXPECT_TRUE(contains(ptx, "p, 1, 1, 1;")) << "V is read N-major";
    EXPECT_FALSE(contains(ptx, "ld.local")) << "scores, probabilities and row vectors stay in registers";
  }
}

// The online softmax over key tiles: the output accumulator is rescaled in
// the loop before the mma that sizes it (its register count is a constant
// the fill declares), and the causal bound depends on the block index.
TEST(Fragment, OnlineAttentionRescalesTheAccumulatorBeforeItsMma) {
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "non-causal");
    const auto t = tensor(DType::f16, {256, 64});
    GeneratedKernel k = generate_for(croq::test::online_attention_source(causal), {t, t, t, tensor(DType::f32, {256, 64})});
    EXPECT_TRUE(contains(k.cuda_source, "constexpr int acc_")) << k.cuda_source;
    EXPECT_TRUE(contains(k.cuda_source, "_registers; ++r_")) << k.cuda_source;
    EXPECT_EQ(contains(k.cuda_source, " < (bm_1 + 1); ++bn_"), causal) << k.cuda_source;
    const std::string ptx = ptx_of(k);
    EXPECT_FALSE(contains(ptx, "ld.local")) << "everything stays in registers";
  }
}

// `.sqz()` of a head: a pointer to the head's first element, read as a
// [S, 16] buffer, so the tail tile is guarded by S (not by H * S).
TEST(Squeeze, HeadIsAPointerGuardedByItsOwnRows) {
  const auto t = tensor(DType::f32, {3, 40, 16});
  GeneratedKernel k = generate_for(croq::test::kHeadsBySqueeze, {t, t});
  EXPECT_TRUE(contains(k.cuda_source, "float* x_")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, " = (&arg_x[(h_1 * 640)]);")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "+ r_7) < 40)")) << "writes stop at the head's last row\n" << k.cuda_source;
  EXPECT_FALSE(contains(k.cuda_source, "< 120")) << "nothing is guarded by the whole tensor's rows";
  ptx_of(k);
}

// tma.copy of a `.sqz()` view addresses the squeezed tensor: a 4-D box
// with the head's (b, h) as its outer coordinates, so TMA clips each head's
// rows, and the shared tiles keep the view's 2-D shape.
TEST(Squeeze, TmaCopiesOfAHeadAddressTheWholeTensor) {
  const auto t = tensor(DType::f32, {2, 3, 40, 32});
  GeneratedKernel k = generate_for(croq::test::kHeadsBySqueezeTma, {t, t});
  const std::string& cuda = k.cuda_source;
  const std::size_t load = cuda.find("croq_dev::tma_load_4d(");
  const std::size_t store = cuda.find("croq_dev::tma_store_4d(");
  ASSERT_NE(load, std::string::npos) << cuda;
  ASSERT_NE(store, std::string::npos) << cuda;
  const std::string load_call = cuda.substr(load, cuda.find('\n', load) - load);
  EXPECT_TRUE(contains(load_call, "(int)((bs_")) << load_call;
  EXPECT_TRUE(contains(load_call, "(int)(h_")) << load_call;
  EXPECT_TRUE(contains(load_call, "(int)(b_")) << load_call;
  int maps = 0;
  for (const auto& p : k.params)
    if (p.kind == abi::KernelParam::Kind::tensor_map) {
      ++maps;
      EXPECT_EQ(p.box, (std::vector<std::uint32_t>{1, 1, 32, 32})) << p.name;
    }
  EXPECT_EQ(maps, 2);
  ptx_of(k);
}

// `.sqz()` drops the dims that are 1 in the source (sema's squeezed_dims),
// not those that are 1 for these arguments: at S = 1 the head stays a
// [1, 16] view (it failed as a window of another rank).
TEST(Squeeze, ADimOfOneForTheseArgumentsStays) {
  const auto t = tensor(DType::f32, {3, 1, 16});
  GeneratedKernel k = generate_for(croq::test::kHeadsBySqueeze, {t, t});
  EXPECT_TRUE(contains(k.cuda_source, " = (&arg_x[(h_1 * 16)]);")) << k.cuda_source;
  ptx_of(k);
}

TEST(Squeeze, WindowInsideADimIsRefused) {
  const std::string source = R"croq(
__co__ void f(global f32 [H, S, 16] x, global f32 [H, S, 16] y) {
  parallel h by H : block {
    xh = x.subspan(1, 8, 16).at(h, 1, 0).sqz();
    yh = y.subspan(1, 8, 16).at(h, 1, 0).sqz();
    parallel r by 8 : thread {
      yh.at(r, 0) = xh.at(r, 0);
    }
  }
}
)croq";
  const auto t = tensor(DType::f32, {3, 40, 16});
  try {
    generate_for(source, {t, t});
    FAIL() << "a squeezed window was lowered";
  } catch (const CompileError& e) {
    EXPECT_TRUE(contains(e.what(), "`.sqz()` of this view is not supported yet by libcroqjit: it takes a global view whose "
                                   "extent-1 dims lead and whose other dims are whole"))
        << e.what();
  }
}

// Attention per head as a whole program: `.sqz()` heads, a `bool` argument
// choosing causal masking and the key-tile bound, and three shared tiles
// (q_s, k_s, v_s) that each get their own shared memory.
TEST(Fragment, MultiHeadAttentionCompilesWithDistinctSharedTiles) {
  const auto t = tensor(DType::f16, {2, 2, 192, 64});
  GeneratedKernel k = generate_for(croq::test::multi_head_attention_source(),
                                   {t, t, t, tensor(DType::f32, {2, 2, 192, 64}), integer_scalar()});
  EXPECT_TRUE(contains(k.cuda_source, "croq_smem + 0)")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "croq_smem + 8192)")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "croq_smem + 16384)")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "__half* qs_")) << "a head of qs as a pointer\n" << k.cuda_source;
  const std::string ptx = ptx_of(k);
  EXPECT_TRUE(contains(ptx, "p, 1, 1, 1;")) << "P * V reads V N-major";
  EXPECT_FALSE(contains(ptx, "ld.local"));
}

TEST(Fragment, RowColOfSharedTilesReadsBNMajor) {
  GeneratedKernel k = generate_for(croq::test::kRowColGemm,
                                   {tensor(DType::f16, {256, 192}), tensor(DType::f16, {192, 128}), tensor(DType::f32, {256, 128})});
  EXPECT_TRUE(contains(k.cuda_source, "croq_dev::wgmma_m64nNk16_tb<64, __half>(")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "croq_dev::make_mnmajor_desc<128>(")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "k16 * 2048)")) << "16 rows of K per instruction: 16 rows of 128 bytes";
  const std::string ptx = ptx_of(k);
  EXPECT_TRUE(contains(ptx, "p, 1, 1, 0, 1;")) << "imm-trans-a 0, imm-trans-b 1";
}

// mma.col.col / mma.col.row: the lhs [K, M] M-major (imm-trans-a), the rhs
// N-major or K-major, each k16 step 16 rows of 128 bytes of the lhs.
TEST(Fragment, ColumnMajorLhsOfSharedTilesReadsAMMajor) {
  for (const bool rhs_n_major : {true, false}) {
    const auto rhs = rhs_n_major ? tensor(DType::f16, {192, 128}) : tensor(DType::f16, {128, 192});
    GeneratedKernel k = generate_for(croq::test::col_major_lhs_gemm(rhs_n_major),
                                     {tensor(DType::f16, {192, 256}), rhs, tensor(DType::f32, {256, 128})});
    const std::string form = rhs_n_major ? "true" : "false";
    EXPECT_TRUE(contains(k.cuda_source, "croq_dev::wgmma_m64nNk16_ta<64, __half, " + form + ">(")) << k.cuda_source;
    EXPECT_TRUE(contains(k.cuda_source, "desc_advance(desc_a, k16 * 2048)")) << "16 rows of 128 bytes per step";
    const std::string ptx = ptx_of(k);
    EXPECT_TRUE(contains(ptx, rhs_n_major ? "p, 1, 1, 1, 1;" : "p, 1, 1, 1, 0;")) << "imm-trans-a 1\n" << ptx;
  }
}

// __atomic_add of an accumulator's elements inside an apply: each thread
// its own elements, one global add per element.
TEST(Fragment, AtomicAddOfAnAccumulatorIsAGlobalReduction) {
  const std::string source = R"croq(
__co__ void f(global f16 [64, 64] a, global f32 [64, 64] out) {
  parallel blk by 2 : block {
    a_s = dma.copy.swiz<128> a.subspan(64, 64).at(0, 0) => shared;
    parallel p by 1 : group-4 {
      acc = mma.fill.f32 0.0f;
      mma.row.row acc, a_s.data, a_s.data;
      apply {i, j} in acc.span
        __atomic_add(out.at(i, j), acc.at(i, j));
    }
  }
}
)croq";
  GeneratedKernel k = generate_for(source, {tensor(DType::f16, {64, 64}), tensor(DType::f32, {64, 64})});
  // One global f32 add per register of the [64, 64] accumulator (32 a
  // thread); NVVM writes atom with a result nobody reads, ptxas makes it RED.
  const std::string ptx = ptx_of(k);
  std::size_t adds = 0;
  for (std::size_t at = ptx.find(".global.add.f32"); at != std::string::npos; at = ptx.find(".global.add.f32", at + 1)) ++adds;
  EXPECT_EQ(adds, 32u) << ptx;
}

// A tile mma.store wrote (generic proxy) read by WGMMA (async proxy):
// fence.proxy.async and a barrier among the writers before the multiply.
TEST(Fragment, StagedTileIsFencedBeforeWgmmaReadsIt) {
  const auto t = tensor(DType::f16, {64, 64});
  GeneratedKernel k = generate_for(croq::test::kStagedTransposedLhs, {t, t, tensor(DType::f32, {64, 64})});
  const std::size_t store = k.cuda_source.find("store_accum_shared_swizzled<64, 128>(");
  const std::size_t mma = k.cuda_source.find("wgmma_m64nNk16_ta<64, __half, true>(");
  ASSERT_NE(store, std::string::npos) << k.cuda_source;
  ASSERT_NE(mma, std::string::npos) << k.cuda_source;
  const std::string between = k.cuda_source.substr(store, mma - store);
  EXPECT_TRUE(contains(between, "fence_proxy_async_shared()")) << between;
  EXPECT_TRUE(contains(between, "__syncthreads()") || contains(between, "named_barrier_sync(")) << between;
}

// An M-major lhs is one 128-byte swizzle span wide (M = 64 of f16).
TEST(Fragment, ColumnMajorLhsOfOtherWidthsIsRefused) {
  const std::string source = R"croq(
__co__ void f(global f16 [64, 128] a, global f16 [64, 64] b, global f32 [128, 64] o) {
  parallel blk by 1 : block {
    a_s = dma.copy a.subspan(64, 128).at(0, 0) => shared;
    b_s = dma.copy.swiz<128> b.subspan(64, 64).at(0, 0) => shared;
    parallel p by 1 : group-4 {
      mc = mma.fill.f32 0.0f;
      mma.col.col mc, a_s.data, b_s.data;
      mma.store mc, o.subspan(64, 64).at(0, 0);
    }
  }
}
)croq";
  try {
    generate_for(source, {tensor(DType::f16, {64, 128}), tensor(DType::f16, {64, 64}), tensor(DType::f32, {128, 64})});
    FAIL() << "a [K, 128] lhs was taken as an M-major operand";
  } catch (const CompileError& e) {
    EXPECT_TRUE(contains(e.what(), "mma.col.col takes lhs as [K, M] with M = 64 (WGMMA m64), got f16 [64, 128]"))
        << e.what();
  }
}

TEST(Fragment, ElementsOutsideApplyAreRefused) {
  const std::string source = R"croq(
__co__ void f(global f16 [64, 64] q, global f32 [64, 64] o) {
  parallel b by 1 : block {
    q_s = dma.copy.swiz<128> q.subspan(64, 64).at(0, 0) => shared;
    parallel p by 1 : group-4 {
      frag f32 [64] m {0.0f};
      float x = m.at(3);
    }
  }
}
)croq";
  try {
    generate_for(source, {tensor(DType::f16, {64, 64}), tensor(DType::f32, {64, 64})});
    FAIL() << "an element of a fragment was read outside apply";
  } catch (const CompileError& e) {
    EXPECT_TRUE(contains(e.what(), "libcroqjit reads the elements of a register fragment or an accumulator only inside an `apply`"))
        << e.what();
  }
}

}  // namespace
}  // namespace croq::pipeline
