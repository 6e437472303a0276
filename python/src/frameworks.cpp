#include "frameworks.hpp"

#include <string_view>
#include <utility>
#include <vector>

#include "croq/error.hpp"
#include "errors.hpp"

namespace croqpy {
namespace {

// torch and NumPy (and ml_dtypes) spell every croq dtype the same way,
// indexed by croq::DType.
constexpr std::array<const char*, kDTypeCount> kFrameworkDTypeNames = {
    "int8",    "uint8",    "int16",   "uint16",  "int32",         "uint32",     "int64",
    "uint64",  "float16",  "bfloat16", "float32", "float64",       "float8_e4m3fn", "float8_e5m2"};

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

std::optional<croq::DType> dtype_named(std::string_view name) {
  for (std::size_t i = 0; i < kDTypeCount; ++i)
    if (name == kFrameworkDTypeNames[i]) return static_cast<croq::DType>(i);
  return std::nullopt;
}

// What a NumPy dtype object is, from its kind, size, byte order and name.
std::optional<croq::DType> classify_numpy_dtype(PyObject* dtype) {
  std::string kind = string_attribute(dtype, "kind");
  std::string order = string_attribute(dtype, "byteorder");
  if (order == ">") return std::nullopt;  // byte-swapped on this (little-endian) host
  if (kind == "f" || kind == "i" || kind == "u" || kind == "V") return dtype_named(string_attribute(dtype, "name"));
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
  for (std::size_t i = 0; i < kDTypeCount; ++i) api.dtypes[i] = attribute_path(torch, {kFrameworkDTypeNames[i]});
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
    if (auto named = dtype_named(name)) return *named;
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

const char* numpy_dtype_name(croq::DType dtype) { return kFrameworkDTypeNames[static_cast<std::size_t>(dtype)]; }

std::string type_name(PyObject* obj) {
  PyTypeObject* type = Py_TYPE(obj);
  std::string module = string_attribute(reinterpret_cast<PyObject*>(type), "__module__");
  std::string name = string_attribute(reinterpret_cast<PyObject*>(type), "__qualname__");
  if (name.empty()) name = type->tp_name;
  return module.empty() || module == "builtins" ? name : module + "." + name;
}

}  // namespace croqpy
