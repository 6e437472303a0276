// Loads a CompiledKernel's module on a device and launches it.
#pragma once

#include <cuda.h>

#include "jit/compiled_kernel.hpp"

namespace croq::jit {

// The kernel's function on `device`, loading its module there on first use.
CUfunction load_function(const CompiledKernel& kernel, int device);

// Launches with `config`; `args` is the usual array of pointers to each
// parameter. Sets the dynamic shared memory limit when above 48 KB and uses
// cuLaunchKernelEx when the config has a cluster shape.
void launch(const CompiledKernel& kernel, const LaunchConfig& config, void** args, CUstream stream,
            int device);

}  // namespace croq::jit
