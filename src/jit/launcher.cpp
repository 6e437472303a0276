#include "jit/launcher.hpp"

#include <array>
#include <cstdint>
#include <string>

#include "croq/error.hpp"
#include "jit/disk_cache.hpp"
#include "jit/driver.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace croq::jit {
namespace {

constexpr unsigned kDefaultSharedLimit = 48 * 1024;

void check_device(int device) {
  if (device < 0 || device >= kMaxLoadedDevices)
    throw CudaError("cuDeviceGet", CUDA_ERROR_INVALID_DEVICE,
                    "device ordinal " + std::to_string(device) + " is out of range");
}

// Kernels above 48 KB of dynamic shared memory must opt in per function.
void ensure_shared_limit(const CompiledKernel& kernel, CUfunction fn, unsigned bytes, int device) {
  std::lock_guard<std::mutex> lock(kernel.load_mutex);
  if (kernel.shared_bytes_set[device].load(std::memory_order_relaxed) >= bytes) return;
  const DeviceInfo& info = device_info(device);
  if (bytes > static_cast<unsigned>(info.max_shared_per_block_optin))
    throw CudaError("cuFuncSetAttribute", CUDA_ERROR_INVALID_VALUE,
                    "kernel " + kernel.entry + " needs " + std::to_string(bytes) +
                        " bytes of shared memory per block; " + info.name + " allows at most " +
                        std::to_string(info.max_shared_per_block_optin));
  CROQ_CU(cuFuncSetAttribute, fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(bytes));
  kernel.shared_bytes_set[device].store(bytes, std::memory_order_release);
}

// Whether the driver refused the image itself (so loading it again can only
// fail again), not the context or memory it needed.
bool image_refused(CUresult r) {
  switch (r) {
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_INVALID_SOURCE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND:
    case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED:
    case CUDA_ERROR_NOT_FOUND:
      return true;
    default:
      return false;
  }
}

std::string error_name(CUresult r) {
  const char* name = nullptr;
  driver().cuGetErrorName(r, &name);
  return name ? name : "CUDA error " + std::to_string(static_cast<int>(r));
}

// A disk cache entry whose image the driver refused is deleted, so that a
// later process rebuilds it instead of failing on it again.
void discard_refused(const CompiledKernel& kernel, CUresult r, const std::string& what) {
  if (!kernel.cache_dir.empty() && image_refused(r)) DiskCache::discard(kernel.cache_dir, kernel.key.hex(), what);
}

}  // namespace

CUfunction load_function(const CompiledKernel& kernel, int device) {
  check_device(device);
  CUfunction fn = kernel.functions[device].load(std::memory_order_acquire);
  if (fn != nullptr) return fn;
  std::lock_guard<std::mutex> lock(kernel.load_mutex);
  fn = kernel.functions[device].load(std::memory_order_relaxed);
  if (fn != nullptr) return fn;
  make_current(device);
  CUmodule module = nullptr;
  if (kernel.image_is_ptx) {
    // The driver compiles the PTX for this device; keep its log for errors.
    char log[4096] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof log))};
    CUresult r = driver().cuModuleLoadDataEx(&module, kernel.cubin.data(), 2, options, values);
    if (r != CUDA_SUCCESS) {
      const std::string what = error_name(r) + " while the driver compiled the " + kernel.arch + " PTX of " + kernel.entry;
      discard_refused(kernel, r, what);
      throw CudaError("cuModuleLoadDataEx", static_cast<int>(r), what + (log[0] ? std::string(": ") + log : std::string()));
    }
  } else if (CUresult r = driver().cuModuleLoadData(&module, kernel.cubin.data()); r != CUDA_SUCCESS) {
    discard_refused(kernel, r, error_name(r) + " from cuModuleLoadData for the " + kernel.arch + " cubin of " + kernel.entry);
    throw_cuda_error(r, "cuModuleLoadData");
  }
  CUresult r = driver().cuModuleGetFunction(&fn, module, kernel.entry.c_str());
  if (r != CUDA_SUCCESS) {
    driver().cuModuleUnload(module);
    discard_refused(kernel, r, error_name(r) + " from cuModuleGetFunction for `" + kernel.entry + "`");
    throw_cuda_error(r, "cuModuleGetFunction");
  }
  kernel.modules[device] = module;
  kernel.functions[device].store(fn, std::memory_order_release);
  support::log().debug("loaded {} ({} bytes of {}) on device {}", kernel.entry, kernel.cubin.size(),
                       kernel.image_is_ptx ? "PTX" : "cubin", device);
  return fn;
}

CUfunction prepare_function(const CompiledKernel& kernel, const LaunchConfig& c, int device) {
  CUfunction fn = load_function(kernel, device);
  if (c.shared_bytes > kDefaultSharedLimit && kernel.shared_bytes_set[device].load(std::memory_order_acquire) < c.shared_bytes)
    ensure_shared_limit(kernel, fn, c.shared_bytes, device);
  return fn;
}

bool is_loaded(const CompiledKernel& kernel, int device) {
  return device >= 0 && device < kMaxLoadedDevices &&
         kernel.functions[device].load(std::memory_order_acquire) != nullptr;
}

void launch(const CompiledKernel& kernel, const LaunchConfig& c, void** args, CUstream stream, int device) {
  check_device(device);
  make_current(device);
  CUfunction fn = prepare_function(kernel, c, device);
  const DriverApi& api = driver();
  // CROQ_PROGRAMMATIC_LAUNCH=0 launches every kernel after the previous one
  // has finished, as before sm_90 (the kernel's griddepcontrol.wait then
  // returns at once): for measuring what the overlap gives, or ruling it out.
  static const bool overlap = support::env_flag("CROQ_PROGRAMMATIC_LAUNCH", true);
  LaunchConfig effective = c;
  effective.programmatic = c.programmatic && overlap;
  if (!effective.has_cluster() && !effective.cooperative && !effective.programmatic) {
    CUresult r = api.cuLaunchKernel(fn, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2],
                                    c.shared_bytes, stream, args, nullptr);
    if (r != CUDA_SUCCESS) [[unlikely]] throw_cuda_error(r, "cuLaunchKernel");
    return;
  }
  std::array<CUlaunchAttribute, 3> attributes;
  const CUlaunchConfig config = driver_launch_config(effective, stream, attributes);
  CROQ_CU(cuLaunchKernelEx, &config, fn, args, nullptr);
}

}  // namespace croq::jit
