#include "arguments.hpp"

#include <array>
#include <cstdint>

#include "croq/error.hpp"
#include "errors.hpp"

namespace croqpy {
namespace {

// Attribute names, interned once: the hot path looks them up per call.
struct Names {
  PyObject* data_ptr = PyUnicode_InternFromString("data_ptr");
  PyObject* dtype = PyUnicode_InternFromString("dtype");
  PyObject* shape = PyUnicode_InternFromString("shape");
  PyObject* stride = PyUnicode_InternFromString("stride");
  PyObject* strides = PyUnicode_InternFromString("strides");
  PyObject* get_device = PyUnicode_InternFromString("get_device");
  PyObject* is_cpu = PyUnicode_InternFromString("is_cpu");
  PyObject* data = PyUnicode_InternFromString("data");
  PyObject* ptr = PyUnicode_InternFromString("ptr");
  PyObject* device = PyUnicode_InternFromString("device");
  PyObject* id = PyUnicode_InternFromString("id");
  PyObject* flags = PyUnicode_InternFromString("flags");
  PyObject* writeable = PyUnicode_InternFromString("writeable");
  PyObject* itemsize = PyUnicode_InternFromString("itemsize");
  PyObject* byteorder = PyUnicode_InternFromString("byteorder");
  PyObject* dlpack = PyUnicode_InternFromString("__dlpack__");
  PyObject* cuda_stream_protocol = PyUnicode_InternFromString("__cuda_stream__");
  PyObject* cuda_stream = PyUnicode_InternFromString("cuda_stream");
  PyObject* array_interface = PyUnicode_InternFromString("__array_interface__");
};

const Names& names() {
  static const Names interned;
  return interned;
}

// Python errors raised while reading an argument propagate as they are.
nb::object checked(PyObject* result) {
  if (result == nullptr) throw nb::python_error();
  return nb::steal(result);
}
nb::object attribute(PyObject* obj, PyObject* name) { return checked(PyObject_GetAttr(obj, name)); }
nb::object method(PyObject* obj, PyObject* name) { return checked(PyObject_CallMethodNoArgs(obj, name)); }

std::int64_t as_int64(PyObject* value) {
  long long v = PyLong_AsLongLong(value);
  if (v == -1 && PyErr_Occurred()) throw nb::python_error();
  return v;
}
void* as_pointer(PyObject* value) {
  void* p = PyLong_AsVoidPtr(value);
  if (p == nullptr && PyErr_Occurred()) throw nb::python_error();
  return p;
}

class ArgumentReader {
 public:
  ArgumentReader(std::size_t index, const std::vector<croq::ParamInfo>& params) : index_(index), params_(params) {}

  [[noreturn]] void fail(const std::string& what) const {
    std::string who = "argument " + std::to_string(index_ + 1);
    if (index_ < params_.size()) who += " '" + params_[index_].name + "'";
    throw croq::ArgumentError(who + ": " + what);
  }

  // A tuple of extents (or strides) into `out`; returns the rank.
  int read_ints(PyObject* sequence, std::array<std::int64_t, croq::kMaxRank>& out) const {
    // torch.Size is a tuple subclass: read it in place, no list copy.
    nb::object fast = PyTuple_Check(sequence) ? nb::borrow(sequence)
                                              : checked(PySequence_Fast(sequence, "expected a tuple of integers"));
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
    if (n > croq::kMaxRank) fail("rank " + std::to_string(n) + " is above the supported " + std::to_string(croq::kMaxRank));
    for (Py_ssize_t d = 0; d < n; ++d) out[static_cast<std::size_t>(d)] = as_int64(PySequence_Fast_GET_ITEM(fast.ptr(), d));
    return static_cast<int>(n);
  }

