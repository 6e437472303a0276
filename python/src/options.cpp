#include "options.hpp"

#include "croq/error.hpp"
#include "errors.hpp"
#include "frameworks.hpp"

namespace croqpy {
namespace {

// A #define value: an int of 64 bits (an object with __index__, NumPy's
// integers too) or a float.
croq::DefineValue define_value(nb::handle value, const std::string& which) {
  if (PyFloat_Check(value.ptr())) return PyFloat_AS_DOUBLE(value.ptr());
  if (!PyIndex_Check(value.ptr()))
    throw croq::ArgumentError(which + " must be an int or a float, got " + type_name(value.ptr()));
  nb::object index = nb::steal(PyNumber_Index(value.ptr()));
  if (!index.is_valid()) throw nb::python_error();  // a failing __index__ is the object's own error
  long long v = PyLong_AsLongLong(index.ptr());
  if (v == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    throw croq::ArgumentError(which + " = " + repr_of(index) + " does not fit in a 64-bit signed integer");
  }
  return std::int64_t{v};
}

}  // namespace

std::optional<std::string> optional_text(nb::handle value, const char* name) {
  if (value.is_none()) return std::nullopt;
  return utf8_of(value, name);
}

std::vector<std::string> text_list(nb::handle value, const char* name) {
  std::vector<std::string> out;
  if (value.is_none()) return out;
  if (PyUnicode_Check(value.ptr())) {
    out.push_back(utf8_of(value, name));
    return out;
  }
  nb::object items = nb::steal(PySequence_Fast(value.ptr(), ""));
  if (!items.is_valid()) {
    PyErr_Clear();
    throw croq::ArgumentError(std::string(name) + " must be a str or a sequence of str, got " + type_name(value.ptr()));
  }
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(items.ptr()); ++i)
    out.push_back(utf8_of(PySequence_Fast_GET_ITEM(items.ptr(), i), std::string(name) + "[" + std::to_string(i) + "]"));
  return out;
}

std::map<std::string, croq::DefineValue> define_map(nb::handle dict, const std::string& what) {
  if (!PyDict_Check(dict.ptr()))
    throw croq::ArgumentError(what + " must be a dict of names to ints or floats, got " + type_name(dict.ptr()));
  std::map<std::string, croq::DefineValue> out;
  for (auto [key, value] : nb::borrow<nb::dict>(dict)) {
    const std::string name = utf8_of(key, what + " key " + repr_of(key));
    out[name] = define_value(value, what + "['" + name + "']");
  }
  return out;
}

croq::CompileOptions compile_options(nb::handle entry, nb::handle defines, nb::handle arch, nb::handle dynamic_dims,
                                     nb::handle source_name, nb::handle debug_line_info, nb::handle interpret) {
  croq::CompileOptions options;
  if (!PyBool_Check(interpret.ptr()))
    throw croq::ArgumentError("interpret must be a bool, got " + type_name(interpret.ptr()));
  options.interpret = interpret.ptr() == Py_True;
  if (auto text = optional_text(entry, "entry")) options.entry = *text;
  if (auto text = optional_text(arch, "arch")) options.arch = *text;
  if (auto text = optional_text(source_name, "source_name")) options.source_name = *text;
  if (!PyBool_Check(debug_line_info.ptr()))
    throw croq::ArgumentError("debug_line_info must be a bool, got " + type_name(debug_line_info.ptr()));
  options.debug_line_info = debug_line_info.ptr() == Py_True;
  if (!defines.is_none()) options.defines = define_map(defines, "defines");
  options.dynamic_dims = text_list(dynamic_dims, "dynamic_dims");
  return options;
}

}  // namespace croqpy
