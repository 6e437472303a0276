// The forms of upstream's persistent block-scaled GEMM (wgmma_persis.co):
// `wait e.at(k)` waits on barrier k % 2 for the phase parity of generation
// k / 2 (and leaves the thread's phase bits alone), `trigger e after f, g`
// makes the TMA loads complete on e, `mma.scale` zeroes a partial in each
// K block, multiplies into it and adds it scaled after the WGMMA wait; and
// NVRTC compiles it for sm_90a.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "common/specialize_test_util.hpp"
#include "common/block_scale_sources.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::contains;

using test::generate_cuda;
using test::tensor;

GeneratedKernel generate_scaled(const std::string& acc) {
  CompileOptions options;
  options.source_name = "scaled.co";
  auto program = frontend::parse_program(croq::test::block_scaled_gemm_source(acc), options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  const std::int64_t m = 256, n = 256, k = 512;
  return generate_cuda(*program, fn,
                       {tensor(DType::f8_e4m3, {m, k}), tensor(DType::f32, {m, k / 128}), tensor(DType::f8_e4m3, {n, k}),
                        tensor(DType::f32, {n / 128, k / 128}), tensor(DType::f32, {m, n})},
                       227 * 1024, {}, "sm_90a");
}

TEST(BlockScale, OrderedEventsWaitOnTheGenerationsParity) {
  const std::string cuda = generate_scaled("f32").cuda_source;
  // Barrier k % 2, parity (k / 2) % 2; no phase bits flipped for them.
  EXPECT_TRUE(std::regex_search(cuda, std::regex(R"(mbar_wait\(&empty_\d+\[\(k_\d+ % 2\)\], static_cast<unsigned>\(\(\(k_\d+ / 2\) % 2\)\)\))")))
      << cuda;
  EXPECT_TRUE(std::regex_search(cuda, std::regex(R"(mbar_wait\(&full_\d+\[\(k_\d+ % 2\)\], static_cast<unsigned>\(\(\(k_\d+ / 2\) % 2\)\)\))")))
      << cuda;
  EXPECT_FALSE(std::regex_search(cuda, std::regex(R"((full|empty)_\d+_phase \^=)")));
}

TEST(BlockScale, TriggerAfterMakesTheLoadsCompleteOnTheEvent) {
  const std::string cuda = generate_scaled("f32").cuda_source;
  // Both loads expect their bytes on full[k % 2]; the trigger arrives once per warp.
  EXPECT_TRUE(std::regex_search(cuda, std::regex(R"(mbar_expect_tx\(&full_\d+\[\(k_\d+ % 2\)\], 8192\))"))) << cuda;
  EXPECT_TRUE(std::regex_search(cuda, std::regex(R"(mbar_expect_tx\(&full_\d+\[\(k_\d+ % 2\)\], 16384\))"))) << cuda;
  EXPECT_TRUE(std::regex_search(cuda, std::regex(R"(tma_load_2d\([^;]*&full_\d+\[\(k_\d+ % 2\)\])"))) << cuda;
  EXPECT_TRUE(std::regex_search(cuda, std::regex(R"(mbar_arrive\(&full_\d+\[\(k_\d+ % 2\)\]\))"))) << cuda;
  EXPECT_FALSE(contains(cuda, "tma_bar_")) << "no private barrier for a load an event completes";
}

TEST(BlockScale, ScaleAddsAZeroedPartialAfterTheWgmmaWait) {
  for (const std::string acc : {"f32", "f16"}) {
    const GeneratedKernel kernel = generate_scaled(acc);
    const std::string& cuda = kernel.cuda_source;
    // The partial is declared and zeroed at the top of the consumer's K loop body.
    std::smatch fill;
    ASSERT_TRUE(std::regex_search(cuda, fill, std::regex(R"(for \(int k_\d+ = 0;[^\n]*\{\n\s*(float|unsigned) (mc_\d+_partial_\d+)\[)")))
        << cuda;
    const std::size_t partial = static_cast<std::size_t>(fill.position(0));
    EXPECT_TRUE(std::regex_search(cuda, std::regex(R"(wgmma_m64nNk32<128, __nv_fp8_e4m3, __nv_fp8_e4m3>\(mc_\d+_partial_\d+,)")));
    // Every group completes, then the scaled partial is added: per-row lhs scales one KB-row apart.
    const std::size_t wait = cuda.find("croq_dev::wgmma_wait_group<0>();", partial);
    const std::size_t scale = cuda.find("croq_dev::scale_accum<128>(mc_", partial);
    ASSERT_NE(scale, std::string::npos) << cuda;
    EXPECT_LT(wait, scale);
    EXPECT_TRUE(std::regex_search(cuda.substr(scale, 300), std::regex(R"(arg_scale_lhs\[[^\]]*\]\), 4, 64, arg_scale_rhs\[)")))
        << cuda.substr(scale, 300);
    EXPECT_TRUE(contains(cuda, "void scale_accum(")) << "the prelude's block-scale section";
    jit::NvrtcOutput out;
    ASSERT_NO_THROW(out = jit::nvrtc_compile(cuda, "scaled.cu", kernel.entry, {"sm_90a", false, {}})) << cuda;
    EXPECT_TRUE(contains(out.ptx, "wgmma.mma_async.sync.aligned.m64n128k32." + acc + ".e4m3.e4m3"));
    EXPECT_TRUE(contains(out.ptx, "mbarrier.try_wait.parity"));
  }
}

// `parallel g by 2 : group-4, t by 128 : thread`: a region that names t
// stays per thread (every thread writes its own element); one that does not
// runs at the group's scope (the scaled GEMM's producer and consumer).
TEST(BlockScale, RegionsNamingTheThreadIndexStayPerThread) {
  const std::string source =
      "__co__ void f(global f32 [256] x, global f32 [256] y) {\n"
      "  parallel b by 1 : block {\n"
      "    parallel g by 2 : group-4, t by 128 : thread {\n"
      "      inthreads.async (g == 0) { y.at(t) = x.at(t) * 2.0f; }\n"
      "      inthreads.async (g == 1) { y.at(128) = 1.0f; }\n"
      "    }\n"
      "  }\n"
      "}\n";
  const std::string cuda = test::generate(source, {tensor(DType::f32, {256}), tensor(DType::f32, {256})}).cuda_source;
  EXPECT_TRUE(std::regex_search(cuda, std::regex(R"(\n\s*arg_y\[t_\d+\] = \(arg_x\[t_\d+\] \* 2\.0f\);)"))) << cuda;
  EXPECT_TRUE(std::regex_search(cuda, std::regex(R"(if \(\(\(threadIdx\.x - 128\) == 0\)\) arg_y\[128\] = 1\.0f;)"))) << cuda;
}

// mma.scale scales the mmas of a block into an accumulator filled before the
// block; one filled in the block itself is refused with its reason.
TEST(BlockScale, ScaleOfAnAccumulatorFilledInItsBlockIsRefused) {
  std::string source = croq::test::block_scaled_gemm_source();
  auto move = [&](const std::string& from, const std::string& to) {
    const std::size_t at = source.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    source.replace(at, from.size(), to);
  };
  move("        mc = mma.fill.f32 0.0f;\n", "");
  move("          wait full.at(k);\n", "          wait full.at(k);\n          mc = mma.fill.f32 0.0f;\n");
  move("        mma.store mc, output.subspan(64, 128).at(block_m, block_n);\n", "");
  try {
    test::generate(source, {tensor(DType::f8_e4m3, {64, 128}), tensor(DType::f32, {64, 1}), tensor(DType::f8_e4m3, {128, 128}),
                            tensor(DType::f32, {1, 1}), tensor(DType::f32, {64, 128})});
    FAIL() << "no error";
  } catch (const CompileError& e) {
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_EQ(e.diagnostics()[0].message,
              "mma.scale of `mc` in the block that fills it, or a second time in one block: libcroqjit scales the mmas "
              "of a block into an accumulator filled before it");
  }
}

// A TMA store whose tile depends on the warpgroup index, in a region of three
// warpgroups: each group's first thread stores its own tile.
TEST(BlockScale, EachWarpgroupStoresItsOwnTile) {
  const std::string source =
      "__co__ void f(global f16 [192, 64] y) {\n"
      "  parallel b by 1 : block {\n"
      "    shared f16 [64, 64] out_s[3];\n"
      "    parallel wg by 4 : group-4, t by 128 : thread {\n"
      "      inthreads.async (wg > 0) {\n"
      "        tma.copy out_s[wg - 1] => y.subspan(64, 64).at(wg - 1, 0);\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n";
  const std::string cuda = test::generate(source, {tensor(DType::f16, {192, 64})}).cuda_source;
  EXPECT_TRUE(std::regex_search(cuda, std::regex(R"(if \(\(\(\(threadIdx\.x - 128\) % 128\) == 0\)\) \{\s*croq_dev::tma_store_2d)")))
      << cuda;
}

}  // namespace
}  // namespace croq::pipeline