  // Fills shape and strides (in elements) of `view`; `stride_bytes` > 0
  // means the strides were given in bytes of that element size.
  void read_layout(PyObject* shape, PyObject* strides, croq::TensorView& view, std::int64_t stride_bytes = 0) const {
    std::array<std::int64_t, croq::kMaxRank> extents{}, steps{};
    int rank = read_ints(shape, extents);
    if (read_ints(strides, steps) != rank) fail("its strides and shape disagree in rank");
    for (int d = 0; d < rank; ++d) {
      if (extents[d] < 0) fail("extent " + std::to_string(extents[d]) + " of dimension " + std::to_string(d) + " is negative");
      view.shape.push_back(static_cast<std::size_t>(extents[d]));
      std::int64_t step = steps[d];
      // A byte stride that is not whole elements is never contiguous.
      if (stride_bytes > 0) step = step % stride_bytes == 0 ? step / stride_bytes : -1;
      view.strides[static_cast<std::size_t>(d)] = step;
    }
  }

  croq::TensorView torch_view(PyObject* obj, const TorchApi& torch) const {
    const Names& n = names();
    long device = static_cast<long>(as_int64(method(obj, n.get_device).ptr()));
    nb::object dtype = attribute(obj, n.dtype);
    auto dt = torch_dtype(torch, dtype.ptr());
    if (!dt) fail("dtype " + str_of(dtype) + " has no croq equivalent");
    croq::TensorView view;
    view.dtype = *dt;
    read_layout(attribute(obj, n.shape).ptr(), method(obj, n.stride).ptr(), view);
    if (device < 0 && !PyObject_IsTrue(attribute(obj, n.is_cpu).ptr()))
      fail("a torch tensor on device '" + str_of(attribute(obj, n.device)) +
           "' cannot be used; pass a CUDA or CPU tensor");
    view.data = as_pointer(method(obj, n.data_ptr).ptr());
    view.memory = device >= 0 ? croq::MemoryKind::device : croq::MemoryKind::host;
    view.device = device >= 0 ? static_cast<int>(device) : 0;
    return view;
  }

  croq::TensorView cupy_view(PyObject* obj) const {
    const Names& n = names();
    nb::object dtype = attribute(obj, n.dtype);
    auto dt = numpy_dtype(dtype.ptr());
    if (!dt) fail("dtype " + str_of(dtype) + " has no croq equivalent");
    croq::TensorView view;
    view.dtype = *dt;
    read_layout(attribute(obj, n.shape).ptr(), attribute(obj, n.strides).ptr(), view,
                static_cast<std::int64_t>(croq::dtype_size(*dt)));
    view.data = as_pointer(attribute(attribute(obj, n.data).ptr(), n.ptr).ptr());
    view.memory = croq::MemoryKind::device;
    view.device = static_cast<int>(as_int64(attribute(attribute(obj, n.device).ptr(), n.id).ptr()));
    return view;
  }

  // NumPy arrays of the dtypes NumPy's DLPack export refuses (ml_dtypes'
  // bfloat16, fp8, fp6, fp4, int4, ...; bool), through their attributes.
  croq::TensorView numpy_view(PyObject* obj, croq::DType dtype) const {
    const Names& n = names();
    croq::TensorView view;
    view.dtype = dtype;
    read_layout(attribute(obj, n.shape).ptr(), attribute(obj, n.strides).ptr(), view,
                static_cast<std::int64_t>(croq::dtype_size(dtype)));
    nb::object interface = attribute(obj, n.array_interface);
    PyObject* data = PyDict_Check(interface.ptr()) ? PyDict_GetItemString(interface.ptr(), "data") : nullptr;
    if (data == nullptr || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) < 1)
      fail("its __array_interface__ has no data pointer");
    view.data = as_pointer(PyTuple_GET_ITEM(data, 0));
    view.memory = croq::MemoryKind::host;
    return view;
  }

