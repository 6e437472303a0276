// Loads a CompiledKernel's module on a device and launches it.
#pragma once

#include <cuda.h>

#include "jit/compiled_kernel.hpp"

namespace croq::jit {

// The kernel's function on `device`, loading its module there on first use.
CUfunction load_function(const CompiledKernel& kernel, int device);

// load_function, plus the dynamic shared memory limit `config` needs: after
// it, launching with `config` on `device` makes no other driver call than
// the launch (as CUDA graph capture needs).
CUfunction prepare_function(const CompiledKernel& kernel, const LaunchConfig& config, int device);

// Whether the kernel's module is loaded on `device` already.
bool is_loaded(const CompiledKernel& kernel, int device);

// Launches with `config`; `args` is the usual array of pointers to each
// parameter. Sets the dynamic shared memory limit when above 48 KB and uses
// cuLaunchKernelEx when the config has a cluster shape.
void launch(const CompiledKernel& kernel, const LaunchConfig& config, void** args, CUstream stream,
            int device);

}  // namespace croq::jit
