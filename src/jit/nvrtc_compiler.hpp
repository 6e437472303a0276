// CUDA C++ text -> cubin (and PTX) through NVRTC. A virtual architecture
// (compute_XY) gives PTX only, which the driver compiles at module load.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jit/nvrtc_diagnostics.hpp"
#include "jit/resource_usage.hpp"

namespace croq::jit {

struct NvrtcOptions {
  std::string arch = "sm_90a";      // sm_XY, sm_XYa, or compute_XY (PTX only)
  bool line_info = false;           // -lineinfo
  std::vector<std::string> extra;   // further NVRTC flags
};

struct NvrtcOutput {
  std::vector<char> cubin;    // empty for a virtual architecture (compute_XY)
  std::string ptx;
  std::string log;            // warnings, when the compile succeeded (without ptxas's report)
  std::string lowered_entry;  // the entry's symbol in the cubin
  // ptxas's report about the entry (registers, spills, ...); nullopt for a
  // virtual architecture (no ptxas run).
  std::optional<ResourceUsage> resources;
};

// Compiles `cuda_source` and looks up `entry` (an extern "C" name or a C++
// name expression). Throws CompileError whose diagnostics carry NVRTC's
// messages with the line and column in the CUDA text, or in `origin` (the
// source its #line directives name) for lines copied from it. Includes
// that could read host files are refused before NVRTC runs.
NvrtcOutput nvrtc_compile(const std::string& cuda_source, const std::string& source_name,
                          const std::string& entry, const NvrtcOptions& options, const SourceOrigin& origin = {});

// The exact flags passed to NVRTC for these options (part of the cache key).
std::vector<std::string> nvrtc_flags(const NvrtcOptions& options);
// "13.0"
std::string nvrtc_version();
// Architectures this NVRTC can target, as "sm_75", "sm_90", ...
std::vector<std::string> nvrtc_supported_archs();
// Throws CompileError when `arch` is malformed or unsupported by this NVRTC.
// Accepts sm_XY, sm_XYa, sm_XYf and compute_XY(a|f) for the XY NVRTC lists.
void validate_arch(const std::string& arch);
// Whether `arch` has the shape validate_arch accepts (sm_XY, sm_XYa, sm_XYf,
// compute_XY[a|f]), without asking NVRTC which XY it supports.
bool is_well_formed_arch(const std::string& arch);
// Whether `arch` is a virtual architecture (compute_XY...): NVRTC then emits
// PTX only, and the driver compiles it for the device when it loads it.
bool is_virtual_arch(const std::string& arch);
// The compute capability as a number: 90 for sm_90a, 80 for compute_80, 86
// for sm_86; what follows "sm_" / "compute_" read as an integer (0 when it
// is not a number).
int arch_number(const std::string& arch);
// How many times nvrtc_compile ran NVRTC in this process (tests use it to
// prove cache hits).
std::uint64_t nvrtc_invocations();
// Where NVRTC looks for CUDA headers: the include folder beside the loaded
// NVRTC's lib folder, the configure-time toolkit, then $CUDA_HOME,
// $CUDA_PATH, then /usr/local/cuda (first that has cuda.h and crt/).
std::string cuda_include_dir();

}  // namespace croq::jit
