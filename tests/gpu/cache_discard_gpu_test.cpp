// A disk cache entry whose image passes every check the cache can make
// (size, checksum, an ELF cubin for the CUDA machine defining the entry)
// but that the driver refuses to load is deleted at that failure, so the
// next process rebuilds it instead of failing on it until `croq-cache clear`.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/files.hpp"
#include "common/process.hpp"
#include "croq/error.hpp"
#include "gpu_test_util.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/launcher.hpp"
#include "support/hash.hpp"

namespace croq::jit {
namespace {

namespace fs = std::filesystem;
using croq::test::TempDir;

JitRequest saxpy_for(const std::string& arch) {
  JitRequest r;
  r.cuda_source = croq::test::read_file(CROQ_TEST_DATA_DIR "/jit/saxpy.cu") + "\n// cache discard test\n";
  r.entry = "saxpy";
  r.arch = arch;
  r.source_name = "saxpy.cu";
  r.launch.block = {256, 1, 1};
  return r;
}

DiskCacheSettings cache_in(const fs::path& dir) {
  DiskCacheSettings s;
  s.dir = dir;
  return s;
}

// The entry for `key` now holds `image` (a real cubin of the same kernel,
// for another architecture), with metadata that agrees with it.
void plant_image(const fs::path& dir, const std::string& key, const std::vector<char>& image) {
  const fs::path meta_path = dir / (key + ".json");
  std::ifstream in(meta_path);
  auto meta = nlohmann::json::parse(in);
  meta["cubin_bytes"] = image.size();
  meta["cubin_xxh3_64"] = support::hex64(support::checksum64(image.data(), image.size()));
  fs::remove(meta_path);
  fs::remove(dir / (key + ".cubin"));
  std::ofstream(dir / (key + ".cubin"), std::ios::binary).write(image.data(), static_cast<std::streamsize>(image.size()));
  std::ofstream(meta_path) << meta.dump(2);
}

TEST(GpuCacheDiscard, RefusedCubinIsDeletedAndRebuiltByTheNextCompiler) {
  CROQ_REQUIRE_GPU();
  const DeviceInfo& info = device_info(0);
  const std::string arch = arch_for_compute_capability(info.cc_major, info.cc_minor);
  // SASS runs only on its own major version: this cubin cannot load here.
  const std::string foreign_arch = info.cc_major >= 9 ? "sm_80" : "sm_90a";
  TempDir dir, other;
  std::string key;
  {
    JitCompiler jit(cache_in(dir.path()));
    key = jit.compile(saxpy_for(arch))->key.hex();
  }
  std::vector<char> foreign;
  {
    JitCompiler jit(cache_in(other.path()));
    foreign = jit.compile(saxpy_for(foreign_arch))->cubin;
  }
  plant_image(dir.path(), key, foreign);

  // The cache cannot tell: it serves the entry...
  JitCompiler victim(cache_in(dir.path()));
  JitLookup lookup;
  auto planted = victim.compile(saxpy_for(arch), &lookup);
  ASSERT_EQ(lookup.source, CacheSource::disk);
  // ...the driver refuses it, and the entry goes.
  try {
    load_function(*planted, 0);
    FAIL() << "the driver loaded a " << foreign_arch << " cubin on " << arch;
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("cuModuleLoadData"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir.path() / (key + ".json")));
  EXPECT_FALSE(fs::exists(dir.path() / (key + ".cubin")));

  // The next compiler (a new process) rebuilds it, and it runs.
  JitCompiler next(cache_in(dir.path()));
  auto rebuilt = next.compile(saxpy_for(arch), &lookup);
  EXPECT_EQ(lookup.source, CacheSource::compiled);
  constexpr int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i), y[i] = 1.0f;
  croq::test::DeviceBuffer dx(n * 4), dy(n * 4);
  dx.upload(x);
  dy.upload(y);
  float a = 2.0f;
  CUdeviceptr px = dx.ptr(), py = dy.ptr();
  int count = n;
  void* args[] = {&a, &px, &py, &count};
  LaunchConfig cfg;
  cfg.grid = {(n + 255) / 256, 1, 1};
  cfg.block = {256, 1, 1};
  launch(*rebuilt, cfg, args, nullptr, 0);
  CROQ_CU(cuCtxSynchronize);
  const std::vector<float> got = dy.download<float>(n);
  for (int i = 0; i < n; i += 97) EXPECT_EQ(got[i], 2.0f * i + 1.0f) << i;
  EXPECT_TRUE(fs::exists(dir.path() / (key + ".cubin")));
}

}  // namespace
}  // namespace croq::jit
