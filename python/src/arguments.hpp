// Python call arguments -> croq::Arg, without copying tensor data: torch
// tensors and CuPy arrays are read through a few attributes (the hot path),
// NumPy arrays and any other DLPack producer through nanobind's ndarray.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <string>
#include <vector>

#include "croq/kernel.hpp"
#include "frameworks.hpp"

namespace croqpy {

// A tensor described by dtype and shape only (no data): what
// Kernel.prepare needs to specialize, e.g. for torch's fake tensors.
struct TensorSpec {
  croq::DType dtype = croq::DType::f32;
  croq::Shape shape;
  int device = -1;  // -1: host memory
};

struct CallArguments {
  std::vector<croq::Arg> args;
  // Imported DLPack tensors stay alive (and their producers' memory with
  // them) until the call is over.
  std::vector<nb::ndarray<nb::ro>> imported;
  Framework framework = Framework::none;  // of the first tensor argument
  PyObject* first_tensor = nullptr;       // borrowed from the call's arguments
  int device = -1;                        // of the first device tensor
  bool host = false;                      // some tensor is in host memory
  std::vector<std::size_t> read_only;     // arguments that must not be written
};

// Converts the call's arguments; `params` (the kernel's) say which are
// tensors and name them in errors, which are croq::ArgumentError.
CallArguments convert_arguments(PyObject* const* objects, std::size_t count,
                                const std::vector<croq::ParamInfo>& params);

// The CUstream for `stream` (None, an int handle, a torch.cuda.Stream, a
// CuPy stream, or anything with __cuda_stream__); for None, the current
// torch stream of torch arguments' device, CuPy's current stream for CuPy
// arguments, else the legacy default stream.
CUstream_st* resolve_stream(nb::handle stream, const CallArguments& call);

}  // namespace croqpy
