// A call's result as the arguments' framework's own tensor: torch and CuPy
// allocate it themselves (their caching allocator and memory pool, CUDA
// graph pools included), and results the library allocated (host results,
// other DLPack producers) are handed over without a copy.
#pragma once

#include <nanobind/nanobind.h>

#include <optional>

#include "arguments.hpp"
#include "croq/kernel.hpp"

namespace croqpy {

struct AllocatedResult {
  nb::object tensor;        // what the call returns
  croq::TensorView view;    // where the kernel writes it
};

// The result allocated by torch (on the first tensor's device, with
// torch's current stream) or CuPy; nullopt for other frameworks and for a
// returned number (rank 0, computed on the host), whose results the
// library allocates.
std::optional<AllocatedResult> allocate_result(const CallArguments& call, const croq::CallInfo& info);

// A library-allocated result (host or device) as a NumPy array, torch
// tensor, CuPy array or bare DLPack-capable ndarray, sharing its memory;
// a returned number (a rank-0 host tensor) as a Python int or float.
nb::object wrap_result(croq::Tensor result, Framework framework);

// croq::ArgumentError when a result of `dtype` in `memory` cannot be
// returned to `framework` (no dtype there: f8_ue4m3 anywhere, fp4 to
// torch, ...), so that a call can refuse before it launches.
void check_result_dtype(croq::DType dtype, croq::MemoryKind memory, Framework framework);

}  // namespace croqpy
