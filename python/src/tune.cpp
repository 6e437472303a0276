#include "tune.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "croq/error.hpp"
#include "croq/tune.hpp"
#include "errors.hpp"
#include "frameworks.hpp"
#include "kernel_object.hpp"
#include "options.hpp"
#include "results.hpp"

namespace croqpy {
namespace {

using namespace nb::literals;

PyObject* tune_error_type = nullptr;

// Thrown through croq::tune when a Python callback raised what must end the
// tune (KeyboardInterrupt, an error of the progress callback); the binding
// raises the Python exception itself.
class PythonRaised : public croq::Error {
 public:
  PythonRaised() : croq::Error("croqjit.tune: a Python callback raised") {}
};

// What the Python callbacks of one tune share: the callables, and the
// exception that ends it.
struct Hooks {
  nb::object progress;  // callable(stage, done, total), or None
  nb::object check;     // callable(result, arguments) -> str | None, or None
  std::unique_ptr<nb::python_error> raised;
};

nb::dict config_dict(const croq::TuneConfig& config) {
  nb::dict out;
  for (const auto& [name, value] : config.defines)
    out[py_text(name)] = std::holds_alternative<std::int64_t>(value) ? nb::cast(std::get<std::int64_t>(value))
                                                                      : nb::cast(std::get<double>(value));
  return out;
}

std::vector<croq::TuneConfig> configs_from(nb::handle configs) {
  nb::object items = nb::steal(PySequence_Check(configs.ptr()) && !PyUnicode_Check(configs.ptr())
                                   ? PySequence_Fast(configs.ptr(), "")
                                   : nullptr);
  if (!items.is_valid()) {
    PyErr_Clear();
    throw croq::ArgumentError("configs must be a sequence of dicts of #define values, or a dict of lists of them, got " +
                              type_name(configs.ptr()));
  }
  std::vector<croq::TuneConfig> out;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(items.ptr());
  if (static_cast<std::size_t>(n) > croq::kMaxTuneConfigurations)
    throw croq::ArgumentError("croqjit.tune: " + std::to_string(n) + " configurations, more than " +
                              std::to_string(croq::kMaxTuneConfigurations) + ", the limit");
  for (Py_ssize_t i = 0; i < n; ++i)
    out.push_back({define_map(PySequence_Fast_GET_ITEM(items.ptr(), i), "configs[" + std::to_string(i) + "]")});
  return out;
}

// The parameters the call's arguments are read against: the function's,
// from the first configuration that compiles (only the check runs); when
// none does, each argument as what it looks like (a number or a tensor), so
// that croq::tune reports every configuration's error.
std::vector<croq::ParamInfo> params_for(const std::string& source, const croq::CompileOptions& base,
                                        const std::vector<croq::TuneConfig>& configs, const nb::tuple& args) {
  for (const croq::TuneConfig& config : configs) {
    croq::CompileOptions options = base;
    for (const auto& [name, value] : config.defines) options.defines[name] = value;
    try {
      nb::gil_scoped_release release;
      return croq::compile(source, options).params();
    } catch (const croq::CompileError&) {
    }
  }
  std::vector<croq::ParamInfo> params(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    PyObject* obj = args[i].ptr();
    params[i].is_tensor = !(PyLong_Check(obj) || PyFloat_Check(obj));
  }
  return params;
}

// A host tensor of the checker's as a NumPy array sharing its memory.
nb::object host_array(const croq::Tensor& t) { return t.defined() ? wrap_result(t, Framework::numpy) : nb::none(); }

std::string run_python_check(Hooks& hooks, const croq::TuneOutputs& outputs) {
  nb::gil_scoped_acquire gil;
  try {
    nb::list arguments;
    for (const croq::Tensor& t : outputs.arguments) arguments.append(host_array(t));
    nb::object why = hooks.check(host_array(outputs.result), arguments);
    if (why.is_none()) return {};
    if (!PyUnicode_Check(why.ptr()))
      return "the checker returned " + type_name(why.ptr()) + "; it returns None (right) or a str saying why not";
    return utf8_of(why, "the checker's result");
  } catch (nb::python_error& e) {
    if (e.matches(PyExc_KeyboardInterrupt)) {
      hooks.raised = std::make_unique<nb::python_error>(std::move(e));
      return "interrupted";  // the next progress report ends the tune
    }
    return "the checker raised " + type_name(e.type().ptr()) + ": " + str_of(e.value());
  }
}

void report_progress(Hooks& hooks, std::string_view stage, std::size_t done, std::size_t total) {
  nb::gil_scoped_acquire gil;
  try {
    if (hooks.raised) throw PythonRaised();
    if (PyErr_CheckSignals() != 0) throw nb::python_error();  // Ctrl-C while NVRTC or the GPU ran
    if (!hooks.progress.is_none()) hooks.progress(std::string(stage), done, total);
  } catch (nb::python_error& e) {
    hooks.raised = std::make_unique<nb::python_error>(std::move(e));
    throw PythonRaised();
  }
}

struct PyTuneResult {
  Kernel kernel;
  croq::TuneResult result;
};

PyTuneResult tune(nb::handle source, nb::handle configs, const nb::tuple& args, const croq::CompileOptions& compile,
                  nb::handle check, double rtol, double atol, int warmup, int repetitions, int device,
                  bool reuse_record, nb::handle progress) {
  const std::string text = utf8_of(source, "source");
  const std::vector<croq::TuneConfig> tune_configs = configs_from(configs);
  if (!check.is_none() && !PyCallable_Check(check.ptr()))
    throw croq::ArgumentError("check must be callable or None, got " + type_name(check.ptr()));
  if (!progress.is_none() && !PyCallable_Check(progress.ptr()))
    throw croq::ArgumentError("progress must be callable or None, got " + type_name(progress.ptr()));
  const std::vector<croq::ParamInfo> params = params_for(text, compile, tune_configs, args);
  PyObject* const* items = reinterpret_cast<PyTupleObject*>(args.ptr())->ob_item;
  CallArguments call = convert_arguments(items, args.size(), params);

  Hooks hooks{nb::borrow(progress), nb::borrow(check), nullptr};
  croq::TuneOptions options;
  options.compile = compile;
  options.rtol = rtol;
  options.atol = atol;
  options.warmup = warmup;
  options.repetitions = repetitions;
  options.device = device;
  options.reuse_record = reuse_record;
  if (!check.is_none())
    options.check = [&hooks](const croq::TuneOutputs& outputs) { return run_python_check(hooks, outputs); };
  options.progress = [&hooks](std::string_view stage, std::size_t done, std::size_t total) {
    report_progress(hooks, stage, done, total);
  };
  croq::TuneResult result;
  try {
    nb::gil_scoped_release release;
    result = croq::tune(text, tune_configs, call.args, options);
  } catch (const PythonRaised&) {
    if (hooks.raised) {
      nb::python_error raised = std::move(*hooks.raised);
      throw raised;
    }
    throw;
  }
  return PyTuneResult{wrap_kernel(result.kernel), std::move(result)};
}

void translate_tune_error(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const croq::TuneError& e) {
    nb::object instance = nb::steal(PyObject_CallOneArg(tune_error_type, py_text(e.what()).ptr()));
    if (!instance.is_valid()) return;
    nb::object trials = nb::cast(e.trials());
    if (PyObject_SetAttrString(instance.ptr(), "trials", trials.ptr()) != 0) return;
    PyErr_SetObject(tune_error_type, instance.ptr());
  }
}

}  // namespace

