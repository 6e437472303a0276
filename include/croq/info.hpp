// What a specialization's kernels use on the GPU (Kernel::info): registers,
// spills, shared and local memory, the launch shape, occupancy, and the
// image each came from. Figures come from the CUDA driver when a device is
// present, else from ptxas's report of the NVRTC compile; never estimated.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "croq/stats.hpp"

namespace croq {

// Where the resource figures of a KernelImageInfo come from.
enum class FigureSource {
  driver,  // cuFuncGetAttribute on the function loaded on the device
  nvrtc,   // ptxas's report when NVRTC compiled the image (kept with the cache entry)
  none,    // neither: a PTX image (compute_XY) without a device
};

// "driver", "nvrtc", "none".
const char* figure_source_name(FigureSource source);

// One kernel of a specialization (a program has one per top-level parallel
// statement, in launch order). A figure that the source cannot give is
// empty: max_threads_per_block and occupancy need the driver, the spills
// ptxas's report.
struct KernelImageInfo {
  std::string entry;  // the __global__ symbol
  // The launch shape of this call (dynamic dims from the arguments).
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  std::array<unsigned, 3> cluster{0, 0, 0};  // all zero: no cluster launch
  bool cooperative = false;
  std::uint64_t dynamic_shared_bytes = 0;  // per block

  FigureSource figures = FigureSource::none;  // where the next five come from
  std::optional<int> registers;                          // per thread
  std::optional<std::uint64_t> static_shared_bytes;      // per block
  std::optional<std::uint64_t> local_bytes;              // per thread (the stack: local arrays and spills)
  std::optional<std::uint64_t> constant_bytes;           // driver only: user constant memory
  std::optional<int> max_threads_per_block;              // driver only: the most it can launch with
  // ptxas's report, whatever `figures` is (the driver has no spill figures).
  std::optional<std::uint64_t> spill_store_bytes;        // per thread
  std::optional<std::uint64_t> spill_load_bytes;         // per thread
  // Driver only: blocks of this launch shape resident per SM
  // (cuOccupancyMaxActiveBlocksPerMultiprocessor), and for a cluster launch
  // the clusters the device holds at once (cuOccupancyMaxActiveClusters).
  std::optional<int> blocks_per_sm;
  std::optional<int> active_clusters;

  std::string arch;                // "sm_90a", or "compute_90a" for a PTX image
  bool image_is_ptx = false;
  std::uint64_t image_bytes = 0;   // the cubin's size (the PTX's for a PTX image)
  ImageSource source = ImageSource::compiled;  // where this image came from
  // The image is a preloaded bundle's (CROQ_CACHE_PRELOAD) kept in memory
  // (the disk cache off; `source` is then memory). A bundle's entries added
  // to the disk cache are disk entries.
  bool from_bundle = false;
};

struct KernelInfo {
  std::string function;                // the __co__ function's name
  SpecializationStats specialization;  // as Kernel::stats() lists it: signature, arch, source, reason
  std::string device;                  // the device of the driver's figures ("NVIDIA H100 80GB HBM3"); empty without
  // Why the figures are not the driver's: "no CUDA device", or that the
  // device cannot load images of the arch; empty when they are.
  std::string no_driver_reason;
  std::vector<KernelImageInfo> kernels;  // in launch order
};

// The text `croq compile --emit info` prints: the specialization, then one
// block per kernel, each figure with where it came from.
std::string format_kernel_info(const KernelInfo& info);

}  // namespace croq
