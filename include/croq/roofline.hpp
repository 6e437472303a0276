// What a roofline is drawn from (croqjit.report, `croq bench --plot`): how
// long a kernel's calls take on the GPU and what they move, and the
// device's peaks. The drawing itself is the Python package's
// (croqjit.roofline).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "croq/kernel.hpp"
#include "croq/options.hpp"

namespace croq {

// One dense arithmetic peak of a device.
struct ComputePeak {
  std::string name;  // what runs at it: "f16/bf16 tensor cores", "f32 CUDA cores"
  double flops_per_second = 0;
};

// A device's peaks: its DRAM bandwidth, 2 x the memory clock x the bus
// width (the driver's CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE and
// GLOBAL_MEMORY_BUS_WIDTH), and its dense arithmetic peaks, SMs x clock
// (MULTIPROCESSOR_COUNT, CLOCK_RATE) x the operations per SM per clock that
// NVIDIA documents for the architecture (sm_80 and sm_90; `compute` is
// empty for others, and the roofline has only its memory roof).
struct DevicePeaks {
  std::string device;          // "NVIDIA H100 80GB HBM3"
  int compute_capability = 0;  // 90
  int sm_count = 0;
  double clock_hz = 0;
  double memory_bytes_per_second = 0;
  std::vector<ComputePeak> compute;  // fastest first
};

// The peaks of `device`; CudaError without a CUDA driver or that device.
DevicePeaks device_peaks(int device = 0);

// The operations per SM per clock of the dense arithmetic of an
// architecture (compute capability 80, 90, ...), fastest first; empty when
// unknown. device_peaks multiplies them by the SMs and the clock.
std::vector<ComputePeak> compute_rates_per_sm_clock(int compute_capability);

// How long a call of a kernel takes on the GPU.
struct KernelTiming {
  double median_ms = 0;
  double min_ms = 0;
  int repetitions = 0;
  // The bytes of the tensor arguments and of the result: what one call
  // moves at least once (a roofline's lower bound on its traffic).
  std::uint64_t bytes = 0;
};

// Calls `kernel` with `args` (device tensors) `warmup` times, then times
// `repetitions` calls, each between two CUDA events on the call's stream;
// the first warm-up call specializes (compiles or loads) and is not timed.
// CudaError without a device; ArgumentError for host tensors (a call on
// them copies, which is not the kernel's time) or counts out of range.
KernelTiming time_kernel(const Kernel& kernel, std::span<const Arg> args, int warmup = 3, int repetitions = 20,
                         const LaunchOptions& options = {});

}  // namespace croq
