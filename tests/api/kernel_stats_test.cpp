// Kernel::stats and why a kernel compiled: where each specialization's
// images came from (compiled, disk, memory), the reason of each compile,
// CROQ_EXPLAIN, CROQ_CACHE_REQUIRE_HIT and croq::precompile. The steps run
// in fresh processes (tests/helpers/croq_stats_probe.cpp) with a private
// cache directory, as applications and replicas would.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "api/kernel_stats.hpp"
#include "common/process.hpp"

namespace croq {
namespace {

namespace fs = std::filesystem;
using croq::test::ProcessResult;
using croq::test::run_process;
using croq::test::TempDir;

const std::string kProbe = CROQ_BINARY_DIR "/tests/croq_stats_probe";

constexpr const char* kScaledAdd = R"(#define SCALE 2
__co__ f32 [M, N] scaled_add(f32 [M, N] lhs, f32 [M, N] rhs) {
  f32 [lhs.span] output;
  parallel {i, j} by [M, N]
    output.at(i, j) = lhs.at(i, j) + rhs.at(i, j) * SCALE;
  return output;
}
)";

const std::string kSmall = "call:f32[16,32];f32[16,32]";
const std::string kTall = "call:f32[64,32];f32[64,32]";

class KernelStatsTest : public ::testing::Test {
 protected:
  void SetUp() override { std::ofstream(source_path()) << kScaledAdd; }
  fs::path source_path() const { return files_.path() / "scaled_add.co"; }

  // Runs the probe's steps; `env` adds to the private cache settings.
  nlohmann::json probe(const std::vector<std::string>& steps, std::map<std::string, std::string> env = {},
                       ProcessResult* raw = nullptr) {
    std::vector<std::string> argv{kProbe, source_path().string()};
    argv.insert(argv.end(), steps.begin(), steps.end());
    env.emplace("CROQ_CACHE_DIR", cache_.str());
    env.emplace("CROQ_CACHE", "");
    env.emplace("CROQ_ARCH", "sm_90a");
    ProcessResult r = run_process(argv, env, files_.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (raw) *raw = r;
    return nlohmann::json::parse(r.out);
  }

  TempDir files_, cache_;
};

TEST_F(KernelStatsTest, EachCompileSaysWhatChanged) {
  auto out = probe({"kernel", kSmall, kTall, "kernel:SCALE=3", kSmall});
  ASSERT_FALSE(out.contains("error")) << out.dump(2);
  const auto& first = out["kernels"][0]["specializations"];
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0]["signature"], "f32 [16, 32], f32 [16, 32]");
  EXPECT_EQ(first[0]["arch"], "sm_90a");
  EXPECT_EQ(first[0]["source"], "compiled");
  EXPECT_EQ(first[0]["reason"], "first call of `scaled_add`; not in the disk cache");
  EXPECT_GT(first[0]["compile_ms"].get<double>(), 0.0);
  EXPECT_EQ(first[1]["source"], "compiled");
  EXPECT_EQ(first[1]["reason"],
            "argument 1 'lhs' dim 0 (M) changed from 16 to 64, argument 2 'rhs' dim 0 (M) changed from 16 to 64; "
            "not in the disk cache");
  const auto& second = out["kernels"][1]["specializations"];
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0]["reason"], "define SCALE changed from 2 to 3; not in the disk cache");
  EXPECT_EQ(out["kernels"][0]["compiled"], 2);
  EXPECT_EQ(out["kernels"][0]["nvrtc_compiles"], 2);
}

TEST_F(KernelStatsTest, HitsSayWhereTheyCameFrom) {
  probe({"kernel", kSmall});
  // A new process finds it on disk; a second Kernel of the same source in
  // that process finds it in memory (not the first Kernel's "disk").
  auto out = probe({"kernel", kSmall, "kernel", kSmall});
  ASSERT_FALSE(out.contains("error")) << out.dump(2);
  EXPECT_EQ(out["kernels"][0]["specializations"][0]["source"], "disk");
  EXPECT_EQ(out["kernels"][0]["specializations"][0]["reason"], "");
  EXPECT_EQ(out["kernels"][0]["disk"], 1);
  EXPECT_EQ(out["kernels"][1]["specializations"][0]["source"], "memory");
  EXPECT_EQ(out["kernels"][1]["memory"], 1);
  EXPECT_EQ(out["kernels"][1]["nvrtc_compiles"], 0);
}

TEST_F(KernelStatsTest, ACorruptEntryIsTheReason) {
  probe({"kernel", kSmall});
  for (const auto& f : fs::directory_iterator(cache_.path()))
    if (f.path().extension() == ".cubin") std::ofstream(f.path(), std::ios::app) << "x";
  auto out = probe({"kernel", kSmall});
  EXPECT_EQ(out["kernels"][0]["specializations"][0]["source"], "compiled");
  EXPECT_EQ(out["kernels"][0]["specializations"][0]["reason"].get<std::string>().rfind(
                "first call of `scaled_add`; disk cache entry was corrupt (cubin is ", 0),
            0u)
      << out.dump(2);
}

