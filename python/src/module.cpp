// croqjit._croqjit: the Python binding of libcroqjit. compile() gives a
// Kernel; calling it converts the arguments without copying (arguments.cpp),
// picks the stream, lets the arguments' framework allocate the result
// (results.cpp) and launches with the GIL released.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <climits>
#include <string>
#include <utility>

#include "arguments.hpp"
#include "croq/croq.hpp"
#include "errors.hpp"
#include "frameworks.hpp"
#include "gemm_any.hpp"
#include "info.hpp"
#include "kernel_object.hpp"
#include "options.hpp"
#include "sample_sources.hpp"
#include "tune.hpp"
#include "results.hpp"

namespace croqpy {
namespace {

using namespace nb::literals;

// Takes the int keyword `name` out of `kwargs` (`fallback` when absent).
int int_keyword(const nb::kwargs& kwargs, const char* name, int fallback) {
  PyObject* value = PyDict_GetItemString(kwargs.ptr(), name);  // borrowed
  if (value == nullptr) return fallback;
  if (!PyLong_Check(value) || PyBool_Check(value))
    throw croq::ArgumentError(std::string(name) + " must be an int, got " + type_name(value));
  const long v = PyLong_AsLong(value);
  if (v == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    throw croq::ArgumentError(std::string(name) + " = " + repr_of(value) + " is out of range");
  }
  if (v < INT_MIN || v > INT_MAX) throw croq::ArgumentError(std::string(name) + " = " + repr_of(value) + " is out of range");
  PyDict_DelItemString(kwargs.ptr(), name);
  return static_cast<int>(v);
}

// The call's keywords: stream= (None when absent) and peer_access= (a
// bool: LaunchOptions::peer_access); no other keyword exists.
struct CallKeywords {
  nb::handle stream = nb::none();
  bool peer_access = false;
};

CallKeywords call_keywords(const nb::kwargs& kwargs) {
  CallKeywords out;
  for (auto [key, value] : kwargs) {
    const bool is_str = PyUnicode_Check(key.ptr());
    if (is_str && PyUnicode_CompareWithASCIIString(key.ptr(), "stream") == 0) {
      out.stream = value;
    } else if (is_str && PyUnicode_CompareWithASCIIString(key.ptr(), "peer_access") == 0) {
      if (!PyBool_Check(value.ptr()))
        throw croq::ArgumentError("peer_access must be True or False, got " + type_name(value.ptr()));
      out.peer_access = value.ptr() == Py_True;
    } else {
      throw croq::ArgumentError("unexpected keyword argument " + repr_of(key) +
                                "; kernel arguments are positional, and stream= and peer_access= are the only keywords");
    }
  }
  return out;
}

struct PreparedCall {
  CallArguments arguments;
  croq::LaunchOptions options;
};

PreparedCall convert_call(const Kernel& k, const nb::args& args, const nb::kwargs& kwargs) {
  const CallKeywords keywords = call_keywords(kwargs);
  PyObject* const* items = reinterpret_cast<PyTupleObject*>(args.ptr())->ob_item;
  PreparedCall call{convert_arguments(items, args.size(), k.params), {}};
  call.options.stream = resolve_stream(keywords.stream, call.arguments);
  call.options.peer_access = keywords.peer_access;
  // options.device stays -1: the library takes the first device tensor's
  // device (call.arguments.device) itself, and its messages then say so.
  return call;
}

croq::CallInfo prepare(const Kernel& k, const PreparedCall& call) {
  nb::gil_scoped_release release;
  return k.kernel.prepare(call.arguments.args, call.options);
}

// Read-only NumPy arrays may be read, not written (their memory may be
// truly read-only: np.frombuffer over bytes).
void check_read_only(const Kernel& k, const PreparedCall& call) {
  croq::CallInfo info = prepare(k, call);
  for (std::size_t i : call.arguments.read_only)
    if (i < info.argument_written.size() && info.argument_written[i])
      throw croq::ArgumentError("argument " + std::to_string(i + 1) + " '" + k.params[i].name +
                                "': the kernel writes it, but the NumPy array is read-only");
}

nb::object call_kernel(const Kernel& k, nb::args args, nb::kwargs kwargs) {
  PreparedCall call = convert_call(k, args, kwargs);
  if (!call.arguments.read_only.empty()) check_read_only(k, call);
  const Framework framework = call.arguments.framework;
  if (k.returns_tensor && !call.arguments.host && (framework == Framework::torch || framework == Framework::cupy)) {
    std::optional<AllocatedResult> result = allocate_result(call.arguments, prepare(k, call));
    if (result) {
      call.options.output = &result->view;
      {
        nb::gil_scoped_release release;
        k.kernel.launch(call.arguments.args, call.options);
      }
      return std::move(result->tensor);
    }
  }
  // A result the arguments' framework cannot hold is refused before the
  // kernel runs (this path is the host copy or a bare DLPack producer's).
  if (k.returns_tensor)
    check_result_dtype(prepare(k, call).result_dtype,
                       call.arguments.host ? croq::MemoryKind::host : croq::MemoryKind::device, framework);
  croq::Tensor result;
  {
    nb::gil_scoped_release release;
    result = k.kernel.launch(call.arguments.args, call.options);
  }
  return wrap_result(std::move(result), framework);
}

croq::Shape shape_from(nb::handle sequence) {
  nb::object items = nb::steal(PySequence_Fast(sequence.ptr(), ""));
  if (!items.is_valid()) {
    PyErr_Clear();
    throw croq::ArgumentError("TensorSpec: shape must be a sequence of ints, got " + type_name(sequence.ptr()));
  }
  croq::Shape shape;
  for (Py_ssize_t d = 0; d < PySequence_Fast_GET_SIZE(items.ptr()); ++d) {
    PyObject* extent = PySequence_Fast_GET_ITEM(items.ptr(), d);
    const std::string which = "TensorSpec: extent " + std::to_string(d);
    if (!PyIndex_Check(extent) || PyFloat_Check(extent))
      throw croq::ArgumentError(which + " must be an int, got " + type_name(extent));
    nb::object index = nb::steal(PyNumber_Index(extent));
    if (!index.is_valid()) throw nb::python_error();  // a failing __index__ is the object's own error
    long long v = PyLong_AsLongLong(index.ptr());
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      throw croq::ArgumentError(which + " (" + repr_of(extent) + ") does not fit in a 64-bit signed integer");
    }
    if (v < 0) throw croq::ArgumentError(which + " is " + std::to_string(v) + "; extents must not be negative");
    shape.push_back(static_cast<std::size_t>(v));  // throws croq::Error past rank 8
  }
  return shape;
}

// Any range (extents, flags, pairs) as a Python tuple.
template <typename Range>
nb::tuple as_tuple(const Range& range) {
  nb::list out;
  for (const auto& item : range) out.append(nb::cast(item));
  return nb::tuple(out);
}

Kernel compile(const std::string& source, const croq::CompileOptions& options) {
  croq::Kernel kernel;
  {
    nb::gil_scoped_release release;
    kernel = croq::compile(source, options);
  }
  return wrap_kernel(std::move(kernel));
}

// TensorSpec's device: None (host memory) or a device ordinal.
int spec_device(nb::handle device) {
  if (device.is_none()) return -1;
  if (!PyLong_Check(device.ptr()) || PyBool_Check(device.ptr()))
    throw croq::ArgumentError("TensorSpec: device must be None or an int, got " + type_name(device.ptr()));
  const long v = PyLong_AsLong(device.ptr());
  if ((v == -1 && PyErr_Occurred()) || v < 0 || v > INT_MAX) {
    PyErr_Clear();
    throw croq::ArgumentError("TensorSpec: device " + repr_of(device) +
                              " is not a device ordinal (None stands for host memory)");
  }
  return static_cast<int>(v);
}

// croqjit.precompile: each signature is a sequence of call arguments
// (TensorSpec, arrays, numbers), converted as a call converts them.
croq::KernelStats precompile(const std::string& source, const croq::CompileOptions& options, nb::handle signatures,
                             const std::vector<std::string>& archs) {
  Kernel k = compile(source, options);
  std::vector<CallArguments> converted;
  nb::object list = nb::steal(PySequence_Fast(signatures.ptr(), ""));
  if (!list.is_valid()) {
    PyErr_Clear();
    throw croq::ArgumentError("signatures must be a sequence of argument sequences, got " + type_name(signatures.ptr()));
  }
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(list.ptr()); ++i) {
    PyObject* signature = PySequence_Fast_GET_ITEM(list.ptr(), i);
    nb::object items = nb::steal(PySequence_Check(signature) && !PyUnicode_Check(signature) ? PySequence_Tuple(signature)
                                                                                              : nullptr);
    if (!items.is_valid()) {
      PyErr_Clear();
      throw croq::ArgumentError("signatures[" + std::to_string(i) + "] must be a sequence of call arguments, got " +
                                type_name(signature));
    }
    PyObject* const* objects = reinterpret_cast<PyTupleObject*>(items.ptr())->ob_item;
    converted.push_back(convert_arguments(objects, static_cast<std::size_t>(PyTuple_GET_SIZE(items.ptr())), k.params));
  }
  std::vector<std::vector<croq::Arg>> calls;
  for (const CallArguments& c : converted) calls.push_back(c.args);
  nb::gil_scoped_release release;
  return croq::precompile(source, options, calls, archs);
}

