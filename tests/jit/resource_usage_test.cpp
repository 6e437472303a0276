// ptxas's report (registers, stack, spills, static shared memory) from
// NVRTC's -Xptxas=-v log: parsed from real compiles, kept with the cache
// entry so that a disk hit still has it, and validated when read back.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "cache_test_util.hpp"
#include "common/process.hpp"
#include "jit/cache_metadata.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/resource_usage.hpp"

namespace croq::jit {
namespace {

using croq::jit::test::cache_in;
using croq::test::read_file;
using croq::test::TempDir;

// Capped at 32 registers below its 64 live doubles (tests/data/jit/spills.cu).
const std::string kSpillingKernel = read_file(CROQ_TEST_DATA_DIR "/jit/spills.cu");

// A local array indexed at run time: local memory (a stack frame), no spills.
const char* kLocalArrayKernel = R"(
extern "C" __global__ void local_array(float* out, const int* index, int n) {
  float local[256];
  for (int i = 0; i < 256; ++i) local[i] = out[i * n + threadIdx.x];
  float sum = 0;
  for (int i = 0; i < n; ++i) sum += local[index[i] & 255];
  out[threadIdx.x] = sum;
}
)";

// 4 KiB of static shared memory.
const char* kSharedKernel = R"(
extern "C" __global__ void staged(float* out) {
  __shared__ float tile[1024];
  tile[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[1023 - threadIdx.x];
}
)";

ResourceUsage report_of(const std::string& source, const std::string& entry, const std::string& arch = "sm_90a") {
  NvrtcOutput out = nvrtc_compile(source, entry + ".cu", entry, {arch, false, {}});
  EXPECT_TRUE(out.resources.has_value()) << entry;
  // The report's lines do not reach the log of warnings.
  EXPECT_EQ(out.log.find("ptxas info"), std::string::npos) << out.log;
  return out.resources.value_or(ResourceUsage{});
}

TEST(ResourceUsage, AKernelCappedBelowItsLiveValuesSpills) {
  for (const std::string arch : {"sm_90a", "sm_80"}) {
    const ResourceUsage r = report_of(kSpillingKernel, "spills", arch);
    EXPECT_GT(r.spill_store_bytes, 0u) << arch;
    EXPECT_GT(r.spill_load_bytes, 0u) << arch;
    EXPECT_LE(r.registers, 32) << arch;
    EXPECT_GT(r.registers, 0) << arch;
    // The spills live in the stack frame (ptxas counts the bytes of its
    // spill instructions, which may store to one slot several times).
    EXPECT_GT(r.stack_frame_bytes, 0u) << arch;
    EXPECT_EQ(r.shared_bytes, 0u) << arch;
  }
}

TEST(ResourceUsage, LocalArraysAreStackNotSpills) {
  const ResourceUsage r = report_of(kLocalArrayKernel, "local_array");
  EXPECT_EQ(r.stack_frame_bytes, 1024u);  // float[256]
  EXPECT_EQ(r.stack_bytes, 1024u);
  EXPECT_EQ(r.spill_store_bytes, 0u);
  EXPECT_EQ(r.spill_load_bytes, 0u);
}

TEST(ResourceUsage, StaticSharedMemoryAndBarriers) {
  const ResourceUsage r = report_of(kSharedKernel, "staged");
  EXPECT_EQ(r.shared_bytes, 4096u);
  EXPECT_EQ(r.barriers, 1);
  EXPECT_EQ(r.stack_frame_bytes, 0u);
  EXPECT_EQ(r.spill_store_bytes, 0u);
  EXPECT_GT(r.registers, 0);
}

TEST(ResourceUsage, PtxOnlyCompilesHaveNoReport) {
  NvrtcOutput out = nvrtc_compile(kSharedKernel, "staged.cu", "staged", {"compute_90", false, {}});
  EXPECT_FALSE(out.resources.has_value());
}

TEST(ResourceUsage, ParsesTheEntrysBlockOnly) {
  // ptxas 13.0's text for a C++ entry that calls a function of its own
  // frame, with another entry before it.
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'other' for 'sm_80'\n"
      "ptxas info    : Function properties for other\n"
      "ptxas         .     8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 0 barriers, 8 bytes cumulative stack size\n"
      "ptxas info    : Compile time = 3.0 ms\n"
      "ptxas info    : Compiling entry function '_Z1kILi3EEvPf' for 'sm_80'\n"
      "ptxas info    : Function properties for _Z1kILi3EEvPf\n"
      "ptxas         .     128 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 32 registers, used 2 barriers, 160 bytes cumulative stack size, 32 bytes smem, "
      "360 bytes cmem[0]\n"
      "ptxas info    : Compile time = 16.074 ms\n"
      "ptxas info    : Function properties for _Z1ff\n"
      "ptxas         .     32 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n";
  auto r = parse_resource_usage(log, "_Z1kILi3EEvPf");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, (ResourceUsage{32, 2, 128, 160, 0, 0, 32, 360}));
  auto other = parse_resource_usage(log, "other");
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(*other, (ResourceUsage{40, 0, 8, 8, 8, 8, 0, 0}));
  EXPECT_FALSE(parse_resource_usage(log, "absent").has_value());
  EXPECT_FALSE(parse_resource_usage(log, "_Z1ff").has_value());  // not an entry: no register line
  EXPECT_FALSE(parse_resource_usage("", "k").has_value());
  // A report cut before the register line is no report.
  EXPECT_FALSE(parse_resource_usage(log.substr(0, log.find("Used 32")), "_Z1kILi3EEvPf").has_value());
}

