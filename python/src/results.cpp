#include "results.hpp"

#include <nanobind/ndarray.h>

#include <array>

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

AllocatedResult torch_result(const CallArguments& call, const croq::CallInfo& info) {
  static PyObject* new_empty = PyUnicode_InternFromString("new_empty");
  static PyObject* data_ptr = PyUnicode_InternFromString("data_ptr");
  static PyObject* dtype_keyword = Py_BuildValue("(s)", "dtype");
  const auto index = static_cast<std::size_t>(info.result_dtype);
  PyObject* dtype = index < kDTypeCount ? torch_api()->dtypes[index] : nullptr;  // none for the sub-byte types
  if (dtype == nullptr)
    throw croq::ArgumentError("the result's dtype " + std::string(croq::dtype_name(info.result_dtype)) +
                              " has no torch equivalent in this torch version");
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
  nb::module_ cupy = nb::module_::import_("cupy");
  // cupy.empty allocates on the current device: make it the arguments'.
  nb::object device = cupy.attr("cuda").attr("Device")(call.device);
  device.attr("__enter__")();
  nb::object array;
  try {
    array = cupy.attr("empty")(shape_tuple(info.result_shape), nb::arg("dtype") = numpy_dtype_name(info.result_dtype));
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

nb::dlpack::dtype dlpack_dtype(croq::DType dtype) {
  using Code = nb::dlpack::dtype_code;
  const auto bits = static_cast<std::uint8_t>(croq::dtype_size(dtype) * 8);
  std::uint8_t code = static_cast<std::uint8_t>(Code::Float);
  switch (dtype) {
    case croq::DType::s8: case croq::DType::s16: case croq::DType::s32: case croq::DType::s64:
      code = static_cast<std::uint8_t>(Code::Int);
      break;
    case croq::DType::u8: case croq::DType::u16: case croq::DType::u32: case croq::DType::u64:
      code = static_cast<std::uint8_t>(Code::UInt);
      break;
    case croq::DType::bf16: code = static_cast<std::uint8_t>(Code::Bfloat); break;
    case croq::DType::f8_e4m3: code = 10; break;  // DLPack 1.1 kDLFloat8_e4m3fn
    case croq::DType::f8_e5m2: code = 12; break;  // kDLFloat8_e5m2
    case croq::DType::f8_ue8m0: case croq::DType::f8_ue4m3:
      throw croq::ArgumentError("the result's dtype " + std::string(croq::dtype_name(dtype)) +
                                " has no DLPack equivalent libcroqjit exports");
    default:  // tf32 goes out as float32: its bits are an f32's
      if (croq::is_subbyte(dtype))
        throw croq::ArgumentError("the result's dtype " + std::string(croq::dtype_name(dtype)) +
                                  " has no DLPack equivalent (one byte per element, the value in the low bits)");
      break;
  }
  return nb::dlpack::dtype{code, bits, 1};
}

template <typename... Framework>
nb::object export_array(const croq::Tensor& result, nb::handle owner) {
  std::array<std::size_t, croq::kMaxRank> shape{};
  for (int d = 0; d < result.shape().rank(); ++d) shape[static_cast<std::size_t>(d)] = result.shape()[static_cast<std::size_t>(d)];
  const bool host = result.memory() == croq::MemoryKind::host;
  nb::ndarray<Framework...> array(result.data(), static_cast<std::size_t>(result.shape().rank()), shape.data(), owner,
                                  nullptr, dlpack_dtype(result.dtype()),
                                  host ? nb::device::cpu::value : nb::device::cuda::value,
                                  host ? 0 : result.view().device);
  // reference: the owner keeps the memory; never copy it.
  return nb::cast(array, nb::rv_policy::reference);
}

}  // namespace

std::optional<AllocatedResult> allocate_result(const CallArguments& call, const croq::CallInfo& info) {
  if (!info.has_result || call.host) return std::nullopt;
  if (call.framework == Framework::torch) return torch_result(call, info);
  if (call.framework == Framework::cupy) return cupy_result(call, info);
  return std::nullopt;
}

nb::object wrap_result(croq::Tensor result, Framework framework) {
  if (!result.defined()) return nb::none();
  auto* kept = new croq::Tensor(std::move(result));
  nb::capsule owner(kept, [](void* p) noexcept { delete static_cast<croq::Tensor*>(p); });
  const bool host = kept->memory() == croq::MemoryKind::host;
  if (framework == Framework::torch) return export_array<nb::pytorch>(*kept, owner);
  if (framework == Framework::cupy && !host) return export_array<nb::cupy>(*kept, owner);
  if (host && framework != Framework::dlpack) return export_array<nb::numpy>(*kept, owner);
  // Any other producer gets an object with __dlpack__ and __dlpack_device__.
  return export_array<nb::array_api>(*kept, owner);
}

}  // namespace croqpy
