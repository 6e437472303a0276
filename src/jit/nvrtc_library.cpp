#include "jit/nvrtc_library.hpp"

#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <exception>
#include <filesystem>

#include "croq/error.hpp"
#include "support/env.hpp"

namespace croq::jit {
namespace {

#define CROQ_STRINGIFY_EXPANDED(x) CROQ_STRINGIFY(x)
#define CROQ_STRINGIFY(x) #x

// Why `path` gave no NVRTC, or "" when `api` now holds its functions.
std::string try_load(const std::string& path, const std::string& name, NvrtcApi& api) {
  std::error_code ec;
  if (!path.empty() && path.find('/') != std::string::npos && !std::filesystem::exists(path, ec))
    return "no such file";
  void* lib = path.empty() ? dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD) : dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* err = dlerror();
    if (path.empty()) return "none loaded";
    if (path.find('/') == std::string::npos) return "not found by the system loader";
    return err ? err : "dlopen failed";
  }
  std::string missing;
#define CROQ_RESOLVE_NVRTC_FN(fn)                                                   \
  if (void* sym = dlsym(lib, CROQ_STRINGIFY_EXPANDED(fn)))                          \
    api.fn = reinterpret_cast<decltype(api.fn)>(sym);                               \
  else if (missing.empty())                                                         \
    missing = CROQ_STRINGIFY_EXPANDED(fn);
  CROQ_NVRTC_FUNCTIONS(CROQ_RESOLVE_NVRTC_FN)
#undef CROQ_RESOLVE_NVRTC_FN
  if (!missing.empty()) {
    dlclose(lib);
    api = NvrtcApi{};
    return "lacks " + missing;
  }
  Dl_info info{};
  api.path = dladdr(reinterpret_cast<void*>(api.nvrtcVersion), &info) != 0 && info.dli_fname ? info.dli_fname : path;
  return {};
}

}  // namespace

std::string nvrtc_library_name() { return "libnvrtc.so." + std::to_string(CUDA_VERSION / 1000); }

std::vector<std::string> nvrtc_search_paths() {
  const std::string name = nvrtc_library_name();
  std::vector<std::string> paths{"", std::string(CROQ_CUDA_LIBRARY_DIR) + "/" + name, name};
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (auto root = support::env_string(var))
      for (const char* lib : {"/lib64/", "/lib/"}) paths.push_back(*root + lib + name);
  paths.push_back("/usr/local/cuda/lib64/" + name);
  std::vector<std::string> unique;
  for (auto& p : paths)
    if (std::find(unique.begin(), unique.end(), p) == unique.end()) unique.push_back(std::move(p));
  return unique;
}

NvrtcApi load_nvrtc(const std::vector<std::string>& paths) {
  const std::string name = nvrtc_library_name();
  std::string tried;
  for (const auto& path : paths) {
    NvrtcApi api;
    const std::string why = try_load(path, name, api);
    if (why.empty()) return api;
    tried += "; " + (path.empty() ? std::string("already loaded") : path) + ": " + why;
  }
  if (!tried.empty()) tried = " (" + tried.substr(2) + ")";
  throw CompileError({Diagnostic{Severity::error, "NVRTC (" + name + ") could not be loaded" + tried,
                                 0, 0, 1,
                                 "install the CUDA " + std::to_string(CUDA_VERSION / 1000) +
                                     " toolkit, or NVRTC from PyPI: pip install 'croqjit[cuda]'; "
                                     "CUDA_HOME may name a toolkit elsewhere"}},
                     "", "<nvrtc>");
}

const NvrtcApi& nvrtc() {
  struct Loaded {
    NvrtcApi api;
    std::exception_ptr failure;
  };
  static const Loaded loaded = [] {
    Loaded out;
    try {
      out.api = load_nvrtc(nvrtc_search_paths());
    } catch (const CompileError&) {
      out.failure = std::current_exception();
    }
    return out;
  }();
  if (loaded.failure) std::rethrow_exception(loaded.failure);
  return loaded.api;
}

}  // namespace croq::jit
