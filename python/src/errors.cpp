#include "errors.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <new>
#include <string>
#include <typeinfo>
#include <vector>

#include "croq/error.hpp"
#include "frameworks.hpp"

namespace croqpy {
namespace {

// One diagnostic and its rendered text (source line and caret).
struct PyDiagnostic {
  croq::Diagnostic diagnostic;
  std::string rendered;
};

struct ExceptionTypes {
  PyObject* error = nullptr;
  PyObject* compile_error = nullptr;
  PyObject* argument_error = nullptr;
  PyObject* cuda_error = nullptr;
  PyObject* cache_error = nullptr;
  PyObject* interpret_error = nullptr;
};
ExceptionTypes types;

PyObject* new_exception_type(nb::module_& m, const char* name, PyObject* base, const char* doc) {
  std::string qualified = std::string("croqjit.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
  if (type == nullptr) throw nb::python_error();
  m.attr(name) = nb::borrow(type);  // the module and `types` both keep it
  return type;
}

// Raises `type(message)` with extra attributes set on the instance.
void raise_with(PyObject* type, std::string_view message,
                const std::vector<std::pair<const char*, nb::object>>& attributes = {}) {
  nb::str text = py_text(message);
  nb::object instance = nb::steal(PyObject_CallOneArg(type, text.ptr()));
  if (!instance.is_valid()) return;  // the constructor's error stays set
  for (const auto& [name, value] : attributes)
    if (PyObject_SetAttrString(instance.ptr(), name, value.ptr()) != 0) return;
  PyErr_SetObject(type, instance.ptr());
}

void raise_compile_error(const croq::CompileError& e) {
  nb::list diagnostics;
  for (const croq::Diagnostic& d : e.diagnostics())
    diagnostics.append(nb::cast(PyDiagnostic{d, croq::render_diagnostics({d}, e.source(), e.source_name())}));
  raise_with(types.compile_error, e.what(),
             {{"diagnostics", diagnostics},
              {"source_name", py_text(e.source_name())},
              {"json", py_text(e.to_json())}});
}

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const croq::CompileError& e) {
    raise_compile_error(e);
  } catch (const croq::ArgumentError& e) {
    raise_with(types.argument_error, e.what());
  } catch (const croq::CudaError& e) {
    raise_with(types.cuda_error, e.what(), {{"call", py_text(e.call())}, {"code", nb::cast(e.code())}});
  } catch (const croq::CacheError& e) {
    raise_with(types.cache_error, e.what());
  } catch (const croq::InterpretError& e) {
    raise_with(types.interpret_error, e.what(), {{"line", nb::cast(e.line())}});
  } catch (const croq::Error& e) {
    raise_with(types.error, e.what());
  } catch (const nb::python_error&) {
    throw;  // nanobind restores it
  } catch (const nb::builtin_exception&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;  // MemoryError
  } catch (const std::bad_cast&) {
    raise_with(types.error, "croqjit: internal error: a value could not be converted (std::bad_cast); please report it");
  } catch (const std::exception& e) {
    raise_with(types.error, std::string("croqjit: internal error: ") + e.what() + "; please report it");
  }
}

}  // namespace

nb::str py_text(std::string_view text) {
  PyObject* str = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (str == nullptr) throw nb::python_error();  // MemoryError
  return nb::steal<nb::str>(str);
}

std::string utf8_of(nb::handle obj, const std::string& what) {
  if (!PyUnicode_Check(obj.ptr())) throw croq::ArgumentError(what + " must be a str, got " + type_name(obj.ptr()));
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(obj.ptr(), &size);
  if (text == nullptr) {
    PyErr_Clear();
    throw croq::ArgumentError(what + " is not valid text: it holds a lone surrogate, which has no UTF-8 form");
  }
  return std::string(text, static_cast<std::size_t>(size));
}

namespace {

std::string printed(nb::handle obj, PyObject* (*print)(PyObject*)) {
  nb::object text = nb::steal(print(obj.ptr()));
  nb::object bytes;
  if (text.is_valid()) bytes = nb::steal(PyUnicode_AsEncodedString(text.ptr(), "utf-8", "backslashreplace"));
  if (!bytes.is_valid()) {
    PyErr_Clear();
    return "<unprintable " + type_name(obj.ptr()) + ">";
  }
  return std::string(PyBytes_AS_STRING(bytes.ptr()), static_cast<std::size_t>(PyBytes_GET_SIZE(bytes.ptr())));
}

}  // namespace

std::string repr_of(nb::handle obj) { return printed(obj, PyObject_Repr); }
std::string str_of(nb::handle obj) { return printed(obj, PyObject_Str); }

void register_errors(nb::module_& m) {
  types.error = new_exception_type(m, "Error", PyExc_Exception, "Base class of every croqjit error.");
  types.compile_error = new_exception_type(
      m, "CompileError", types.error,
      "The source did not compile. .diagnostics lists each problem (line, column, message, hint); "
      "str() of the error or of a diagnostic shows the source line with a caret.");
  types.argument_error = new_exception_type(
      m, "ArgumentError", types.error,
      "A kernel was called with arguments that do not fit its signature, or compile(), TensorSpec or a call was "
      "given an option it cannot take.");
  types.cuda_error = new_exception_type(
      m, "CudaError", types.error,
      "A CUDA driver call failed or no driver is present. .call names the driver function, .code is its CUresult.");
  types.cache_error = new_exception_type(m, "CacheError", types.error, "The on-disk kernel cache could not be used.");
  types.interpret_error = new_exception_type(
      m, "InterpretError", types.error,
      "Interpret mode (compile(..., interpret=True), CROQ_INTERPRET=1) found a hazard the GPU would not report "
      "(an out-of-bounds access, a read before its copy completed, a tile overwritten while a multiply may read it, "
      "threads that disagree on a barrier) or a construct it cannot run. .line is the Croqtile line (0: unknown).");

  nb::class_<PyDiagnostic>(m, "Diagnostic", "One message about the source: where, what, and a hint.")
      .def_prop_ro("severity", [](const PyDiagnostic& d) { return py_text(croq::severity_name(d.diagnostic.severity)); })
      .def_prop_ro("message", [](const PyDiagnostic& d) { return py_text(d.diagnostic.message); })
      .def_prop_ro("line", [](const PyDiagnostic& d) { return d.diagnostic.line; })
      .def_prop_ro("column", [](const PyDiagnostic& d) { return d.diagnostic.column; })
      .def_prop_ro("length", [](const PyDiagnostic& d) { return d.diagnostic.length; })
      .def_prop_ro("hint", [](const PyDiagnostic& d) { return py_text(d.diagnostic.hint); })
      .def("__str__", [](const PyDiagnostic& d) { return py_text(d.rendered); })
      .def("__repr__", [](const PyDiagnostic& d) {
        return py_text("<Diagnostic " + std::to_string(d.diagnostic.line) + ":" + std::to_string(d.diagnostic.column) +
                       " " + croq::severity_name(d.diagnostic.severity) + ": " + d.diagnostic.message + ">");
      });

  nb::register_exception_translator(translate);
}

}  // namespace croqpy
