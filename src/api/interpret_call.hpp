// Interpret mode: a call of a kernel runs on the CPU through the tile IR
// interpreter (src/interp/) instead of NVRTC and the GPU.
#pragma once

#include <span>

#include "croq/kernel.hpp"
#include "pipeline/pipeline.hpp"

namespace croq::detail {

// CompileOptions::interpret, or CROQ_INTERPRET=1.
bool interpreting(const CompileOptions& options);

// Generates the program for the arguments' signature (no NVRTC) and runs
// each of its kernels in the interpreter on the arguments' host memory.
// Device tensors are an ArgumentError; a hazard is an InterpretError.
Tensor interpret_call(const pipeline::CheckedProgram& checked, std::span<const Arg> args, const LaunchOptions& options);

}  // namespace croq::detail
