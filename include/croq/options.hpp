// Options for compiling and launching kernels.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

struct CUstream_st;  // the CUDA driver's stream type; CUstream is CUstream_st*

namespace croq {

struct TensorView;

using DefineValue = std::variant<std::int64_t, double>;

struct CompileOptions {
  // #define constants; these override defines of the same name in the source.
  std::map<std::string, DefineValue> defines;
  // Target architecture, e.g. "sm_90a". Empty: the CROQ_ARCH environment
  // variable if set, else the current device's (compute capability 9.0 ->
  // sm_90a), else sm_90a when no device is present.
  // sm_XY compiles a cubin for exactly that architecture. compute_XY (e.g.
  // "compute_80") compiles PTX only; the driver compiles it for the device
  // when the kernel is first loaded, so compute_80 code also runs on newer
  // GPUs (sm_90). Codegen follows the arch: on sm_90a / compute_90a mma.*
  // is WGMMA; every other arch from 80 (sm_80..sm_89, and sm_90 / compute_90
  // without the 'a', sm_100, sm_120, which have no WGMMA) lowers mma.* to
  // mma.sync. tma.copy needs 90 or newer; below it is refused.
  std::string arch;
  // Which __co__ function to compile when the source has several.
  std::string entry;
  // Symbolic dims that stay runtime parameters (one cubin for all values).
  std::vector<std::string> dynamic_dims;
  // Emit line info so profilers and debuggers map SASS to source lines.
  bool debug_line_info = false;
  // Name shown in diagnostics ("matmul.co").
  std::string source_name = "<source>";
  // Run calls on the CPU with the tile IR interpreter instead of the GPU
  // (also CROQ_INTERPRET=1): no device or driver needed, host tensors only,
  // and hazards the GPU cannot report (out-of-bounds accesses, reads before
  // a copy completed, ...) are InterpretErrors at the Croqtile line.
  bool interpret = false;
};

// While `stream` is being captured into a CUDA graph, a launch only
// enqueues the kernel: one that would compile or load a module (a signature
// not prepare()d), stage host arguments or allocate its result (no
// `output`) throws CudaError instead of breaking the capture.
struct LaunchOptions {
  CUstream_st* stream = nullptr;  // nullptr: the legacy default stream
  // -1: the device of the first device tensor argument, else of the
  // current context, else 0. Every device tensor argument must be on it,
  // unless peer_access allows it.
  int device = -1;
  // Where the result goes, instead of a fresh allocation: a contiguous
  // tensor of the result's dtype and shape (Kernel::prepare tells them), in
  // the launch device's memory (host memory when the arguments are host
  // data). The launch then returns an empty Tensor. nullptr: allocate it.
  const TensorView* output = nullptr;
  // Tensor arguments may live on other devices of the node whose memory
  // croq::enable_peer_access(device, theirs) mapped here (last, so that
  // LaunchOptions{stream, device, output} keeps its meaning): the kernel reads
  // and writes them over NVLink / PCIe. Off: such an argument is an
  // ArgumentError that says how to allow it.
  bool peer_access = false;
};

}  // namespace croq
