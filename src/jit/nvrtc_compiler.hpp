// CUDA C++ text -> cubin (and PTX) through NVRTC.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace croq::jit {

struct NvrtcOptions {
  std::string arch = "sm_90a";      // a real architecture: sm_XY or sm_XYa
  bool line_info = false;           // -lineinfo
  std::vector<std::string> extra;   // further NVRTC flags
};

struct NvrtcOutput {
  std::vector<char> cubin;
  std::string ptx;
  std::string log;            // warnings, when the compile succeeded
  std::string lowered_entry;  // the entry's symbol in the cubin
};

// Compiles `cuda_source` and looks up `entry` (an extern "C" name or a C++
// name expression). Throws CompileError whose diagnostics carry NVRTC's
// messages with the line and column in the CUDA text.
NvrtcOutput nvrtc_compile(const std::string& cuda_source, const std::string& source_name,
                          const std::string& entry, const NvrtcOptions& options);

// The exact flags passed to NVRTC for these options (part of the cache key).
std::vector<std::string> nvrtc_flags(const NvrtcOptions& options);
// "13.0"
std::string nvrtc_version();
// Architectures this NVRTC can target, as "sm_75", "sm_90", ...
std::vector<std::string> nvrtc_supported_archs();
// Throws CompileError when `arch` is malformed or unsupported by this NVRTC.
void validate_arch(const std::string& arch);
// How many times nvrtc_compile ran NVRTC in this process (tests use it to
// prove cache hits).
std::uint64_t nvrtc_invocations();
// Where NVRTC looks for CUDA headers: the configure-time toolkit, then
// $CUDA_HOME, $CUDA_PATH, then /usr/local/cuda (first that has cuda.h).
std::string cuda_include_dir();

}  // namespace croq::jit
