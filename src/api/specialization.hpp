// One specialization of a Kernel: its generated kernels and their compiled
// images, in launch order, and what a call needs to launch them. Made by
// KernelImpl (kernel.cpp), read by launches and by Kernel::info
// (kernel_info.cpp). Internal to src/api.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "api/launch_args.hpp"
#include "croq/info.hpp"
#include "croq/kernel.hpp"
#include "croq/stats.hpp"
#include "host/host_program.hpp"
#include "jit/compiled_kernel.hpp"
#include "pipeline/specialize.hpp"

namespace croq::detail {

struct Specialization {
  // One kernel of the program, in launch order.
  struct Part {
    pipeline::GeneratedKernel generated;
    std::shared_ptr<const jit::CompiledKernel> compiled;
    // Per parameter: how a TMA descriptor's errors name it (empty for other
    // kinds). Built once here so a launch formats no strings.
    std::vector<std::string> tensor_map_names;
    ImageSource source = ImageSource::compiled;  // where this specialization got the image
  };
  std::vector<Part> parts;
  host::Program host;  // what a call runs: the launches of `parts`, and host statements around them
  SpecializationStats stats;  // where its images came from, and why it compiled
  // The program as a call sees it: the output and scratch buffers (every
  // kernel declares the same), the arguments any kernel writes, and whether
  // any reads the output before writing it.
  abi::KernelAbi program;
  // Device memory for the program's global buffers, kept between calls.
  mutable ScratchPool scratch_pool;
};

// What the kernels of `spec` use when called with `args` (Kernel::info).
// When `device` exists and loads images of the specialization's arch, the
// kernels are loaded there and the figures are the driver's; otherwise
// ptxas's report.
KernelInfo specialization_info(const Specialization& spec, std::span<const Arg> args, int device,
                               const std::string& kernel);

// Whether an image for `arch` loads on a device of compute capability
// major.minor: a cubin for sm_XY on X.Y' with Y' >= Y (sm_XYa on X.Y only),
// PTX for compute_XY on X.Y and newer (compute_XYa on X.Y only).
bool image_loads_on(const std::string& arch, int major, int minor);

}  // namespace croq::detail
