// The CUDA backend: prints a kernel that the passes have finished as CUDA
// C++ for NVRTC. It decides nothing: layouts, barrier counts, instructions,
// vector widths and the shared-memory layout are already in the IR.
#pragma once

#include <string>

#include "ir/ir.hpp"

namespace croq::backend::cuda {

// The kernel's CUDA C++ text. The kernel is finished: its launch shape and
// entry (kernel.abi.launch, kernel.abi.entry) were decided before
// (passes::complete_launch_abi), and printing changes nothing.
// Throws ir::SourceError at the statement where the text passes 4 MiB.
std::string emit_kernel(const ir::Kernel& kernel);

}  // namespace croq::backend::cuda
