// Kernel::info: what each kernel of a specialization uses, from the driver
// when the kernels can be loaded, else from ptxas's report of the compile.
#include <array>
#include <string>

#include "api/specialization.hpp"
#include "jit/driver.hpp"
#include "jit/launcher.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq {

const char* figure_source_name(FigureSource source) {
  switch (source) {
    case FigureSource::driver: return "driver";
    case FigureSource::nvrtc: return "nvrtc";
    case FigureSource::none: break;
  }
  return "none";
}

namespace detail {
namespace {

KernelImageInfo image_info(const Specialization::Part& part, const abi::LaunchConfig& launch) {
  const jit::CompiledKernel& image = *part.compiled;
  KernelImageInfo k;
  k.entry = image.entry;
  k.grid = launch.grid;
  k.block = launch.block;
  k.cluster = launch.cluster;
  k.cooperative = launch.cooperative;
  k.dynamic_shared_bytes = launch.shared_bytes;
  k.arch = image.arch;
  k.image_is_ptx = image.image_is_ptx;
  // A PTX image is kept with its terminating NUL, which is not the text's.
  k.image_bytes = image.cubin.size() - (image.image_is_ptx && !image.cubin.empty() ? 1 : 0);
  k.source = part.source;
  // Only a preloaded bundle's images enter this process as memory hits.
  k.from_bundle = image.source == jit::CacheSource::memory;
  if (const auto& report = image.resources) {
    k.spill_store_bytes = report->spill_store_bytes;
    k.spill_load_bytes = report->spill_load_bytes;
    k.figures = FigureSource::nvrtc;
    k.registers = report->registers;
    k.static_shared_bytes = report->shared_bytes;
    k.local_bytes = report->stack_bytes;
  }
  return k;
}

// The driver's figures for the function loaded on `device`.
void read_driver_figures(const Specialization::Part& part, const abi::LaunchConfig& launch, int device,
                         KernelImageInfo& k) {
  CUfunction fn = jit::prepare_function(*part.compiled, launch, device);
  const jit::FunctionAttributes a = jit::function_attributes(fn);
  k.figures = FigureSource::driver;
  k.registers = a.registers;
  k.static_shared_bytes = static_cast<std::uint64_t>(a.static_shared_bytes);
  k.local_bytes = static_cast<std::uint64_t>(a.local_bytes);
  k.constant_bytes = static_cast<std::uint64_t>(a.constant_bytes);
  k.max_threads_per_block = a.max_threads_per_block;
  const jit::Occupancy o = jit::occupancy(fn, launch);
  k.blocks_per_sm = o.blocks_per_sm;
  if (launch.has_cluster()) k.active_clusters = o.active_clusters;
}

}  // namespace

bool image_loads_on(const std::string& arch, int major, int minor) {
  const int number = jit::arch_number(arch), device = major * 10 + minor;
  if (arch.empty()) return false;
  if (arch.back() == 'a') return number == device;
  if (jit::is_virtual_arch(arch)) return number <= device;
  return number / 10 == major && number % 10 <= minor;
}

KernelInfo specialization_info(const Specialization& spec, std::span<const Arg> args, int device,
                               const std::string& kernel) {
  KernelInfo info;
  info.function = kernel;
  info.specialization = spec.stats;
  const int devices = jit::driver_available() ? jit::device_count() : 0;
  bool on_device = device < devices;
  if (!on_device) {
    info.no_driver_reason = !jit::driver_available() ? "no CUDA driver"
                            : devices == 0           ? "no CUDA device"
                                                     : "no CUDA device " + std::to_string(device);
  } else if (const jit::DeviceInfo& d = jit::device_info(device); !image_loads_on(spec.stats.arch, d.cc_major, d.cc_minor)) {
    on_device = false;
    info.no_driver_reason = d.name + " (compute capability " + std::to_string(d.cc_major) + "." +
                            std::to_string(d.cc_minor) + ") cannot load " + spec.stats.arch + " images";
  } else {
    info.device = d.name;
    jit::make_current(device);
  }
  for (const Specialization::Part& part : spec.parts) {
    const abi::LaunchConfig launch = launch_config_of(part.generated, args, kernel);
    KernelImageInfo k = image_info(part, launch);
    if (on_device) read_driver_figures(part, launch, device, k);
    info.kernels.push_back(std::move(k));
  }
  return info;
}

}  // namespace detail

