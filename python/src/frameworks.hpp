// What the extension knows about torch, CuPy and NumPy, without importing
// any of them: their types and dtypes are looked up in sys.modules the first
// time an object might be theirs, so `import croqjit` stays cheap and works
// where none is installed.
#pragma once

#include <nanobind/nanobind.h>
// Every file that casts to std::string must see this caster (one definition).
#include <nanobind/stl/string.h>

#include <array>
#include <optional>
#include <string>

#include "croq/dtype.hpp"

namespace croqpy {

namespace nb = nanobind;

inline constexpr std::size_t kDTypeCount = static_cast<std::size_t>(croq::DType::f8_e5m2) + 1;

// Where a tensor argument comes from; decides how results are returned.
enum class Framework : std::uint8_t { none, torch, cupy, numpy, dlpack };

struct TorchApi {
  PyTypeObject* tensor_type = nullptr;                      // torch.Tensor
  std::array<PyObject*, kDTypeCount> dtypes{};              // by croq::DType; nullptr when torch lacks it
  PyObject* current_raw_stream = nullptr;                   // torch._C._cuda_getCurrentRawStream
};

struct CupyApi {
  PyTypeObject* ndarray_type = nullptr;                     // cupy.ndarray
  PyObject* get_current_stream = nullptr;                   // cupy.cuda.get_current_stream
};

// nullptr while the framework is not imported (or lacks what we need).
const TorchApi* torch_api();
const CupyApi* cupy_api();
PyTypeObject* numpy_ndarray_type();

// Which framework `obj` belongs to: torch, cupy, numpy, or none.
Framework framework_of(PyObject* obj);

// torch.float32 -> f32 (nullopt for dtypes croq has no name for, e.g. torch.bool).
std::optional<croq::DType> torch_dtype(const TorchApi& torch, PyObject* dtype);
// A NumPy dtype object (CuPy uses NumPy's) -> croq dtype; bf16 and fp8 by
// their ml_dtypes names. nullopt for others (bool, complex, byte-swapped).
std::optional<croq::DType> numpy_dtype(PyObject* dtype);
// Any of: a croq name ("f32"), a torch dtype, a NumPy dtype or type;
// croq::ArgumentError for anything else.
croq::DType dtype_from_object(nb::handle dtype);

// NumPy's name for a croq dtype ("float32", "bfloat16"), as CuPy accepts it.
const char* numpy_dtype_name(croq::DType dtype);

// repr of obj's type, for messages: "torch.Tensor", "list".
std::string type_name(PyObject* obj);

}  // namespace croqpy