  // NumPy arrays and other DLPack producers, through nanobind.
  croq::TensorView dlpack_view(PyObject* obj, CallArguments& call) const {
    // DLPack has no byte order and no Python objects: NumPy arrays of those
    // would only be "not a tensor" below; say what is wrong instead.
    if (framework_of(obj) == Framework::numpy) {
      const croq::DType dtype = check_numpy_dtype(obj);
      if (!plain_numpy_dtype(dtype)) return numpy_view(obj, dtype);
    }
    nb::ndarray<nb::ro> array;
    if (!nb::try_cast(nb::handle(obj), array, false))
      fail("expected a tensor (torch, CuPy, NumPy or a DLPack producer), got " + type_name(obj));
    croq::TensorView view;
    view.dtype = dlpack_dtype(array.dtype(), obj);
    if (array.ndim() > static_cast<std::size_t>(croq::kMaxRank))
      fail("rank " + std::to_string(array.ndim()) + " is above the supported " + std::to_string(croq::kMaxRank));
    for (std::size_t d = 0; d < array.ndim(); ++d) {
      view.shape.push_back(array.shape(d));
      view.strides[d] = array.stride(d);
    }
    view.data = const_cast<void*>(array.data());
    switch (array.device_type()) {
      case nb::device::cpu::value:
      case nb::device::cuda_host::value:
        view.memory = croq::MemoryKind::host;
        break;
      case nb::device::cuda::value:
      case nb::device::cuda_managed::value:
        view.memory = croq::MemoryKind::device;
        view.device = array.device_id();
        break;
      default:
        fail("DLPack device type " + std::to_string(array.device_type()) + " is neither the CPU nor a CUDA device");
    }
    call.imported.push_back(std::move(array));
    return view;
  }

  croq::DType check_numpy_dtype(PyObject* obj) const {
    nb::object dtype = attribute(obj, names().dtype);
    if (auto dt = numpy_dtype(dtype.ptr())) return *dt;
    nb::object order = attribute(dtype.ptr(), names().byteorder);
    if (PyUnicode_Check(order.ptr()) && PyUnicode_CompareWithASCIIString(order.ptr(), ">") == 0)
      fail("big-endian arrays are not supported; convert with arr.astype(arr.dtype.newbyteorder('='))");
    fail("dtype " + str_of(dtype) + " has no croq equivalent");
  }

  croq::DType dlpack_dtype(nb::dlpack::dtype dt, PyObject* obj) const {
    using Code = nb::dlpack::dtype_code;
    const auto code = static_cast<Code>(dt.code);
    if (dt.lanes == 1) {
      if (code == Code::Int) switch (dt.bits) {
          case 8: return croq::DType::s8;
          case 16: return croq::DType::s16;
          case 32: return croq::DType::s32;
          case 64: return croq::DType::s64;
        }
      if (code == Code::UInt) switch (dt.bits) {
          case 8: return croq::DType::u8;
          case 16: return croq::DType::u16;
          case 32: return croq::DType::u32;
          case 64: return croq::DType::u64;
        }
      if (code == Code::Float) switch (dt.bits) {
          case 16: return croq::DType::f16;
          case 32: return croq::DType::f32;
          case 64: return croq::DType::f64;
        }
      if (code == Code::Bfloat && dt.bits == 16) return croq::DType::bf16;
      // DLPack 1.1 codes: kDLBool = 6, kDLFloat8_e4m3fn = 10, kDLFloat8_e5m2 = 12,
      // kDLFloat8_e8m0fnu = 14.
      if (dt.code == 6 && dt.bits == 8) return croq::DType::bin1;
      if (dt.code == 10 && dt.bits == 8) return croq::DType::f8_e4m3;
      if (dt.code == 12 && dt.bits == 8) return croq::DType::f8_e5m2;
      if (dt.code == 14 && dt.bits == 8) return croq::DType::f8_ue8m0;
    }
    if (framework_of(obj) == Framework::numpy)
      fail("dtype " + str_of(attribute(obj, names().dtype)) + " has no croq equivalent");
    fail("DLPack dtype (code " + std::to_string(dt.code) + ", " + std::to_string(dt.bits) + " bits, " +
         std::to_string(dt.lanes) + " lanes) has no croq equivalent");
  }