void bind_stats(nb::module_& m) {
  nb::class_<croq::SpecializationStats>(m, "SpecializationStats",
                                        "One argument signature of a kernel: where its images came from and why it compiled.")
      .def_ro("signature", &croq::SpecializationStats::signature, "the arguments: 'f16 [128, 64], f16 [64, 256]'")
      .def_ro("arch", &croq::SpecializationStats::arch)
      .def_prop_ro("source", [](const croq::SpecializationStats& s) { return std::string(croq::image_source_name(s.source)); },
                   "'memory', 'disk', 'remote' or 'compiled'")
      .def_ro("reason", &croq::SpecializationStats::reason, "why it compiled ('' unless source == 'compiled')")
      .def_ro("compile_ms", &croq::SpecializationStats::compile_ms, "NVRTC's time for its images")
      .def_ro("specialize_ms", &croq::SpecializationStats::specialize_ms, "code generation, cache lookups and NVRTC")
      .def_ro("images", &croq::SpecializationStats::images)
      .def_ro("images_compiled", &croq::SpecializationStats::images_compiled)
      .def("__repr__", [](const croq::SpecializationStats& s) {
        return "<SpecializationStats (" + s.signature + ") " + s.arch + ": " + croq::image_source_name(s.source) + ">";
      });
  nb::class_<croq::KernelStats>(m, "KernelStats", "A kernel's specializations so far, and totals.")
      .def_ro("specializations", &croq::KernelStats::specializations)
      .def_ro("memory", &croq::KernelStats::memory)
      .def_ro("disk", &croq::KernelStats::disk)
      .def_ro("remote", &croq::KernelStats::remote)
      .def_ro("compiled", &croq::KernelStats::compiled)
      .def_ro("nvrtc_compiles", &croq::KernelStats::nvrtc_compiles)
      .def_ro("compile_ms", &croq::KernelStats::compile_ms)
      .def("__repr__", [](const croq::KernelStats& s) {
        return "<KernelStats " + std::to_string(s.specializations.size()) + " specializations: " +
               std::to_string(s.compiled) + " compiled, " + std::to_string(s.disk) + " disk, " +
               std::to_string(s.remote) + " remote, " + std::to_string(s.memory) + " memory>";
      });
}

