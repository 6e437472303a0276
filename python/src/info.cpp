#include "info.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <string>

#include "croq/croq.hpp"
#include "errors.hpp"
#include "frameworks.hpp"

namespace croqpy {
namespace {

using namespace nb::literals;

nb::tuple triple(const std::array<unsigned, 3>& v) { return nb::make_tuple(v[0], v[1], v[2]); }

void bind_kernel_info(nb::module_& m) {
  using Image = croq::KernelImageInfo;
  nb::class_<Image>(m, "KernelImageInfo",
                    "One kernel of a specialization: its launch shape, resources and image. A figure its source "
                    "cannot give is None (max_threads_per_block, constant_bytes and occupancy need a CUDA device; "
                    "spills need ptxas's report, which PTX images lack).")
      .def_ro("entry", &Image::entry, "the __global__ symbol")
      .def_prop_ro("grid", [](const Image& k) { return triple(k.grid); })
      .def_prop_ro("block", [](const Image& k) { return triple(k.block); })
      .def_prop_ro("cluster", [](const Image& k) { return triple(k.cluster); }, "(0, 0, 0): no cluster launch")
      .def_ro("cooperative", &Image::cooperative)
      .def_ro("dynamic_shared_bytes", &Image::dynamic_shared_bytes, "per block")
      .def_prop_ro("figures", [](const Image& k) { return std::string(croq::figure_source_name(k.figures)); },
                   "where registers, static_shared_bytes, local_bytes, constant_bytes and max_threads_per_block come "
                   "from: 'driver' (cuFuncGetAttribute), 'nvrtc' (ptxas's report) or 'none'")
      .def_ro("registers", &Image::registers, "per thread")
      .def_ro("static_shared_bytes", &Image::static_shared_bytes, "per block")
      .def_ro("local_bytes", &Image::local_bytes, "per thread: the stack (local arrays and spills)")
      .def_ro("constant_bytes", &Image::constant_bytes)
      .def_ro("max_threads_per_block", &Image::max_threads_per_block)
      .def_ro("spill_store_bytes", &Image::spill_store_bytes, "per thread, from ptxas's report")
      .def_ro("spill_load_bytes", &Image::spill_load_bytes, "per thread, from ptxas's report")
      .def_ro("blocks_per_sm", &Image::blocks_per_sm, "cuOccupancyMaxActiveBlocksPerMultiprocessor at this launch shape")
      .def_ro("active_clusters", &Image::active_clusters, "cluster launches: cuOccupancyMaxActiveClusters")
      .def_ro("arch", &Image::arch)
      .def_ro("image_is_ptx", &Image::image_is_ptx)
      .def_ro("image_bytes", &Image::image_bytes)
      .def_ro("from_bundle", &Image::from_bundle, "the image is a preloaded bundle's (CROQ_CACHE_PRELOAD)")
      .def_prop_ro("source", [](const Image& k) { return std::string(croq::image_source_name(k.source)); },
                   "'memory', 'disk', 'remote' or 'compiled'")
      .def("__repr__", [](const Image& k) {
        return py_text("<KernelImageInfo " + k.entry + ": " +
                       (k.registers ? std::to_string(*k.registers) + " registers (" +
                                          croq::figure_source_name(k.figures) + ")"
                                    : std::string("no figures")) +
                       ">");
      });
  nb::class_<croq::KernelInfo>(m, "KernelInfo",
                               "What the kernels of one specialization use; str() is `croq compile --emit info`'s text.")
      .def_ro("function", &croq::KernelInfo::function)
      .def_ro("specialization", &croq::KernelInfo::specialization)
      .def_prop_ro("device", [](const croq::KernelInfo& i) -> nb::object {
        return i.device.empty() ? nb::none() : nb::object(py_text(i.device));
      }, "the device of the driver's figures; None without one")
      .def_prop_ro("no_driver_reason", [](const croq::KernelInfo& i) { return py_text(i.no_driver_reason); },
                   "why the figures are not the driver's ('no CUDA device', ...); '' when they are")
      .def_ro("kernels", &croq::KernelInfo::kernels, "in launch order")
      .def("__str__", [](const croq::KernelInfo& i) { return py_text(croq::format_kernel_info(i)); })
      .def("__repr__", [](const croq::KernelInfo& i) {
        return py_text("<KernelInfo " + i.function + "(" + i.specialization.signature + ") for " +
                       i.specialization.arch + ": " + std::to_string(i.kernels.size()) + " kernel(s)>");
      });
}

void bind_roofline(nb::module_& m) {
  nb::class_<croq::KernelTiming>(m, "KernelTiming", "How long a kernel's calls take on the GPU (Kernel.time).")
      .def_ro("median_ms", &croq::KernelTiming::median_ms)
      .def_ro("min_ms", &croq::KernelTiming::min_ms)
      .def_ro("repetitions", &croq::KernelTiming::repetitions)
      .def_ro("bytes", &croq::KernelTiming::bytes,
              "the tensor arguments' and the result's bytes: what one call moves at least once")
      .def("__repr__", [](const croq::KernelTiming& t) {
        return py_text("<KernelTiming median " + std::to_string(t.median_ms) + " ms of " +
                       std::to_string(t.repetitions) + ">");
      });
  nb::class_<croq::DevicePeaks>(m, "DevicePeaks",
                                "A device's DRAM bandwidth (from the driver's memory clock and bus width) and dense "
                                "arithmetic peaks (SMs x clock x the architecture's documented rate per SM).")
      .def_ro("device", &croq::DevicePeaks::device)
      .def_ro("compute_capability", &croq::DevicePeaks::compute_capability, "90 for sm_90")
      .def_ro("sm_count", &croq::DevicePeaks::sm_count)
      .def_ro("clock_hz", &croq::DevicePeaks::clock_hz)
      .def_ro("memory_bytes_per_second", &croq::DevicePeaks::memory_bytes_per_second)
      .def_prop_ro("compute", [](const croq::DevicePeaks& p) {
        nb::list out;
        for (const croq::ComputePeak& c : p.compute) out.append(nb::make_tuple(py_text(c.name), c.flops_per_second));
        return out;
      }, "[(name, FLOP/s)], fastest first; [] for an architecture without documented rates")
      .def("__repr__", [](const croq::DevicePeaks& p) { return py_text("<DevicePeaks " + p.device + ">"); });
  m.def("device_peaks", [](int device) {
    nb::gil_scoped_release release;
    return croq::device_peaks(device);
  }, "device"_a = 0, "The DevicePeaks of a CUDA device (CudaError without one).");
}

void bind_dtypes(nb::module_& m) {
  nb::list names;
  for (int i = 0; i < croq::kDTypeCount; ++i) names.append(std::string(croq::dtype_name(static_cast<croq::DType>(i))));
  m.attr("dtypes") = nb::tuple(names);
  m.def("_framework_dtype", [](nb::handle dtype, const std::string& framework) {
    return framework_dtype(dtype_from_object(dtype), framework);
  }, "dtype"_a, "framework"_a);
}

}  // namespace

void bind_info(nb::module_& m) {
  bind_kernel_info(m);
  bind_roofline(m);
  bind_dtypes(m);
}

}  // namespace croqpy