TEST(ResourceUsage, TheRestOfTheLogIsKept) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized\n"
      "ptxas info    : Function properties for k\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 8 registers, used 0 barriers\n"
      "ptxas info    : Compile time = 15.007 ms\n"
      "k.cu(3): warning #177-D: variable \"x\" was declared but never referenced\n";
  EXPECT_EQ(without_resource_report(log),
            "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized\n"
            "k.cu(3): warning #177-D: variable \"x\" was declared but never referenced");
  EXPECT_EQ(without_resource_report("ptxas info    : 0 bytes gmem\n"), "");
}

JitRequest spilling_request() {
  JitRequest r;
  r.cuda_source = kSpillingKernel;
  r.entry = "spills";
  r.arch = "sm_90a";
  return r;
}

TEST(ResourceUsage, KeptWithTheCacheEntry) {
  TempDir dir;
  std::optional<ResourceUsage> compiled;
  std::string key;
  {
    JitCompiler jit(cache_in(dir.path()));
    auto k = jit.compile(spilling_request());
    ASSERT_TRUE(k->resources.has_value());
    compiled = k->resources;
    key = k->key.hex();
  }
  const auto meta = nlohmann::json::parse(read_file(dir.path() / (key + ".json")));
  ASSERT_TRUE(meta.contains("resource_usage")) << meta.dump(2);
  EXPECT_EQ(meta["resource_usage"]["spill_store_bytes"], compiled->spill_store_bytes);
  EXPECT_EQ(meta["resource_usage"]["registers"], compiled->registers);
  // Another process (compiler) finds it on disk with the same report.
  JitCompiler again(cache_in(dir.path()));
  JitLookup lookup;
  auto hit = again.compile(spilling_request(), &lookup);
  EXPECT_EQ(lookup.source, CacheSource::disk);
  EXPECT_EQ(hit->resources, compiled);
}

TEST(ResourceUsage, MalformedReportsMakeTheMetadataCorrupt) {
  const nlohmann::json base{{"format_version", kCacheFormatVersion},
                            {"key", std::string(32, 'a')},
                            {"entry", "k"},
                            {"arch", "sm_90a"},
                            {"cubin_bytes", 1},
                            {"cubin_xxh3_64", std::string(16, '0')}};
  const nlohmann::json good{{"registers", 8},         {"barriers", 1},          {"stack_frame_bytes", 16},
                            {"stack_bytes", 16},      {"spill_store_bytes", 4}, {"spill_load_bytes", 4},
                            {"shared_bytes", 4096},   {"constant_bytes", 0}};
  auto problem = [&](const nlohmann::json& usage) {
    nlohmann::json meta = base;
    meta["resource_usage"] = usage;
    ParsedMetadata parsed = parse_cache_metadata(meta.dump());
    return parsed.metadata ? std::string() : parsed.problem;
  };
  EXPECT_EQ(problem(good), "");
  {
    nlohmann::json meta = base;
    meta["resource_usage"] = good;
    auto parsed = parse_cache_metadata(meta.dump());
    ASSERT_TRUE(parsed.metadata && parsed.metadata->resources);
    EXPECT_EQ(*parsed.metadata->resources, (ResourceUsage{8, 1, 16, 16, 4, 4, 4096, 0}));
    // What the writer writes, the reader reads.
    auto again = parse_cache_metadata(parsed.metadata->to_text());
    ASSERT_TRUE(again.metadata && again.metadata->resources);
    EXPECT_EQ(*again.metadata->resources, *parsed.metadata->resources);
  }
  EXPECT_EQ(problem(nlohmann::json::array()), "metadata field `resource_usage` is not an object");
  nlohmann::json bad = good;
  bad["registers"] = "8";
  EXPECT_EQ(problem(bad), "metadata field `resource_usage.registers` is not a non-negative integer");
  bad = good;
  bad["registers"] = 70000;
  EXPECT_EQ(problem(bad), "metadata field `resource_usage.registers` is out of range");
  bad = good;
  bad.erase("spill_load_bytes");
  EXPECT_EQ(problem(bad), "metadata field `resource_usage.spill_load_bytes` is missing");
  bad = good;
  bad["shared_bytes"] = -1;
  EXPECT_EQ(problem(bad), "metadata field `resource_usage.shared_bytes` is not a non-negative integer");
}

TEST(ResourceUsage, ACorruptReportOnDiskIsRebuilt) {
  TempDir dir;
  std::string key;
  {
    JitCompiler jit(cache_in(dir.path()));
    key = jit.compile(spilling_request())->key.hex();
  }
  const auto path = dir.path() / (key + ".json");
  auto meta = nlohmann::json::parse(read_file(path));
  meta["resource_usage"]["spill_store_bytes"] = "many";
  std::filesystem::remove(path);
  std::ofstream(path) << meta.dump(2);
  JitCompiler jit(cache_in(dir.path()));
  JitLookup lookup;
  auto k = jit.compile(spilling_request(), &lookup);
  EXPECT_EQ(lookup.source, CacheSource::compiled);
  std::string notes;
  for (const auto& n : lookup.notes) notes += n + "\n";
  EXPECT_NE(notes.find("metadata field `resource_usage.spill_store_bytes` is not a non-negative integer"),
            std::string::npos)
      << notes;
  ASSERT_TRUE(k->resources.has_value());
  EXPECT_GT(k->resources->spill_store_bytes, 0u);
}

}  // namespace
}  // namespace croq::jit