void bind_kernel(nb::module_& m) {
  nb::class_<croq::ParamInfo>(m, "ParamInfo", "A parameter of the kernel's __co__ function, as declared.")
      .def_ro("name", &croq::ParamInfo::name)
      .def_ro("is_tensor", &croq::ParamInfo::is_tensor)
      .def_ro("type", &croq::ParamInfo::type, "element or scalar type as written: 'f32', 'int'")
      .def_ro("rank", &croq::ParamInfo::rank)
      .def_prop_ro("dynamic", [](const croq::ParamInfo& p) { return as_tuple(p.dynamic); },
                   "per dim: whether it is one of the dynamic_dims")
      .def("__repr__", [](const croq::ParamInfo& p) {
        return "<ParamInfo " + p.name + ": " + p.type + (p.is_tensor ? " tensor of rank " + std::to_string(p.rank) : "") + ">";
      });

  nb::class_<croq::CallInfo>(m, "CallInfo", "What a call with a given argument signature returns and writes.")
      .def_ro("has_result", &croq::CallInfo::has_result)
      .def_prop_ro("result_dtype", [](const croq::CallInfo& c) -> nb::object {
        return c.has_result ? nb::cast(std::string(croq::dtype_name(c.result_dtype))) : nb::none();
      })
      .def_prop_ro("result_shape", [](const croq::CallInfo& c) -> nb::object {
        return c.has_result ? nb::object(as_tuple(c.result_shape)) : nb::none();
      })
      .def_prop_ro("result_extent_sources", [](const croq::CallInfo& c) -> nb::object {
        return c.has_result ? nb::object(as_tuple(c.result_extent_sources)) : nb::none();
      }, "per result dim: (argument, dim) whose extent it is when it is a dynamic dim, else (-1, -1)")
      .def_prop_ro("written", [](const croq::CallInfo& c) { return as_tuple(c.argument_written); },
                   "per argument: whether the kernel stores into it")
      .def("__repr__", [](const croq::CallInfo& c) {
        return c.has_result ? "<CallInfo result " + std::string(croq::dtype_name(c.result_dtype)) + " " +
                                  c.result_shape.str() + ">"
                            : std::string("<CallInfo no result>");
      });

  nb::class_<TensorSpec>(m, "TensorSpec", "A tensor described by dtype and shape only, for Kernel.prepare.")
      .def("__init__", [](TensorSpec* self, nb::handle shape, nb::handle dtype, nb::handle device) {
        new (self) TensorSpec{dtype_from_object(dtype), shape_from(shape), spec_device(device)};
      }, "shape"_a, "dtype"_a, "device"_a = nb::none())
      .def_prop_ro("shape", [](const TensorSpec& s) { return as_tuple(s.shape); })
      .def_prop_ro("dtype", [](const TensorSpec& s) { return std::string(croq::dtype_name(s.dtype)); })
      .def_prop_ro("device", [](const TensorSpec& s) -> nb::object {
        return s.device >= 0 ? nb::cast(s.device) : nb::none();
      })
      .def("__repr__", [](const TensorSpec& s) {
        return "TensorSpec(" + s.shape.str() + ", '" + std::string(croq::dtype_name(s.dtype)) + "'" +
               (s.device >= 0 ? ", device=" + std::to_string(s.device) : std::string()) + ")";
      });

  nb::class_<Kernel>(m, "Kernel", "A compiled Croqtile function; call it with tensors and scalars.")
      .def("__call__", &call_kernel)
      .def("prepare", [](const Kernel& k, nb::args args, nb::kwargs kwargs) {
        return prepare(k, convert_call(k, args, kwargs));
      })
      .def_prop_ro("name", [](const Kernel& k) { return k.kernel.name(); })
      .def_ro("params", &Kernel::params)
      .def_ro("returns_tensor", &Kernel::returns_tensor)
      .def("stats", [](const Kernel& k) { return k.kernel.stats(); },
           "Its specializations so far: where each one's images came from and why each compiled.")
      .def("info", [](const Kernel& k, nb::args args, nb::kwargs kwargs) {
        PreparedCall call = convert_call(k, args, kwargs);
        nb::gil_scoped_release release;
        return k.kernel.info(call.arguments.args, call.options);
      }, "What the kernels of the specialization for these arguments use (KernelInfo): registers, spills, shared and "
         "local memory, launch shape, occupancy, image. Arguments as for a call (TensorSpec too); the driver's figures "
         "with a CUDA device, else ptxas's report of the compile.")
      .def("time", [](const Kernel& k, nb::args args, nb::kwargs kwargs) {
        const int warmup = int_keyword(kwargs, "warmup", 3);
        const int repetitions = int_keyword(kwargs, "repetitions", 20);
        PreparedCall call = convert_call(k, args, kwargs);
        nb::gil_scoped_release release;
        return croq::time_kernel(k.kernel, call.arguments.args, warmup, repetitions, call.options);
      }, "time(*args, warmup=3, repetitions=20, stream=None): KernelTiming of calls with these arguments (device "
         "tensors): `warmup` calls, then `repetitions` timed with CUDA events on the call's stream, into one result "
         "buffer.")
      .def("__repr__", [](const Kernel& k) {
        std::string text = "<croqjit.Kernel " + k.kernel.name() + "(";
        for (std::size_t i = 0; i < k.params.size(); ++i) text += (i ? ", " : "") + k.params[i].name;
        return text + ")>";
      });

  m.def("compile", [](nb::handle source, nb::handle entry, nb::handle defines, nb::handle arch, nb::handle dynamic_dims,
                      nb::handle source_name, nb::handle debug_line_info, nb::handle interpret) {
    return compile(utf8_of(source, "source"),
                   compile_options(entry, defines, arch, dynamic_dims, source_name, debug_line_info, interpret));
  }, "source"_a, nb::kw_only(), "entry"_a = nb::none(), "defines"_a = nb::none(), "arch"_a = nb::none(),
        "dynamic_dims"_a = nb::none(), "source_name"_a = nb::none(), "debug_line_info"_a = false, "interpret"_a = false,
        "Parses and checks Croqtile source; raises CompileError with diagnostics when it is not valid. "
        "interpret=True runs every call on the CPU with the tile IR interpreter (numpy or other host arrays; no GPU), "
        "raising InterpretError for out-of-bounds accesses and synchronization hazards.");

  m.def("precompile", [](nb::handle source, nb::handle signatures, nb::handle archs, nb::handle entry,
                         nb::handle defines, nb::handle dynamic_dims, nb::handle source_name, nb::handle debug_line_info) {
    return precompile(utf8_of(source, "source"),
                      compile_options(entry, defines, nb::none(), dynamic_dims, source_name, debug_line_info, nb::handle(Py_False)), signatures,
                      text_list(archs, "archs"));
  }, "source"_a, "signatures"_a, nb::kw_only(), "archs"_a = nb::none(), "entry"_a = nb::none(),
        "defines"_a = nb::none(), "dynamic_dims"_a = nb::none(), "source_name"_a = nb::none(),
        "debug_line_info"_a = false,
        "Compiles the kernel for each signature (a sequence of call arguments: TensorSpec, arrays, numbers) and "
        "each arch into the kernel cache, without a GPU; returns KernelStats.");
}

