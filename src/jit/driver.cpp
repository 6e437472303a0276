#include "jit/driver.hpp"

#include <dlfcn.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>

#include "croq/error.hpp"
#include "support/log.hpp"

namespace croq::jit {
namespace {

constexpr int kMaxDevices = 64;

struct LoadedDriver {
  DriverApi api;
  std::string error;  // empty when loaded
  CUresult init_result = CUDA_SUCCESS;
};

#define CROQ_STRINGIFY_EXPANDED(x) CROQ_STRINGIFY(x)
#define CROQ_STRINGIFY(x) #x

LoadedDriver load_driver() {
  LoadedDriver out;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* err = dlerror();
    out.error = std::string("no CUDA driver found: ") + (err ? err : "dlopen(libcuda.so.1) failed");
    return out;
  }
  // Look each function up by the exact symbol cuda.h binds its name to
  // (cuMemAlloc -> cuMemAlloc_v2), so the pointer has the ABI the header
  // declares. cuGetProcAddress would hand out the newest ABI instead, which
  // differs for some functions (cuCtxGetDevice gained a parameter in 13.0).
#define CROQ_RESOLVE_DRIVER_FN(name)                                                      \
  {                                                                                       \
    void* fn = dlsym(lib, CROQ_STRINGIFY_EXPANDED(name));                                 \
    if (fn != nullptr)                                                                    \
      out.api.name = reinterpret_cast<decltype(out.api.name)>(fn);                        \
    else if (out.error.empty())                                                           \
      out.error = "the CUDA driver lacks " CROQ_STRINGIFY_EXPANDED(name) " (driver older "  \
                  "than CUDA " + std::to_string(CUDA_VERSION / 1000) + "?)";              \
  }
  CROQ_DRIVER_FUNCTIONS(CROQ_RESOLVE_DRIVER_FN)
#undef CROQ_RESOLVE_DRIVER_FN
  if (!out.error.empty()) return out;
  out.init_result = out.api.cuInit(0);
  if (out.init_result != CUDA_SUCCESS) {
    const char* name = nullptr;
    out.api.cuGetErrorName(out.init_result, &name);
    out.error = std::string("cuInit failed: ") + (name ? name : "unknown error") +
                (out.init_result == CUDA_ERROR_NO_DEVICE ? " (no CUDA device)" : "");
  }
  return out;
}

const LoadedDriver& loaded() {
  static const LoadedDriver driver = load_driver();
  return driver;
}

}  // namespace

const DriverApi& driver() {
  const LoadedDriver& d = loaded();
  if (!d.error.empty()) {
    if (d.init_result != CUDA_SUCCESS) throw CudaError("cuInit", d.init_result, d.error);
    throw CudaError("dlopen", 0, d.error);
  }
  return d.api;
}

bool driver_available(std::string* why) {
  const LoadedDriver& d = loaded();
  if (why) *why = d.error;
  return d.error.empty();
}

void throw_cuda_error(CUresult result, const char* call) {
  const DriverApi& api = loaded().api;
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName) api.cuGetErrorName(result, &name);
  if (api.cuGetErrorString) api.cuGetErrorString(result, &text);
  std::string message = std::string(name ? name : "CUDA error ") +
                        (name ? "" : std::to_string(static_cast<int>(result)));
  if (text) message += std::string(" (") + text + ")";
  throw CudaError(call, static_cast<int>(result), message);
}

void check(CUresult result, const char* call) {
  if (result != CUDA_SUCCESS) [[unlikely]] throw_cuda_error(result, call);
}

int device_count() {
  int n = 0;
  CROQ_CU(cuDeviceGetCount, &n);
  return n;
}

CUcontext make_current(int device) {
  static std::array<std::atomic<CUcontext>, kMaxDevices> contexts{};
  static std::mutex mutex;
  thread_local CUcontext current_on_thread = nullptr;
  thread_local int current_device_on_thread = -1;
  const DriverApi& api = driver();
  if (device < 0 || device >= kMaxDevices) throw CudaError("cuDeviceGet", CUDA_ERROR_INVALID_DEVICE,
      "device ordinal " + std::to_string(device) + " is out of range");
  // Fast path: this thread already made this device's context current and
  // nobody switched it since (checked with one cheap driver call).
  if (current_device_on_thread == device) {
    CUcontext now = nullptr;
    if (api.cuCtxGetCurrent(&now) == CUDA_SUCCESS && now == current_on_thread) return now;
  }
  // Threads that switch devices read the retained context without a lock;
  // only its first retain locks.
  CUcontext ctx = contexts[device].load(std::memory_order_acquire);
  if (ctx == nullptr) {
    std::lock_guard<std::mutex> lock(mutex);
    ctx = contexts[device].load(std::memory_order_relaxed);
    if (ctx == nullptr) {
      if (device >= device_count())
        throw CudaError("cuDeviceGet", CUDA_ERROR_INVALID_DEVICE,
                        "device " + std::to_string(device) + " does not exist (" +
                            std::to_string(device_count()) + " CUDA device(s) present)");
      CUdevice dev;
      CROQ_CU(cuDeviceGet, &dev, device);
      CROQ_CU(cuDevicePrimaryCtxRetain, &ctx, dev);
      contexts[device].store(ctx, std::memory_order_release);
    }
  }
  CROQ_CU(cuCtxSetCurrent, ctx);
  current_on_thread = ctx;
  current_device_on_thread = device;
  return ctx;
}