  croq::Arg number(PyObject* obj) const {
    if (PyBool_Check(obj)) return croq::Arg(std::int64_t{obj == Py_True});
    if (PyLong_Check(obj)) {
      long long v = PyLong_AsLongLong(obj);
      if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        fail("integer " + repr_of(obj) + " does not fit in 64 bits");
      }
      return croq::Arg(std::int64_t{v});
    }
    if (PyFloat_Check(obj)) return croq::Arg(PyFloat_AS_DOUBLE(obj));
    if (framework_of(obj) != Framework::none || PyObject_HasAttr(obj, names().dlpack))
      fail("expected a scalar " + (index_ < params_.size() ? params_[index_].type : std::string("number")) +
           ", got a tensor (" + type_name(obj) + ")");
    if (PyIndex_Check(obj)) {  // NumPy integers
      nb::object value = checked(PyNumber_Index(obj));
      return number(value.ptr());
    }
    if (Py_TYPE(obj)->tp_as_number != nullptr && Py_TYPE(obj)->tp_as_number->nb_float != nullptr) {
      double v = PyFloat_AsDouble(obj);
      if (v == -1.0 && PyErr_Occurred()) throw nb::python_error();
      return croq::Arg(v);
    }
    fail("expected a number, got " + type_name(obj));
  }

 private:
  std::size_t index_;
  const std::vector<croq::ParamInfo>& params_;
};

bool is_number(PyObject* obj) { return PyLong_Check(obj) || PyFloat_Check(obj); }

// Fits a tensor argument to its parameter's declared element type: a
// float32 array is the storage of a tf32 parameter; a parameter type the
// argument's framework has no dtype for is named (whatever was passed
// cannot be it).
void fit_parameter(croq::TensorView& view, const croq::ParamInfo& param, Framework framework,
                   const ArgumentReader& reader) {
  if (croq::dtype_name(view.dtype) == param.type) return;  // the usual case, one comparison
  croq::DType declared;
  if (!croq::parse_dtype(param.type, declared) || view.dtype == declared) return;
  if (declared == croq::DType::tf32 && view.dtype == croq::DType::f32) {
    view.dtype = declared;
    return;
  }
  const bool torch = framework == Framework::torch;
  if (framework != Framework::torch && framework != Framework::numpy && framework != Framework::cupy) return;
  if ((torch ? torch_dtype_name(declared) : numpy_dtype_name(declared)) == nullptr)
    reader.fail("the parameter's type " + no_framework_dtype(declared, torch ? "torch" : "numpy"));
}

}  // namespace

CallArguments convert_arguments(PyObject* const* objects, std::size_t count,
                                const std::vector<croq::ParamInfo>& params) {
  CallArguments call;
  call.args.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    PyObject* obj = objects[i];
    ArgumentReader reader(i, params);
    if (i >= params.size()) {
      call.args.emplace_back(std::int64_t{0});  // the library reports the count
      continue;
    }
    if (!params[i].is_tensor || is_number(obj)) {
      // A number for a tensor parameter: the library names what it expected.
      call.args.push_back(reader.number(obj));
      continue;
    }
    croq::TensorView view;
    Framework framework = framework_of(obj);
    if (framework == Framework::torch) {
      view = reader.torch_view(obj, *torch_api());
    } else if (framework == Framework::cupy) {
      view = reader.cupy_view(obj);
    } else if (nb::isinstance<TensorSpec>(obj)) {
      const TensorSpec& spec = nb::cast<const TensorSpec&>(nb::handle(obj));
      view = croq::TensorView::contiguous(nullptr, spec.dtype, spec.shape,
                                          spec.device >= 0 ? croq::MemoryKind::device : croq::MemoryKind::host,
                                          spec.device >= 0 ? spec.device : 0);
    } else {
      view = reader.dlpack_view(obj, call);
      if (framework == Framework::none) framework = Framework::dlpack;
      if (framework == Framework::numpy &&
          !PyObject_IsTrue(attribute(attribute(obj, names().flags).ptr(), names().writeable).ptr()))
        call.read_only.push_back(i);
    }
    fit_parameter(view, params[i], framework, reader);
    if (call.first_tensor == nullptr) {
      call.first_tensor = obj;
      call.framework = framework;
    }
    if (view.memory == croq::MemoryKind::host) call.host = true;
    else if (call.device < 0) call.device = view.device;
    call.args.emplace_back(view);
  }
  return call;
}