void bind_tune(nb::module_& m) {
  nb::class_<croq::TuneTrial>(m, "TuneTrial", "What happened to one configuration of a tune.")
      .def_prop_ro("config", [](const croq::TuneTrial& t) { return config_dict(t.config); })
      .def_prop_ro("status", [](const croq::TuneTrial& t) { return std::string(croq::status_name(t.status)); },
                   "'timed', 'compile failed', 'launch failed', 'wrong result' or 'not run'")
      .def_ro("median_ms", &croq::TuneTrial::median_ms, "timed only")
      .def_ro("min_ms", &croq::TuneTrial::min_ms, "timed only")
      .def_prop_ro("why", [](const croq::TuneTrial& t) { return py_text(t.why); }, "every status but 'timed'")
      .def("__repr__", [](const croq::TuneTrial& t) {
        return py_text("<TuneTrial " + t.config.str() + ": " + croq::status_name(t.status) + ">");
      });
  nb::class_<PyTuneResult>(m, "TuneResult", "The chosen configuration of a tune, and its kernel.")
      .def_ro("kernel", &PyTuneResult::kernel, "compiled with the chosen configuration's defines")
      .def_prop_ro("config", [](const PyTuneResult& r) { return config_dict(r.result.config); })
      .def_prop_ro("index", [](const PyTuneResult& r) { return r.result.index; }, "its position in configs")
      .def_prop_ro("from_cache", [](const PyTuneResult& r) { return r.result.from_cache; },
                   "the choice came from a record of an earlier tune; nothing was timed")
      .def_prop_ro("trials", [](const PyTuneResult& r) { return r.result.trials; }, "one per configuration when timed")
      .def_prop_ro("key", [](const PyTuneResult& r) { return r.result.key; })
      .def_prop_ro("record_path", [](const PyTuneResult& r) { return py_text(r.result.record_path); },
                   "the record on disk; '' when the disk cache is off")
      .def("table", [](const PyTuneResult& r) { return py_text(croq::format_tune_table(r.result.trials, r.result.index)); },
           "One line per trial (config, status, median ms, note) and the choice.")
      .def("__repr__", [](const PyTuneResult& r) {
        return py_text("<TuneResult " + r.result.config.str() + (r.result.from_cache ? " (recorded)>" : ">"));
      });

  tune_error_type = PyErr_NewExceptionWithDoc("croqjit.TuneError",
                                              "No configuration of a tune compiled, ran and checked. .trials says "
                                              "what happened to each.",
                                              m.attr("Error").ptr(), nullptr);
  if (tune_error_type == nullptr) throw nb::python_error();
  m.attr("TuneError") = nb::borrow(tune_error_type);
  nb::register_exception_translator(translate_tune_error);

  m.def("cross_product", [](nb::handle axes) {
    nb::object items = nb::steal(PyDict_Check(axes.ptr()) ? PyDict_Items(axes.ptr()) : PySequence_List(axes.ptr()));
    if (!items.is_valid()) throw nb::python_error();
    std::vector<std::pair<std::string, std::vector<croq::DefineValue>>> pairs;
    for (nb::handle item : items) {
      if (!PyTuple_Check(item.ptr()) || PyTuple_GET_SIZE(item.ptr()) != 2)
        throw croq::ArgumentError("cross_product takes a dict (or pairs) of names to lists of values, got " +
                                  repr_of(item));
      const std::string name = utf8_of(PyTuple_GET_ITEM(item.ptr(), 0), "cross_product name");
      nb::object list = nb::steal(PySequence_List(PyTuple_GET_ITEM(item.ptr(), 1)));
      if (!list.is_valid()) throw nb::python_error();
      std::vector<croq::DefineValue> converted;
      for (nb::handle value : list) {
        nb::dict one;
        one[py_text(name)] = value;
        converted.push_back(define_map(one, "cross_product").at(name));
      }
      pairs.emplace_back(name, std::move(converted));
    }
    nb::list out;
    for (const croq::TuneConfig& c : croq::cross_product(pairs)) out.append(config_dict(c));
    return out;
  }, "axes"_a, "Every combination of the values ({'TM': [16, 32], 'TN': [8, 16]}), the first name varying slowest: "
     "a list of dicts for tune().");

  m.def("_tune", [](nb::handle source, nb::handle configs, nb::tuple args, nb::handle entry, nb::handle defines,
                    nb::handle arch, nb::handle dynamic_dims, nb::handle source_name, nb::handle debug_line_info,
                    nb::handle check, double rtol, double atol, int warmup, int repetitions, int device,
                    bool reuse_record, nb::handle progress) {
    return tune(source, configs, args,
                compile_options(entry, defines, arch, dynamic_dims, source_name, debug_line_info, nb::handle(Py_False)), check, rtol, atol,
                warmup, repetitions, device, reuse_record, progress);
  }, "source"_a, "configs"_a, "args"_a, nb::kw_only(), "entry"_a = nb::none(), "defines"_a = nb::none(),
        "arch"_a = nb::none(), "dynamic_dims"_a = nb::none(), "source_name"_a = nb::none(),
        "debug_line_info"_a = false, "check"_a = nb::none(), "rtol"_a = -1.0, "atol"_a = -1.0, "warmup"_a = 3,
        "repetitions"_a = 10, "device"_a = -1, "reuse_record"_a = true, "progress"_a = nb::none());
}

}  // namespace croqpy