void bind_devices(nb::module_& m) {
  m.def("device_count", [] { return croq::device_count(); }, "CUDA devices present (0 without a driver).");
  m.def("can_access_peer", [](int a, int b) { return croq::can_access_peer(a, b); }, "a"_a, "b"_a,
        "Whether device a can be given access to device b's memory (NVLink or PCIe peer-to-peer).");
  m.def("enable_peer_access", [](int a, int b) {
    nb::gil_scoped_release release;
    croq::enable_peer_access(a, b);
  }, "a"_a, "b"_a,
        "Maps device b's memory into device a's primary context, so that calls on a with peer_access=True may take "
        "tensors living on b. One direction; already enabled (by torch too) is fine.");
}

}  // namespace
}  // namespace croqpy

NB_MODULE(_croqjit, m) {
  m.doc() = "libcroqjit's Python binding; use the croqjit package.";
  // Kernels registered as torch custom ops live in torch's registry until
  // the interpreter exits, which nanobind would report as leaks.
  nanobind::set_leak_warnings(false);
  croqpy::register_errors(m);
  croqpy::bind_stats(m);
  croqpy::bind_info(m);
  croqpy::bind_kernel(m);
  croqpy::bind_tune(m);
  croqpy::bind_gemm_any(m);
  croqpy::bind_sample_sources(m);
  m.def("cuda_available", [] { return croq::cuda_available(); }, "Whether a CUDA driver and device are present.");
  m.def("cuda_unavailable_reason", [] {
    std::string why;
    return croqpy::py_text(croq::cuda_available(&why) ? std::string() : why);  // dlerror() may name any path
  }, "Why kernels cannot run here; empty when they can.");
  croqpy::bind_devices(m);
  m.attr("__version__") = CROQJIT_PYTHON_VERSION;
}
