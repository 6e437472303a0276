// compute_XY targets: NVRTC emits PTX only, the jit caches the PTX as the
// kernel's image (NUL-terminated, marked "image": "ptx" in the metadata) and
// the driver compiles it at load time. Checks arch validation and parsing,
// the compiled and disk-cached images, and the cache's validation of them.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/files.hpp"
#include "cache_test_util.hpp"
#include "common/process.hpp"
#include "croq/error.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "support/hash.hpp"

namespace croq::jit {
namespace {

namespace fs = std::filesystem;
using croq::test::TempDir;
using croq::jit::test::cache_in;

JitRequest saxpy_for(const std::string& arch) {
  JitRequest r;
  r.cuda_source = croq::test::read_file(CROQ_TEST_DATA_DIR "/jit/saxpy.cu");
  r.entry = "saxpy";
  r.arch = arch;
  r.source_name = "saxpy.cu";
  return r;
}

std::string error_of(const std::string& arch) {
  try {
    validate_arch(arch);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(PtxImage, ArchNamesAndNumbers) {
  EXPECT_TRUE(is_virtual_arch("compute_80"));
  EXPECT_FALSE(is_virtual_arch("sm_80"));
  EXPECT_EQ(arch_number("sm_90a"), 90);
  EXPECT_EQ(arch_number("sm_86"), 86);
  EXPECT_EQ(arch_number("compute_80"), 80);
  EXPECT_EQ(arch_number("compute_90a"), 90);
  EXPECT_EQ(arch_number("garbage"), 0);

  EXPECT_EQ(error_of("compute_80"), "accepted");
  EXPECT_EQ(error_of("compute_90a"), "accepted");
  EXPECT_NE(error_of("compute_").find("malformed architecture `compute_`: expected sm_XY, sm_XYa, compute_XY or compute_XYa (for example sm_90a)"),
            std::string::npos);
  EXPECT_NE(error_of("compute_8x").find("malformed architecture `compute_8x`"), std::string::npos);
  EXPECT_NE(error_of("compute80").find("malformed architecture `compute80`"), std::string::npos);
  EXPECT_NE(error_of("compute_35").find("unsupported architecture `compute_35`: NVRTC"), std::string::npos);
}

TEST(PtxImage, NvrtcGivesPtxAndNoCubin) {
  JitRequest r = saxpy_for("compute_80");
  NvrtcOutput out = nvrtc_compile(r.cuda_source, r.source_name, r.entry, {"compute_80", false, {}});
  EXPECT_TRUE(out.cubin.empty());
  EXPECT_NE(out.ptx.find(".target sm_80"), std::string::npos) << out.ptx;
  EXPECT_EQ(nvrtc_flags({"compute_80", false, {}})[0], "-arch=compute_80");
}

TEST(PtxImage, CompiledAndDiskCachedImageIsNulTerminatedPtx) {
  TempDir dir;
  std::string key;
  std::string ptx;
  {
    JitCompiler jit(cache_in(dir.path()));
    auto k = jit.compile(saxpy_for("compute_80"));
    EXPECT_EQ(k->source, CacheSource::compiled);
    EXPECT_TRUE(k->image_is_ptx);
    EXPECT_EQ(k->arch, "compute_80");
    ASSERT_FALSE(k->cubin.empty());
    EXPECT_EQ(k->cubin.back(), '\0');
    EXPECT_EQ(std::string(k->cubin.data()), k->ptx);
    EXPECT_NE(k->ptx.find(".entry saxpy"), std::string::npos);
    key = k->key.hex();
    ptx = k->ptx;

    std::ifstream in(dir.path() / (key + ".json"));
    auto meta = nlohmann::json::parse(in);
    EXPECT_EQ(meta["arch"], "compute_80");
    EXPECT_EQ(meta["image"], "ptx");
    EXPECT_EQ(meta["cubin_bytes"], k->cubin.size());

    // An sm_ target keeps its cubin and says so; the keys differ.
    auto real = jit.compile(saxpy_for("sm_80"));
    EXPECT_FALSE(real->image_is_ptx);
    EXPECT_NE(real->key.hex(), key);
    std::ifstream real_in(dir.path() / (real->key.hex() + ".json"));
    EXPECT_EQ(nlohmann::json::parse(real_in)["image"], "cubin");
  }
  JitCompiler fresh(cache_in(dir.path()));
  auto again = fresh.compile(saxpy_for("compute_80"));
  EXPECT_EQ(again->source, CacheSource::disk);
  EXPECT_EQ(fresh.stats().nvrtc_compiles, 0u);
  EXPECT_TRUE(again->image_is_ptx);
  EXPECT_EQ(again->ptx, ptx);
  EXPECT_EQ(again->key.hex(), key);
}

// A PTX entry must be exactly one NUL-terminated text (the driver reads it
// up to the NUL), even when size and checksum agree with the metadata.
TEST(PtxImage, CacheRejectsAPtxImageWithoutItsNul) {
  const std::string key(32, 'a');
  // Why an entry of `bytes` with this image kind and arch is refused: the
  // metadata reader's verdict, then the image check's ("" when accepted).
  auto problem = [&](const std::string& bytes, const std::string& image, std::string arch = "") {
    if (arch.empty()) arch = image == "ptx" ? "compute_80" : "sm_80";
    const nlohmann::json meta{{"format_version", kCacheFormatVersion},
                              {"key", key},
                              {"entry", "saxpy"},
                              {"arch", arch},
                              {"image", image},
                              {"cubin_bytes", bytes.size()},
                              {"cubin_xxh3_64", support::hex64(support::checksum64(bytes.data(), bytes.size()))}};
    ParsedMetadata parsed = parse_cache_metadata(meta.dump());
    if (!parsed.metadata) return parsed.problem;
    StoredKernel s;
    s.cubin.assign(bytes.begin(), bytes.end());
    s.metadata = *parsed.metadata;
    return DiskCache::check_entry(key, s);
  };
  const std::string ptx = ".version 9.0\n.visible .entry saxpy()\n{\n ret;\n}\n";
  EXPECT_EQ(problem(ptx + '\0', "ptx"), "");
  EXPECT_EQ(problem(ptx, "ptx"), "PTX image is not one NUL-terminated text");
  EXPECT_EQ(problem(std::string("a\0b", 3) + '\0', "ptx"), "PTX image is not one NUL-terminated text");
  // A cubin must be an ELF image for CUDA that defines the entry (cache_entry_checks_test.cpp).
  EXPECT_EQ(problem("cubin bytes", "cubin"), "cubin is not an ELF file");
  EXPECT_EQ(problem("cubin bytes", "fatbin"), "unknown image kind `fatbin`");
  // The image kind follows the arch: PTX for compute_XY, a cubin for sm_XY.
  EXPECT_EQ(problem(ptx + '\0', "ptx", "sm_90a"), "image kind `ptx` does not match architecture `sm_90a`");
  EXPECT_EQ(problem("cubin bytes", "cubin", "compute_80"),
            "image kind `cubin` does not match architecture `compute_80`");
  EXPECT_EQ(problem(ptx + '\0', "ptx", "compute_90a"), "");
}

// A mismatched entry on disk is deleted and rebuilt, not loaded.
TEST(PtxImage, CacheRebuildsAnEntryWhoseImageKindDisagreesWithItsArch) {
  TempDir dir;
  std::string key;
  {
    JitCompiler jit(cache_in(dir.path()));
    key = jit.compile(saxpy_for("compute_80"))->key.hex();
  }
  const auto meta_path = dir.path() / (key + ".json");
  nlohmann::json meta;
  {
    std::ifstream in(meta_path);
    meta = nlohmann::json::parse(in);
  }
  meta["image"] = "cubin";
  {
    std::ofstream out(meta_path);
    out << meta.dump(2);
  }
  JitCompiler fresh(cache_in(dir.path()));
  auto again = fresh.compile(saxpy_for("compute_80"));
  EXPECT_EQ(again->source, CacheSource::compiled);
  EXPECT_EQ(fresh.stats().nvrtc_compiles, 1u);
  EXPECT_TRUE(again->image_is_ptx);
  EXPECT_EQ(again->cache_dir, dir.path());
}

}  // namespace
}  // namespace croq::jit
