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
#include <string_view>

#include "croq/dtype.hpp"

namespace croqpy {

namespace nb = nanobind;

inline constexpr std::size_t kDTypeCount = static_cast<std::size_t>(croq::kDTypeCount);

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

// Whether NumPy has `dtype` itself (integers, float16/32/64), so that its
// arrays export it through DLPack; the others come from ml_dtypes (or are
// NumPy's bool) and are read through the array's attributes.
bool plain_numpy_dtype(croq::DType dtype);

// The croq dtype whose framework dtype holds `dtype`'s values: f32 for tf32
// (an f32 with its low mantissa bits zero), else `dtype` itself.
croq::DType storage_dtype(croq::DType dtype);

// The name of `dtype` in torch ("float8_e8m0fnu", "uint4": torch's bit-width
// dtypes take a byte per element, as croq stores them) and in NumPy
// ("float32"; ml_dtypes names for "bfloat16", the fp8, fp6 and fp4 types
// and "int4", "uint2", ...): of its storage dtype. nullptr when the framework
// has none (f8_ue4m3 nowhere; u6 and s6 not in NumPy; the fp6 and fp4 types
// not in torch, which packs fp4 two to a byte).
const char* torch_dtype_name(croq::DType dtype);
const char* numpy_dtype_name(croq::DType dtype);

// The framework's dtype object for `dtype` (framework "torch" or "numpy";
// NumPy's through ml_dtypes where NumPy lacks it); croq::ArgumentError
// naming the type when the framework has none, or when torch / ml_dtypes is
// not installed.
nb::object framework_dtype(croq::DType dtype, std::string_view framework);
// Why `dtype` cannot go to or come from `framework` ("f8_ue4m3 has no torch
// or NumPy dtype").
std::string no_framework_dtype(croq::DType dtype, std::string_view framework);

// repr of obj's type, for messages: "torch.Tensor", "list".
std::string type_name(PyObject* obj);

}  // namespace croqpy
