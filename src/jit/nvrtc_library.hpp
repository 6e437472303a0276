// NVRTC, loaded at first use (dlopen) rather than linked: the library and
// the Python wheel then load on machines where NVRTC lives somewhere the
// build could not know (the `nvidia-cuda-nvrtc` PyPI package's folder), or
// nowhere (compiling then fails with a CompileError saying where it looked).
#pragma once

#include <nvrtc.h>

#include <string>
#include <vector>

namespace croq::jit {

#define CROQ_NVRTC_FUNCTIONS(X)                                                                        \
  X(nvrtcVersion) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs) X(nvrtcGetErrorString)       \
  X(nvrtcCreateProgram) X(nvrtcDestroyProgram) X(nvrtcAddNameExpression) X(nvrtcCompileProgram)        \
  X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcGetLoweredName) X(nvrtcGetCUBINSize)          \
  X(nvrtcGetCUBIN) X(nvrtcGetPTXSize) X(nvrtcGetPTX)

// Function pointers into the loaded libnvrtc, with the ABI nvrtc.h declares.
struct NvrtcApi {
#define CROQ_DECLARE_NVRTC_FN(name) decltype(&::name) name = nullptr;
  CROQ_NVRTC_FUNCTIONS(CROQ_DECLARE_NVRTC_FN)
#undef CROQ_DECLARE_NVRTC_FN
  std::string path;  // the file it was loaded from
};

// The library's file name: libnvrtc.so.<the CUDA major version nvrtc.h is of>.
std::string nvrtc_library_name();

// Where NVRTC is looked for, in order: one already loaded into the process
// (croqjit's Python package and torch load the PyPI one), the toolkit the
// library was built against, the system loader (LD_LIBRARY_PATH,
// ld.so.cache), $CUDA_HOME/lib64 and /lib, the same of $CUDA_PATH,
// /usr/local/cuda/lib64.
// Each entry is a path for dlopen; "" stands for "already loaded".
std::vector<std::string> nvrtc_search_paths();

// Loads NVRTC from the first of `paths` that opens and has every function.
// Throws CompileError naming each place tried and why it failed.
NvrtcApi load_nvrtc(const std::vector<std::string>& paths);

// The process's NVRTC, loaded once from nvrtc_search_paths(). Throws the
// load's CompileError (again on every call) when none could be loaded.
const NvrtcApi& nvrtc();

}  // namespace croq::jit