namespace {

// A stream handle given as a Python int (itself, or what a stream object holds).
CUstream_st* stream_pointer(PyObject* value) {
  if (!PyLong_Check(value)) throw croq::ArgumentError("stream: a handle must be an int, got " + type_name(value));
  void* p = PyLong_AsVoidPtr(value);
  if (p == nullptr && PyErr_Occurred()) {
    PyErr_Clear();
    throw croq::ArgumentError("stream: handle " + repr_of(value) + " is not a pointer value");
  }
  return static_cast<CUstream_st*>(p);
}

CUstream_st* stream_handle(nb::handle stream) {
  const Names& n = names();
  PyObject* obj = stream.ptr();
  if (PyLong_Check(obj)) return stream_pointer(obj);
  if (PyObject_HasAttr(obj, n.cuda_stream_protocol)) {  // (version, handle)
    nb::object pair = method(obj, n.cuda_stream_protocol);
    if (!PyTuple_Check(pair.ptr()) || PyTuple_GET_SIZE(pair.ptr()) != 2)
      throw croq::ArgumentError("stream: __cuda_stream__() must return (version, handle), got " + repr_of(pair));
    return stream_pointer(PyTuple_GET_ITEM(pair.ptr(), 1));
  }
  if (PyObject_HasAttr(obj, n.cuda_stream)) return stream_pointer(attribute(obj, n.cuda_stream).ptr());
  if (PyObject_HasAttr(obj, n.ptr)) return stream_pointer(attribute(obj, n.ptr).ptr());
  throw croq::ArgumentError("stream: expected None, an int handle, a torch.cuda.Stream, a CuPy stream or an object with "
                            "__cuda_stream__, got " + type_name(obj));
}

// Host arguments name no stream. When torch has CUDA up, the call goes on
// torch's current stream: inside torch.cuda.graph that is the capturing
// stream, so staging the host data is refused there instead of breaking the
// capture from the legacy stream.
CUstream_st* host_call_stream() {
  PyObject* torch = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");  // borrowed
  if (torch == nullptr) return nullptr;
  // A stand-in module (or a torch without CUDA) has no torch.cuda to ask.
  if (!nb::hasattr(torch, "cuda")) return nullptr;
  nb::object cuda = nb::borrow(torch).attr("cuda");
  if (!nb::hasattr(cuda, "is_initialized") || !nb::cast<bool>(cuda.attr("is_initialized")())) return nullptr;
  return stream_handle(cuda.attr("current_stream")());
}

}  // namespace

CUstream_st* resolve_stream(nb::handle stream, const CallArguments& call) {
  if (!stream.is_none()) return stream_handle(stream);
  if (call.device < 0) return host_call_stream();
  if (call.framework == Framework::torch) {
    const TorchApi* torch = torch_api();
    if (torch->current_raw_stream != nullptr) {
      nb::object device = nb::steal(PyLong_FromLong(call.device));
      return static_cast<CUstream_st*>(as_pointer(checked(PyObject_CallOneArg(torch->current_raw_stream, device.ptr())).ptr()));
    }
    nb::object current = nb::module_::import_("torch").attr("cuda").attr("current_stream")(call.device);
    return stream_handle(current);
  }
  if (call.framework == Framework::cupy) {
    const CupyApi* cupy = cupy_api();
    if (cupy->get_current_stream != nullptr) return stream_handle(checked(PyObject_CallNoArgs(cupy->get_current_stream)));
  }
  return nullptr;
}

}  // namespace croqpy
