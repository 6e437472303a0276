#include "frameworks.hpp"

#include <string_view>
#include <utility>
#include <vector>

#include "croq/error.hpp"
#include "errors.hpp"

namespace croqpy {
namespace {

// Each croq dtype's name in torch and in NumPy (ml_dtypes for the types
// NumPy lacks), by croq::DType; nullptr where the framework has none. Both
// store one element per byte for the 1-byte and sub-byte types, as croq
// does (ml_dtypes' int4 holds -1 as 0x0f: the value in the low bits).
struct FrameworkNames {
  const char* torch;
  const char* numpy;
};
constexpr std::array<FrameworkNames, kDTypeCount> kFrameworkNames = {{
    {"int8", "int8"}, {"uint8", "uint8"}, {"int16", "int16"}, {"uint16", "uint16"},
    {"int32", "int32"}, {"uint32", "uint32"}, {"int64", "int64"}, {"uint64", "uint64"},
    {"float16", "float16"}, {"bfloat16", "bfloat16"}, {"float32", "float32"}, {"float64", "float64"},
    {"float8_e4m3fn", "float8_e4m3fn"}, {"float8_e5m2", "float8_e5m2"},
    // f6_e2m3, f6_e3m2, f4_e2m1: torch has no fp6, and packs fp4 two to a byte.
    {nullptr, "float6_e2m3fn"}, {nullptr, "float6_e3m2fn"}, {nullptr, "float4_e2m1fn"},
    // u6, s6, u4, s4, u2, s2, u1, bin1
    {"uint6", nullptr}, {"int6", nullptr}, {"uint4", "uint4"}, {"int4", "int4"},
    {"uint2", "uint2"}, {"int2", "int2"}, {"uint1", "uint1"}, {"bool", "bool"},
    // tf32 is stored as float32 (storage_dtype); f8_ue4m3 (E4M3 without a sign) exists nowhere.
    {nullptr, nullptr}, {"float8_e8m0fnu", "float8_e8m0fnu"}, {nullptr, nullptr},
}};

// sys.modules[name] when imported (borrowed), else nullptr.
PyObject* imported_module(const char* name) {
  PyObject* module = PyDict_GetItemString(PyImport_GetModuleDict(), name);
  return module != nullptr && module != Py_None ? module : nullptr;
}

// root.a.b... as a new reference, or nullptr (error cleared).
PyObject* attribute_path(PyObject* root, std::initializer_list<const char*> names) {
  PyObject* current = root;
  Py_INCREF(current);
  for (const char* name : names) {
    PyObject* next = PyObject_GetAttrString(current, name);
    Py_DECREF(current);
    if (next == nullptr) {
      PyErr_Clear();
      return nullptr;
    }
    current = next;
  }
  return current;
}

// The type `module.name` when it is one (a new reference kept for the
// process), else nullptr.
PyTypeObject* type_attribute(PyObject* module, const char* name) {
  PyObject* type = attribute_path(module, {name});
  if (type != nullptr && PyType_Check(type)) return reinterpret_cast<PyTypeObject*>(type);
  Py_XDECREF(type);
  return nullptr;
}

std::string string_attribute(PyObject* obj, const char* name) {
  nb::object value = nb::steal(PyObject_GetAttrString(obj, name));
  if (!value.is_valid()) {
    PyErr_Clear();
    return {};
  }
  Py_ssize_t size = 0;
  const char* text = PyUnicode_Check(value.ptr()) ? PyUnicode_AsUTF8AndSize(value.ptr(), &size) : nullptr;
  if (text == nullptr) {
    PyErr_Clear();
    return {};
  }
  return std::string(text, static_cast<std::size_t>(size));
}

// The croq dtype a torch or NumPy name stands for.
std::optional<croq::DType> dtype_named(std::string_view name, bool torch) {
  for (std::size_t i = 0; i < kDTypeCount; ++i) {
    const char* known = torch ? kFrameworkNames[i].torch : kFrameworkNames[i].numpy;
    if (known != nullptr && name == known) return static_cast<croq::DType>(i);
  }
  return std::nullopt;
}

// What a NumPy dtype object is, from its kind, size, byte order and name.
std::optional<croq::DType> classify_numpy_dtype(PyObject* dtype) {
  std::string kind = string_attribute(dtype, "kind");
  std::string order = string_attribute(dtype, "byteorder");
  if (order == ">") return std::nullopt;  // byte-swapped on this (little-endian) host
  if (kind == "f" || kind == "i" || kind == "u" || kind == "V" || kind == "b")
    return dtype_named(string_attribute(dtype, "name"), false);
  return std::nullopt;
}

}  // namespace

const TorchApi* torch_api() {
  static TorchApi api;
  if (api.tensor_type != nullptr) return &api;
  PyObject* torch = imported_module("torch");
  if (torch == nullptr) return nullptr;
  PyTypeObject* tensor = type_attribute(torch, "Tensor");
  if (tensor == nullptr) return nullptr;  // torch is still being imported
  for (std::size_t i = 0; i < kDTypeCount; ++i)
    if (kFrameworkNames[i].torch != nullptr) api.dtypes[i] = attribute_path(torch, {kFrameworkNames[i].torch});
  api.current_raw_stream = attribute_path(torch, {"_C", "_cuda_getCurrentRawStream"});
  api.tensor_type = tensor;
  return &api;
}

const CupyApi* cupy_api() {
  static CupyApi api;
  if (api.ndarray_type != nullptr) return &api;
  PyObject* cupy = imported_module("cupy");
  if (cupy == nullptr) return nullptr;
  PyTypeObject* ndarray = type_attribute(cupy, "ndarray");
  if (ndarray == nullptr) return nullptr;
  api.get_current_stream = attribute_path(cupy, {"cuda", "get_current_stream"});
  api.ndarray_type = ndarray;
  return &api;
}

PyTypeObject* numpy_ndarray_type() {
  static PyTypeObject* ndarray = nullptr;
  if (ndarray == nullptr)
    if (PyObject* numpy = imported_module("numpy")) ndarray = type_attribute(numpy, "ndarray");
  return ndarray;
}

Framework framework_of(PyObject* obj) {
  PyTypeObject* type = Py_TYPE(obj);
  if (const TorchApi* torch = torch_api(); torch != nullptr && PyType_IsSubtype(type, torch->tensor_type))
    return Framework::torch;
  if (const CupyApi* cupy = cupy_api(); cupy != nullptr && PyType_IsSubtype(type, cupy->ndarray_type))
    return Framework::cupy;
  if (PyTypeObject* ndarray = numpy_ndarray_type(); ndarray != nullptr && PyType_IsSubtype(type, ndarray))
    return Framework::numpy;
  return Framework::none;
}

std::optional<croq::DType> torch_dtype(const TorchApi& torch, PyObject* dtype) {
  for (std::size_t i = 0; i < kDTypeCount; ++i)
    if (torch.dtypes[i] == dtype) return static_cast<croq::DType>(i);
  return std::nullopt;
}

std::optional<croq::DType> numpy_dtype(PyObject* dtype) {
  // NumPy's builtin dtypes are singletons: remember each one seen.
  static std::vector<std::pair<PyObject*, std::optional<croq::DType>>> seen;
  for (const auto& [object, dt] : seen)
    if (object == dtype) return dt;
  std::optional<croq::DType> dt = classify_numpy_dtype(dtype);
  if (seen.size() < 64) {
    Py_INCREF(dtype);
    seen.emplace_back(dtype, dt);
  }
  return dt;
}

croq::DType dtype_from_object(nb::handle dtype) {
  if (PyUnicode_Check(dtype.ptr())) {
    std::string name = utf8_of(dtype, "dtype");
    croq::DType dt;
    if (croq::parse_dtype(name, dt)) return dt;
    if (auto named = dtype_named(name, false)) return *named;
    if (auto named = dtype_named(name, true)) return *named;
    throw croq::ArgumentError("unknown dtype '" + name + "' (croq names such as 'f32', or NumPy names such as 'float32')");
  }
  if (const TorchApi* torch = torch_api())
    if (auto dt = torch_dtype(*torch, dtype.ptr())) return *dt;
  if (PyObject* numpy = imported_module("numpy")) {
    nb::object numpy_dtype_fn = nb::steal(attribute_path(numpy, {"dtype"}));
    if (numpy_dtype_fn.is_valid()) {
      nb::object as_numpy = nb::steal(PyObject_CallOneArg(numpy_dtype_fn.ptr(), dtype.ptr()));
      if (!as_numpy.is_valid()) PyErr_Clear();
      else if (auto dt = numpy_dtype(as_numpy.ptr())) return *dt;
    }
  }
  throw croq::ArgumentError("unsupported dtype " + repr_of(dtype));
}

bool plain_numpy_dtype(croq::DType dtype) {
  return dtype <= croq::DType::f64 && dtype != croq::DType::bf16;
}

croq::DType storage_dtype(croq::DType dtype) { return dtype == croq::DType::tf32 ? croq::DType::f32 : dtype; }

const char* torch_dtype_name(croq::DType dtype) {
  return kFrameworkNames[static_cast<std::size_t>(storage_dtype(dtype))].torch;
}

const char* numpy_dtype_name(croq::DType dtype) {
  return kFrameworkNames[static_cast<std::size_t>(storage_dtype(dtype))].numpy;
}

std::string no_framework_dtype(croq::DType dtype, std::string_view framework) {
  const std::string type(croq::dtype_name(dtype));
  const char* torch = torch_dtype_name(dtype);
  const char* numpy = numpy_dtype_name(dtype);
  if (torch == nullptr && numpy == nullptr) return type + " has no torch or NumPy dtype";
  if (framework == "torch") return type + " has no torch dtype; NumPy arrays of ml_dtypes." + numpy + " hold it";
  return type + " has no NumPy dtype; torch tensors of torch." + torch + " hold it";
}

nb::object framework_dtype(croq::DType dtype, std::string_view framework) {
  const bool torch = framework == "torch";
  const char* name = torch ? torch_dtype_name(dtype) : numpy_dtype_name(dtype);
  if (name == nullptr) throw croq::ArgumentError(no_framework_dtype(dtype, framework));
  auto import = [&](const char* module, const char* hint) {
    nb::object m = nb::steal(PyImport_ImportModule(module));
    if (m.is_valid()) return m;
    PyErr_Clear();
    throw croq::ArgumentError(std::string(croq::dtype_name(dtype)) + " is " + module + "." + name + ", but " + module +
                              " cannot be imported" + hint);
  };
  if (torch) return import("torch", "").attr(name);
  nb::object numpy = import("numpy", "");
  if (nb::hasattr(numpy, name)) return numpy.attr("dtype")(numpy.attr(name));
  return numpy.attr("dtype")(import("ml_dtypes", " (pip install ml_dtypes)").attr(name));
}

std::string type_name(PyObject* obj) {
  PyTypeObject* type = Py_TYPE(obj);
  std::string module = string_attribute(reinterpret_cast<PyObject*>(type), "__module__");
  std::string name = string_attribute(reinterpret_cast<PyObject*>(type), "__qualname__");
  if (name.empty()) name = type->tp_name;
  return module.empty() || module == "builtins" ? name : module + "." + name;
}

}  // namespace croqpy
