// The figures of a roofline: a device's peaks (the driver's attributes and
// the documented per-SM rates of its architecture) and a kernel's timed
// calls.
#include "croq/roofline.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "api/entry_point.hpp"
#include "croq/error.hpp"
#include "jit/driver.hpp"

namespace croq {
namespace {

int device_attribute(CUdevice dev, CUdevice_attribute attribute) {
  int value = 0;
  CROQ_CU(cuDeviceGetAttribute, &value, attribute, dev);
  return value;
}

// A CUDA event of the current context.
class Event {
 public:
  Event() { CROQ_CU(cuEventCreate, &event_, 0); }
  ~Event() { jit::driver().cuEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  CUevent get() const { return event_; }

 private:
  CUevent event_ = nullptr;
};

// Device tensors only: a call on host data copies it in and out, and that
// copy would be timed as the kernel.
std::uint64_t argument_bytes(std::span<const Arg> args) {
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind() != Arg::Kind::tensor) continue;
    if (args[i].view().memory == MemoryKind::host)
      throw ArgumentError("croq::time_kernel: argument " + std::to_string(i + 1) +
                          " is host memory; a call on host data copies it, which is not the kernel's time (pass "
                          "device tensors)");
    bytes += args[i].view().bytes();
  }
  return bytes;
}

}  // namespace

std::vector<ComputePeak> compute_rates_per_sm_clock(int compute_capability) {
  // Dense operations (an FMA is two) per SM per clock: the CUDA C++
  // Programming Guide's arithmetic throughput table for the CUDA cores, the
  // A100 and H100 architecture whitepapers for the tensor cores.
  switch (compute_capability) {
    case 80:
      return {{"f16/bf16 tensor cores", 2048}, {"tf32 tensor cores", 1024}, {"f64 tensor cores", 128},
              {"f32 CUDA cores", 128}, {"f64 CUDA cores", 64}};
    case 90:
      return {{"f8 tensor cores", 8192}, {"f16/bf16 tensor cores", 4096}, {"tf32 tensor cores", 2048},
              {"f32 CUDA cores", 256}, {"f64 tensor cores", 256}, {"f64 CUDA cores", 128}};
    default: return {};
  }
}

DevicePeaks device_peaks(int device) {
  return detail::entry_point("croq::device_peaks", [&] {
    std::string why;
    if (!jit::driver_available(&why)) throw CudaError("cuInit", CUDA_ERROR_NO_DEVICE, "no CUDA driver: " + why);
    const jit::DeviceInfo& info = jit::device_info(device);
    CUdevice dev = 0;
    CROQ_CU(cuDeviceGet, &dev, device);
    DevicePeaks peaks;
    peaks.device = info.name;
    peaks.compute_capability = info.cc_major * 10 + info.cc_minor;
    peaks.sm_count = info.sm_count;
    peaks.clock_hz = device_attribute(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) * 1e3;  // kHz
    // Double data rate: two transfers per memory clock over the bus.
    peaks.memory_bytes_per_second = 2.0 * device_attribute(dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) * 1e3 *
                                    device_attribute(dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) / 8.0;
    for (ComputePeak rate : compute_rates_per_sm_clock(peaks.compute_capability)) {
      rate.flops_per_second *= peaks.sm_count * peaks.clock_hz;
      peaks.compute.push_back(std::move(rate));
    }
    return peaks;
  });
}

KernelTiming time_kernel(const Kernel& kernel, std::span<const Arg> args, int warmup, int repetitions,
                         const LaunchOptions& options) {
  return detail::entry_point("croq::time_kernel", [&] {
    if (warmup < 1 || warmup > 10000)
      throw ArgumentError("croq::time_kernel: warmup must be from 1 to 10000, got " + std::to_string(warmup));
    if (repetitions < 1 || repetitions > 1000000)
      throw ArgumentError("croq::time_kernel: repetitions must be from 1 to 1000000, got " +
                          std::to_string(repetitions));
    KernelTiming timing;
    timing.repetitions = repetitions;
    timing.bytes = argument_bytes(args);
    // One result buffer for every call (unless the caller gave one): the
    // allocation is not the kernel's time.
    LaunchOptions call = options;
    Tensor result;
    const CallInfo shape = kernel.prepare(args, options);
    if (shape.has_result) {
      std::string why;
      if (!cuda_available(&why)) throw CudaError("cuInit", CUDA_ERROR_NO_DEVICE, "croq::time_kernel: " + why);
      if (call.output == nullptr) {
        int device = options.device >= 0 ? options.device : jit::current_device();
        for (const Arg& a : args)
          if (options.device < 0 && a.kind() == Arg::Kind::tensor) {
            device = a.view().device;  // the arguments' device, where the call runs
            break;
          }
        result = Tensor::empty(shape.result_dtype, shape.result_shape, MemoryKind::device, device);
        call.output = &result.view();
      }
      timing.bytes += call.output->bytes();
    }
    for (int i = 0; i < warmup; ++i) kernel.launch(args, call);  // the first specializes
    Event start, stop;
    std::vector<float> ms;
    for (int i = 0; i < repetitions; ++i) {
      CROQ_CU(cuEventRecord, start.get(), options.stream);
      kernel.launch(args, call);
      CROQ_CU(cuEventRecord, stop.get(), options.stream);
      CROQ_CU(cuEventSynchronize, stop.get());
      float elapsed = 0;
      CROQ_CU(cuEventElapsedTime, &elapsed, start.get(), stop.get());
      ms.push_back(elapsed);
    }
    std::sort(ms.begin(), ms.end());
    timing.median_ms = ms[ms.size() / 2];
    timing.min_ms = ms.front();
    return timing;
  });
}

}  // namespace croq
