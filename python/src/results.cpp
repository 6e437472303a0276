#include "results.hpp"

#include <nanobind/ndarray.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>

namespace croqpy {
namespace {

nb::object shape_tuple(const croq::Shape& shape) {
  nb::object tuple = nb::steal(PyTuple_New(shape.rank()));
  if (!tuple.is_valid()) throw nb::python_error();
  for (int d = 0; d < shape.rank(); ++d) {
    PyObject* extent = PyLong_FromSize_t(shape[static_cast<std::size_t>(d)]);
    if (extent == nullptr) throw nb::python_error();
    PyTuple_SET_ITEM(tuple.ptr(), d, extent);
  }
  return tuple;
}

void* data_pointer(PyObject* value) {
  void* p = PyLong_AsVoidPtr(value);
  if (p == nullptr && PyErr_Occurred()) throw nb::python_error();
  return p;
}

// Why torch cannot hold a result of `dtype`: it has no such dtype, or this
// torch lacks it.
std::string no_torch_dtype(croq::DType dtype) {
  const char* name = torch_dtype_name(dtype);
  if (name == nullptr) return no_framework_dtype(dtype, "torch");
  return std::string(croq::dtype_name(dtype)) + " is torch." + name + ", which this torch does not have";
}

AllocatedResult torch_result(const CallArguments& call, const croq::CallInfo& info) {
  static PyObject* new_empty = PyUnicode_InternFromString("new_empty");
  static PyObject* data_ptr = PyUnicode_InternFromString("data_ptr");
  static PyObject* dtype_keyword = Py_BuildValue("(s)", "dtype");
  // tf32 results are float32 tensors (storage_dtype).
  PyObject* dtype = torch_api()->dtypes[static_cast<std::size_t>(storage_dtype(info.result_dtype))];
  if (dtype == nullptr) throw croq::ArgumentError("the result: " + no_torch_dtype(info.result_dtype));
  nb::object shape = shape_tuple(info.result_shape);
  // first_tensor.new_empty(shape, dtype=...): same device, torch's allocator.
  // (No PY_VECTORCALL_ARGUMENTS_OFFSET: args[-1] is not ours to lend.)
  PyObject* args[] = {call.first_tensor, shape.ptr(), dtype};
  nb::object tensor = nb::steal(PyObject_VectorcallMethod(new_empty, args, 2, dtype_keyword));
  if (!tensor.is_valid()) throw nb::python_error();
  nb::object pointer = nb::steal(PyObject_CallMethodNoArgs(tensor.ptr(), data_ptr));
  if (!pointer.is_valid()) throw nb::python_error();
  croq::TensorView view = croq::TensorView::contiguous(data_pointer(pointer.ptr()), info.result_dtype,
                                                       info.result_shape, croq::MemoryKind::device, call.device);
  return {std::move(tensor), view};
}

AllocatedResult cupy_result(const CallArguments& call, const croq::CallInfo& info) {
  const char* dtype_name = numpy_dtype_name(info.result_dtype);
  if (dtype_name == nullptr) throw croq::ArgumentError("the result: " + no_framework_dtype(info.result_dtype, "numpy"));
  nb::module_ cupy = nb::module_::import_("cupy");
  // cupy.empty allocates on the current device: make it the arguments'.
  nb::object device = cupy.attr("cuda").attr("Device")(call.device);
  device.attr("__enter__")();
  nb::object array;
  try {
    array = cupy.attr("empty")(shape_tuple(info.result_shape), nb::arg("dtype") = dtype_name);
  } catch (...) {
    device.attr("__exit__")(nb::none(), nb::none(), nb::none());
    throw;
  }
  device.attr("__exit__")(nb::none(), nb::none(), nb::none());
  nb::object pointer = array.attr("data").attr("ptr");
  croq::TensorView view = croq::TensorView::contiguous(data_pointer(pointer.ptr()), info.result_dtype,
                                                       info.result_shape, croq::MemoryKind::device, call.device);
  return {std::move(array), view};
}

// The DLPack dtype a result of `dtype` is exported with (DLPack 1.1 codes
// for fp8 and bool; tf32 as float32, whose bits it has), or nullopt when
// DLPack has none for croq's layout (a byte per element).
std::optional<nb::dlpack::dtype> dlpack_dtype(croq::DType dtype) {
  using Code = nb::dlpack::dtype_code;
  const auto bits = static_cast<std::uint8_t>(croq::dtype_size(dtype) * 8);
  auto of = [&](std::uint8_t code) { return nb::dlpack::dtype{code, bits, 1}; };
  switch (dtype) {
    case croq::DType::s8: case croq::DType::s16: case croq::DType::s32: case croq::DType::s64:
      return of(static_cast<std::uint8_t>(Code::Int));
    case croq::DType::u8: case croq::DType::u16: case croq::DType::u32: case croq::DType::u64:
      return of(static_cast<std::uint8_t>(Code::UInt));
    case croq::DType::f16: case croq::DType::f32: case croq::DType::f64: case croq::DType::tf32:
      return of(static_cast<std::uint8_t>(Code::Float));
    case croq::DType::bf16: return of(static_cast<std::uint8_t>(Code::Bfloat));
    case croq::DType::f8_e4m3: return of(10);   // kDLFloat8_e4m3fn
    case croq::DType::f8_e5m2: return of(12);   // kDLFloat8_e5m2
    case croq::DType::f8_ue8m0: return of(14);  // kDLFloat8_e8m0fnu
    case croq::DType::bin1: return of(6);       // kDLBool
    default: return std::nullopt;  // the sub-byte types, f8_ue4m3
  }
}

// Whether a result of `dtype` reaches `framework` as bytes viewed as the
// framework's dtype (NumPy reads no DLPack code beyond its own types; the
// ml_dtypes ones and torch's bit-width types are views of bytes).
bool exported_as_bytes(croq::DType dtype, Framework framework) {
  if (framework != Framework::torch && framework != Framework::numpy) return false;
  switch (storage_dtype(dtype)) {
    case croq::DType::s8: case croq::DType::s16: case croq::DType::s32: case croq::DType::s64:
    case croq::DType::u8: case croq::DType::u16: case croq::DType::u32: case croq::DType::u64:
    case croq::DType::f16: case croq::DType::f32: case croq::DType::f64:
      return false;
    case croq::DType::bf16: return framework == Framework::numpy;
    default: return true;
  }
}

template <typename... Framework>
nb::object export_array(const croq::Tensor& result, nb::handle owner, nb::dlpack::dtype dtype) {
  std::array<std::size_t, croq::kMaxRank> shape{};
  for (int d = 0; d < result.shape().rank(); ++d) shape[static_cast<std::size_t>(d)] = result.shape()[static_cast<std::size_t>(d)];
  const bool host = result.memory() == croq::MemoryKind::host;
  nb::ndarray<Framework...> array(result.data(), static_cast<std::size_t>(result.shape().rank()), shape.data(), owner,
                                  nullptr, dtype, host ? nb::device::cpu::value : nb::device::cuda::value,
                                  host ? 0 : result.view().device);
  // reference: the owner keeps the memory; never copy it.
  return nb::cast(array, nb::rv_policy::reference);
}

// The framework a result goes to: torch, CuPy (device), NumPy (host), or a
// bare DLPack array.
Framework destination(croq::MemoryKind memory, Framework framework) {
  const bool host = memory == croq::MemoryKind::host;
  if (framework == Framework::torch) return Framework::torch;
  if (framework == Framework::cupy && !host) return Framework::cupy;
  if (host && framework != Framework::dlpack) return Framework::numpy;
  return Framework::dlpack;
}

}  // namespace

std::optional<AllocatedResult> allocate_result(const CallArguments& call, const croq::CallInfo& info) {
  if (!info.has_result || call.host || info.result_shape.rank() == 0) return std::nullopt;
  if (call.framework == Framework::torch) return torch_result(call, info);
  if (call.framework == Framework::cupy) return cupy_result(call, info);
  return std::nullopt;
}

void check_result_dtype(croq::DType dtype, croq::MemoryKind memory, Framework framework) {
  const Framework to = destination(memory, framework);
  if (to == Framework::torch || to == Framework::numpy) {
    const bool torch = to == Framework::torch;
    if ((torch ? torch_dtype_name(dtype) : numpy_dtype_name(dtype)) == nullptr)
      throw croq::ArgumentError("the result: " + no_framework_dtype(dtype, torch ? "torch" : "numpy"));
  } else if (!dlpack_dtype(dtype)) {
    throw croq::ArgumentError("the result: " + std::string(croq::dtype_name(dtype)) +
                              " has no DLPack dtype (croq keeps one per byte); pass NumPy or torch arrays");
  }
}

namespace {

// A returned number: rank 0 (tensors have dims), on the host, s32/s64/f32/f64
// (frontend::ast::returned_scalar_dtype).
nb::object number_of(const croq::Tensor& result) {
  switch (result.dtype()) {
    case croq::DType::s32: {
      std::int32_t v = 0;
      std::memcpy(&v, result.data(), sizeof v);
      return nb::cast(v);
    }
    case croq::DType::s64: {
      std::int64_t v = 0;
      std::memcpy(&v, result.data(), sizeof v);
      return nb::cast(v);
    }
    case croq::DType::f32: {
      float v = 0;
      std::memcpy(&v, result.data(), sizeof v);
      return nb::cast(static_cast<double>(v));
    }
    default: {
      double v = 0;
      std::memcpy(&v, result.data(), sizeof v);
      return nb::cast(v);
    }
  }
}

}  // namespace

nb::object wrap_result(croq::Tensor result, Framework framework) {
  if (!result.defined()) return nb::none();
  if (result.shape().rank() == 0 && result.memory() == croq::MemoryKind::host) return number_of(result);
  const croq::DType dtype = result.dtype();
  const Framework to = destination(result.memory(), framework);
  check_result_dtype(dtype, result.memory(), framework);
  auto* kept = new croq::Tensor(std::move(result));
  nb::capsule owner(kept, [](void* p) noexcept { delete static_cast<croq::Tensor*>(p); });
  if (exported_as_bytes(dtype, to)) {
    // Bytes, viewed as the framework's dtype.
    const nb::dlpack::dtype bytes{static_cast<std::uint8_t>(nb::dlpack::dtype_code::UInt), 8, 1};
    nb::object raw = to == Framework::torch ? export_array<nb::pytorch>(*kept, owner, bytes)
                                            : export_array<nb::numpy>(*kept, owner, bytes);
    return raw.attr("view")(framework_dtype(dtype, to == Framework::torch ? "torch" : "numpy"));
  }
  const nb::dlpack::dtype exported = *dlpack_dtype(dtype);
  if (to == Framework::torch) return export_array<nb::pytorch>(*kept, owner, exported);
  if (to == Framework::cupy) return export_array<nb::cupy>(*kept, owner, exported);
  if (to == Framework::numpy) return export_array<nb::numpy>(*kept, owner, exported);
  // Any other producer gets an object with __dlpack__ and __dlpack_device__.
  return export_array<nb::array_api>(*kept, owner, exported);
}

}  // namespace croqpy
