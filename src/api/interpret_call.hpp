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

// Runs a generated program (GenerateOptions::keep_kernel) of `checked` on
// the arguments: interpret_call's second half (tests give it programs their
// own pass lists made).
Tensor interpret_program(const pipeline::CheckedProgram& checked, const pipeline::GeneratedProgram& program,
                         std::span<const Arg> args, const LaunchOptions& options);

}  // namespace croq::detail
