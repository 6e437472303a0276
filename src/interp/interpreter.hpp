// The tile IR interpreter: runs an ir::Kernel after the passes on the CPU,
// on host memory, with the semantics the CUDA backend prints (every thread
// of every block, shared memory, barriers, mbarrier events, TMA copies,
// WGMMA / mma.sync as tile multiplies) and checks what the GPU cannot tell:
// out-of-bounds accesses, reads of a TMA tile before its event was waited,
// a tile overwritten while a multiply may still read it, and threads that
// disagree on a barrier, a collective operation or a trigger.
//
// Each thread is a fiber (ucontext) that runs until it blocks on a barrier,
// a collective (an MMA of its warpgroup, a warp's trigger) or an event wait;
// a block's fibers are scheduled round-robin. Nothing here needs a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "croq/dtype.hpp"
#include "ir/ir.hpp"

namespace croq::interp {

// One parameter of the kernel (KernelAbi::params order) for one run.
struct ParamValue {
  // Tensors, the output, scratch buffers and (for a tensor map) the tensor
  // it describes: host memory, row-major.
  void* data = nullptr;
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;
  std::int64_t integer = 0;  // integer and dim parameters
  double floating = 0;       // floating parameters
};

// A run-time error the interpreter found, at a Croqtile source line (0:
// unknown). The API turns it into a croq::InterpretError with the source.
struct Fault {
  int line = 0;
  std::string message;
};

struct RunOptions {
  std::int64_t blocks = 1;  // the grid (KernelAbi::launch with runtime dims applied)
};

// Runs `kernel` (whose launch shape and parameters are `abi`) over
// `params`. Throws Fault for a hazard or a construct it cannot run.
void run_kernel(const ir::Kernel& kernel, const abi::KernelAbi& abi, const std::vector<ParamValue>& params,
                const RunOptions& options);

}  // namespace croq::interp