TEST_F(KernelStatsTest, ExplainLogsOneLinePerSpecialization) {
  ProcessResult r;
  probe({"kernel", kSmall, kTall, "kernel", kSmall}, {{"CROQ_EXPLAIN", "1"}}, &r);
  EXPECT_NE(r.err.find("[croq] [info] `scaled_add`(f32 [16, 32], f32 [16, 32]) for sm_90a: compiled in "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ms (first call of `scaled_add`; not in the disk cache"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("`scaled_add`(f32 [64, 32], f32 [64, 32]) for sm_90a: compiled in "), std::string::npos);
  EXPECT_NE(r.err.find("[croq] [info] `scaled_add`(f32 [16, 32], f32 [16, 32]) for sm_90a: memory\n"),
            std::string::npos)
      << r.err;
  // Nothing without it.
  probe({"kernel", kSmall}, {}, &r);
  EXPECT_EQ(r.err.find("scaled_add"), std::string::npos) << r.err;
}

TEST_F(KernelStatsTest, RequireHitRefusesACompileAndNamesTheSignature) {
  auto cold = probe({"kernel", kSmall}, {{"CROQ_CACHE_REQUIRE_HIT", "1"}});
  EXPECT_EQ(cold["error_type"], "CacheError");
  EXPECT_EQ(cold["error"],
            "CROQ_CACHE_REQUIRE_HIT=1: `scaled_add`(f32 [16, 32], f32 [16, 32]) for sm_90a is in no cache and would "
            "compile (first call of `scaled_add`; not in the disk cache)");
  EXPECT_TRUE(cold["kernels"][0]["specializations"].empty());
  probe({"kernel", kSmall});  // warm the cache
  auto warm = probe({"kernel", kSmall, kTall}, {{"CROQ_CACHE_REQUIRE_HIT", "1"}});
  EXPECT_EQ(warm["kernels"][0]["specializations"][0]["source"], "disk");
  EXPECT_EQ(warm["error"],
            "CROQ_CACHE_REQUIRE_HIT=1: `scaled_add`(f32 [64, 32], f32 [64, 32]) for sm_90a is in no cache and would "
            "compile (argument 1 'lhs' dim 0 (M) changed from 16 to 64, argument 2 'rhs' dim 0 (M) changed from 16 "
            "to 64; not in the disk cache)");
}

TEST_F(KernelStatsTest, PrecompileFillsTheCacheForEachArch) {
  auto out = probe({"precompile:sm_90a,sm_80:f32[16,32];f32[16,32]"}, {{"CROQ_CACHE_REQUIRE_HIT", "1"}});
  ASSERT_FALSE(out.contains("error")) << out.dump(2);
  const auto& made = out["precompiled"][0]["specializations"];
  ASSERT_EQ(made.size(), 2u);
  EXPECT_EQ(made[0]["arch"], "sm_90a");
  EXPECT_EQ(made[0]["source"], "compiled");
  EXPECT_EQ(made[1]["arch"], "sm_80");
  EXPECT_EQ(made[1]["reason"], "arch changed from sm_90a to sm_80; not in the disk cache");
  // The replica: required to hit, and it does.
  auto replica = probe({"kernel", kSmall}, {{"CROQ_CACHE_REQUIRE_HIT", "1"}});
  ASSERT_FALSE(replica.contains("error")) << replica.dump(2);
  EXPECT_EQ(replica["kernels"][0]["specializations"][0]["source"], "disk");
  auto again = probe({"precompile:sm_80:f32[16,32];f32[16,32]"});
  EXPECT_EQ(again["precompiled"][0]["specializations"][0]["source"], "disk");
}

// The reason's wording for differences a process test cannot produce.
TEST(CompileReason, NamesEachKindOfDifference) {
  frontend::ast::Function fn;
  fn.name = "f";
  fn.params.resize(2);
  fn.params[0].name = "a";
  fn.params[1].name = "n";
  detail::SpecializationRecord then;
  then.arch = "sm_90a";
  abi::ArgSignature tensor;
  tensor.dtype = DType::f16;
  tensor.shape = {8, 4};
  abi::ArgSignature integer;
  integer.is_tensor = false;
  integer.is_integer = true;
  then.signature = {tensor, integer};
  EXPECT_EQ(detail::difference_reason(fn, then, {}), "first call of `f`");
  detail::SpecializationRecord now = then;
  now.signature[0].dtype = DType::bf16;
  now.signature[0].align_bytes = 4;
  now.signature[1].is_integer = false;
  now.defines["T"] = "1";
  now.debug_line_info = true;
  EXPECT_EQ(detail::difference_reason(fn, now, {then}),
            "define T added (= 1), debug_line_info changed from false to true, argument 1 'a' dtype changed from f16 "
            "to bf16, argument 1 'a' pointer alignment changed from 16 to 4 bytes, argument 2 'n' changed from int "
            "to float");
  EXPECT_EQ(detail::signature_text(now.signature), "bf16 [8, 4] (aligned to 4 bytes), float");
  // The nearest earlier one is compared: here `now` itself but for its arch.
  detail::SpecializationRecord other_arch = now;
  other_arch.arch = "sm_80";
  EXPECT_EQ(detail::difference_reason(fn, now, {then, other_arch}), "arch changed from sm_80 to sm_90a");
}

}  // namespace
}  // namespace croq