int current_device() {
  if (!driver_available()) return 0;  // compile-only use: device 0's defaults
  CUcontext ctx = nullptr;
  if (driver().cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx == nullptr) return 0;
  CUdevice dev = 0;
  CROQ_CU(cuCtxGetDevice, &dev);
  return static_cast<int>(dev);
}

bool stream_capturing(CUstream stream, int device) {
  if (!driver_available() || device < 0 || device >= device_count()) return false;
  make_current(device);
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult r = driver().cuStreamIsCapturing(stream, &status);
  if (r == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT || r == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) return true;
  return r == CUDA_SUCCESS && status != CU_STREAM_CAPTURE_STATUS_NONE;
}

const DeviceInfo& device_info(int device) {
  static std::array<std::unique_ptr<DeviceInfo>, kMaxDevices> infos;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (device < 0 || device >= kMaxDevices || device >= device_count())
    throw CudaError("cuDeviceGet", CUDA_ERROR_INVALID_DEVICE,
                    "device " + std::to_string(device) + " does not exist");
  if (!infos[device]) {
    auto info = std::make_unique<DeviceInfo>();
    CUdevice dev;
    CROQ_CU(cuDeviceGet, &dev, device);
    info->ordinal = device;
    CROQ_CU(cuDeviceGetAttribute, &info->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    CROQ_CU(cuDeviceGetAttribute, &info->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    CROQ_CU(cuDeviceGetAttribute, &info->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    CROQ_CU(cuDeviceGetAttribute, &info->max_shared_per_block_optin,
            CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
    char name[256] = {};
    CROQ_CU(cuDeviceGetName, name, sizeof name, dev);
    info->name = name;
    infos[device] = std::move(info);
  }
  return *infos[device];
}

FunctionAttributes function_attributes(CUfunction fn) {
  FunctionAttributes a;
  const auto get = [&](int& out, CUfunction_attribute attribute) {
    CROQ_CU(cuFuncGetAttribute, &out, attribute, fn);
  };
  get(a.registers, CU_FUNC_ATTRIBUTE_NUM_REGS);
  get(a.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  get(a.static_shared_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  get(a.constant_bytes, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
  get(a.max_threads_per_block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  get(a.binary_version, CU_FUNC_ATTRIBUTE_BINARY_VERSION);
  return a;
}

CUlaunchConfig driver_launch_config(const abi::LaunchConfig& c, CUstream stream,
                                    std::array<CUlaunchAttribute, 3>& attributes) {
  unsigned count = 0;
  if (c.has_cluster()) {
    attributes[count] = CUlaunchAttribute{};
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attributes[count].value.clusterDim.x = c.cluster[0];
    attributes[count].value.clusterDim.y = c.cluster[1];
    attributes[count].value.clusterDim.z = c.cluster[2];
    ++count;
  }
  if (c.cooperative) {
    // The driver refuses the launch (COOPERATIVE_LAUNCH_TOO_LARGE) unless
    // every block can be resident at once, as grid barriers need.
    attributes[count] = CUlaunchAttribute{};
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attributes[count].value.cooperative = 1;
    ++count;
  }
  if (c.programmatic) {
    attributes[count] = CUlaunchAttribute{};
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attributes[count].value.programmaticStreamSerializationAllowed = 1;
    ++count;
  }
  CUlaunchConfig config{};
  config.gridDimX = c.grid[0];
  config.gridDimY = c.grid[1];
  config.gridDimZ = c.grid[2];
  config.blockDimX = c.block[0];
  config.blockDimY = c.block[1];
  config.blockDimZ = c.block[2];
  config.sharedMemBytes = c.shared_bytes;
  config.hStream = stream;
  config.attrs = attributes.data();
  config.numAttrs = count;
  return config;
}

Occupancy occupancy(CUfunction fn, const abi::LaunchConfig& config) {
  Occupancy o;
  const unsigned threads = config.block[0] * config.block[1] * config.block[2];
  CROQ_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor, &o.blocks_per_sm, fn, static_cast<int>(threads),
          static_cast<std::size_t>(config.shared_bytes));
  if (!config.has_cluster()) return o;
  abi::LaunchConfig clustered = config;
  clustered.cooperative = false;  // how many clusters fit, whatever the launch asks besides
  clustered.programmatic = false;
  std::array<CUlaunchAttribute, 3> attributes;
  const CUlaunchConfig launch = driver_launch_config(clustered, nullptr, attributes);
  CROQ_CU(cuOccupancyMaxActiveClusters, &o.active_clusters, fn, &launch);
  return o;
}

}  // namespace croq::jit