namespace {

std::string triple(const std::array<unsigned, 3>& v) {
  return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + "]";
}

// "<figure> (<source>)", or why there is none.
template <typename T>
std::string figure(const std::optional<T>& value, const std::string& unit, const char* source, const char* missing) {
  if (!value) return missing;
  return std::to_string(*value) + unit + " (" + source + ")";
}

std::string image_block(const KernelImageInfo& k, std::size_t index, std::size_t count) {
  const char* from = figure_source_name(k.figures);
  const char* no_figures = k.figures == FigureSource::none ? "unknown (a PTX image: ptxas runs when the driver loads it)"
                                                           : "unknown";
  const char* needs_driver = "unknown (needs a CUDA device)";
  const char* no_report = k.image_is_ptx ? "unknown (a PTX image: ptxas runs when the driver loads it)"
                                         : "unknown (the cache entry has no ptxas report)";
  std::string out = "kernel " + std::to_string(index + 1) + " of " + std::to_string(count) + ": " + k.entry + "\n";
  out += "  launch: grid " + triple(k.grid) + ", block " + triple(k.block);
  if (k.cluster[0] * k.cluster[1] * k.cluster[2] != 0) out += ", cluster " + triple(k.cluster);
  if (k.cooperative) out += ", cooperative";
  out += "\n";
  out += "  registers: " + figure(k.registers, " per thread", from, no_figures) + "\n";
  std::string spills = no_report;
  if (k.spill_store_bytes && k.spill_load_bytes)
    spills = std::to_string(*k.spill_store_bytes) + " bytes stored, " + std::to_string(*k.spill_load_bytes) +
             " bytes loaded per thread (nvrtc)";
  out += "  spills: " + spills + "\n";
  out += "  local memory: " + figure(k.local_bytes, " bytes per thread", from, no_figures) + "\n";
  out += "  shared memory: " + figure(k.static_shared_bytes, " bytes static", from, no_figures) + ", " +
         std::to_string(k.dynamic_shared_bytes) + " bytes dynamic per block\n";
  out += "  constant memory: " + figure(k.constant_bytes, " bytes", from, needs_driver) + "\n";
  out += "  max threads per block: " + figure(k.max_threads_per_block, "", from, needs_driver) + "\n";
  std::string occupancy = figure(k.blocks_per_sm, " blocks per SM", from, needs_driver);
  if (k.active_clusters) occupancy += ", " + std::to_string(*k.active_clusters) + " clusters on the device (driver)";
  out += "  occupancy: " + occupancy + "\n";
  out += "  image: " + k.arch + (k.image_is_ptx ? " PTX, " : " cubin, ") + std::to_string(k.image_bytes) +
         " bytes, " + image_source_name(k.source) + (k.from_bundle ? " (a preloaded bundle's)" : "") + "\n";
  return out;
}

}  // namespace

std::string format_kernel_info(const KernelInfo& info) {
  const SpecializationStats& s = info.specialization;
  std::string out = "specialization: " + info.function + "(" + s.signature + ") for " + s.arch + "\n";
  out += std::string("source: ") + image_source_name(s.source) + "\n";
  out += "figures: " + (info.device.empty() ? "nvrtc (ptxas's report of the compile; " + info.no_driver_reason + ")"
                                            : "driver (" + info.device + ")") + "\n";
  for (std::size_t i = 0; i < info.kernels.size(); ++i) out += image_block(info.kernels[i], i, info.kernels.size());
  return out;
}

}  // namespace croq
