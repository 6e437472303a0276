// NVRTC loaded at first use (jit/nvrtc_library.hpp): where it is looked
// for, the error naming every place tried when none loads, the one this
// process found, and a compile through it with the headers beside it.
#include <gtest/gtest.h>

#include <cuda.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/scoped_env.hpp"
#include "croq/error.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/nvrtc_library.hpp"

namespace croq::jit {
namespace {

namespace fs = std::filesystem;

const std::string kHint =
    "install the CUDA " + std::to_string(CUDA_VERSION / 1000) +
    " toolkit, or NVRTC from PyPI: pip install 'croqjit[cuda]'; CUDA_HOME may name a toolkit elsewhere";

// The message and hint of load_nvrtc(paths)'s CompileError.
std::pair<std::string, std::string> load_failure(const std::vector<std::string>& paths) {
  try {
    load_nvrtc(paths);
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diagnostics().size(), 1u);
    return {e.diagnostics().at(0).message, e.diagnostics().at(0).hint};
  }
  ADD_FAILURE() << "load_nvrtc succeeded";
  return {};
}

TEST(NvrtcLibrary, NameIsOfTheCudaMajorVersionBuiltAgainst) {
  EXPECT_EQ(nvrtc_library_name(), "libnvrtc.so." + std::to_string(CUDA_VERSION / 1000));
}

TEST(NvrtcLibrary, SearchesLoadedThenToolkitThenLoaderThenCudaHome) {
  std::vector<std::string> paths;
  {
    test::ScopedEnv env({{"CUDA_HOME", "/opt/croq-test-cuda"}, {"CUDA_PATH", ""}});
    paths = nvrtc_search_paths();
  }
  const std::string name = nvrtc_library_name();
  std::vector<std::string> expected{"", std::string(CROQ_CUDART_DIR) + "/" + name, name,
                                    "/opt/croq-test-cuda/lib64/" + name, "/opt/croq-test-cuda/lib/" + name};
  // The last resort is left out where the toolkit built against is /usr/local/cuda itself
  // (each place is tried once).
  if (std::string(CROQ_CUDART_DIR) + "/" + name != "/usr/local/cuda/lib64/" + name)
    expected.push_back("/usr/local/cuda/lib64/" + name);
  EXPECT_EQ(paths, expected);
}

TEST(NvrtcLibrary, ErrorNamesEveryPlaceTriedAndWhy) {
  const std::string name = nvrtc_library_name();
  const auto [message, hint] =
      load_failure({"/nonexistent/croq/" + name, "libnvrtc-croq-missing.so.1", "/lib/x86_64-linux-gnu/libm.so.6"});
  EXPECT_EQ(message, "NVRTC (" + name + ") could not be loaded (/nonexistent/croq/" + name +
                         ": no such file; libnvrtc-croq-missing.so.1: not found by the system loader; "
                         "/lib/x86_64-linux-gnu/libm.so.6: lacks nvrtcVersion)");
  EXPECT_EQ(hint, kHint);
}

TEST(NvrtcLibrary, ErrorWithNothingToTry) {
  EXPECT_EQ(load_failure({}).first, "NVRTC (" + nvrtc_library_name() + ") could not be loaded");
}

TEST(NvrtcLibrary, FileThatIsNotALibraryGivesTheLoadersReason) {
  const fs::path file = fs::temp_directory_path() / ("croq-not-nvrtc-" + std::to_string(::getpid()) + ".so");
  std::ofstream(file) << "not an ELF file";
  const std::string message = load_failure({file.string()}).first;
  fs::remove(file);
  const std::string prefix = "NVRTC (" + nvrtc_library_name() + ") could not be loaded (" + file.string() + ": " +
                             file.string() + ": ";
  EXPECT_EQ(message.rfind(prefix, 0), 0u) << message;
}

// What the Python package relies on: an NVRTC loaded by path (the PyPI
// package's, before) is the one "already loaded" finds.
TEST(NvrtcLibrary, FindsTheOneAlreadyLoaded) {
  const std::string loaded = nvrtc().path;
  EXPECT_EQ(fs::path(loaded).filename().string(), nvrtc_library_name());
  const NvrtcApi api = load_nvrtc({""});
  EXPECT_EQ(api.path, loaded);
  ASSERT_NE(api.nvrtcVersion, nullptr);
  int major = 0, minor = 0;
  ASSERT_EQ(api.nvrtcVersion(&major, &minor), NVRTC_SUCCESS);
  EXPECT_EQ(major, CUDA_VERSION / 1000);
  EXPECT_EQ(nvrtc_version(), std::to_string(major) + "." + std::to_string(minor));
}

TEST(NvrtcLibrary, CompilesWithTheLoadedNvrtcAndItsHeaders) {
  const std::string source =
      "#include <cuda_fp16.h>\n"
      "extern \"C\" __global__ void k(__half* x) { x[0] = __float2half(1.0f); }\n";
  const NvrtcOutput out = nvrtc_compile(source, "k.cu", "k", {"sm_90a", false, {}});
  ASSERT_GT(out.cubin.size(), 4u);
  EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF");
  EXPECT_EQ(out.lowered_entry, "k");
}

TEST(NvrtcLibrary, HeadersComeFromBesideTheLoadedNvrtc) {
  const fs::path beside = fs::path(nvrtc().path).parent_path().parent_path() / "include";
  std::error_code ec;
  if (!fs::exists(beside / "cuda.h", ec)) GTEST_SKIP() << "no cuda.h beside " << nvrtc().path;
  EXPECT_EQ(fs::canonical(cuda_include_dir()), fs::canonical(beside));
}

}  // namespace
}  // namespace croq::jit
