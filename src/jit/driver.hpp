// The CUDA driver API, loaded lazily from libcuda.so.1 so that the library
// loads, compiles and caches on machines without a GPU driver.
#pragma once

#include <cuda.h>

#include <array>
#include <string>

#include "abi/kernel_abi.hpp"

namespace croq::jit {

#define CROQ_DRIVER_FUNCTIONS(X)                                                         \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString)                  \
  X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetAttribute) X(cuDeviceGetName)          \
  X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxGetDevice)    \
  X(cuCtxSynchronize) X(cuModuleLoadData) X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction)       \
  X(cuFuncSetAttribute) X(cuFuncGetAttribute) X(cuLaunchKernel) X(cuLaunchKernelEx)      \
  X(cuMemAlloc) X(cuMemFree) X(cuMemAllocAsync) X(cuMemFreeAsync) X(cuMemcpyHtoD)        \
  X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync)              \
  X(cuMemcpyDtoDAsync) X(cuMemsetD8) X(cuMemsetD8Async) X(cuMemsetD16Async) X(cuMemsetD32) X(cuMemsetD32Async)            \
  X(cuPointerGetAttribute) X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)   \
  X(cuStreamIsCapturing) X(cuStreamWaitEvent) X(cuStreamGetId)                                      \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)              \
  X(cuEventElapsedTime) X(cuTensorMapEncodeTiled)                                        \
  X(cuDeviceCanAccessPeer) X(cuCtxEnablePeerAccess) X(cuMemcpyPeer) X(cuMemcpyPeerAsync) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuOccupancyMaxActiveClusters)

// Function pointers into libcuda, resolved through cuGetProcAddress for the
// CUDA version we were built against.
struct DriverApi {
#define CROQ_DECLARE_DRIVER_FN(name) decltype(&::name) name = nullptr;
  CROQ_DRIVER_FUNCTIONS(CROQ_DECLARE_DRIVER_FN)
#undef CROQ_DECLARE_DRIVER_FN
};

// The loaded and initialised driver. Throws CudaError ("no CUDA driver
// found: ...") when libcuda is missing, or naming cuInit when it fails.
const DriverApi& driver();
// Whether driver() would succeed; `why` gets the reason when it would not.
bool driver_available(std::string* why = nullptr);

// Throws CudaError naming `call` and the driver's error name and text.
void check(CUresult result, const char* call);
[[noreturn]] void throw_cuda_error(CUresult result, const char* call);

int device_count();
// The device's primary context, retained once and made current on the
// calling thread (cheap when it already is).
CUcontext make_current(int device);
// The device of the calling thread's current context; 0 when there is none
// or no driver at all (so argument checks still run before a launch fails).
int current_device();

// Whether work enqueued on `stream` now would join a CUDA graph capture:
// the stream is capturing, or it is the legacy stream while a capture
// forbids using it. False without a driver. Needs `device`'s context, which
// it makes current.
bool stream_capturing(CUstream stream, int device);

struct DeviceInfo {
  int ordinal = 0;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_shared_per_block_optin = 0;
  std::string name;
};
const DeviceInfo& device_info(int device);

// cuLaunchKernelEx's configuration for `config` on `stream`: grid, block,
// dynamic shared memory, and its attributes (cluster dimension,
// cooperative) in `attributes`, which must outlive the result.
CUlaunchConfig driver_launch_config(const abi::LaunchConfig& config, CUstream stream,
                                    std::array<CUlaunchAttribute, 3>& attributes);

// What the driver says about a loaded function (cuFuncGetAttribute).
struct FunctionAttributes {
  int registers = 0;              // CU_FUNC_ATTRIBUTE_NUM_REGS, per thread
  int local_bytes = 0;            // LOCAL_SIZE_BYTES, per thread
  int static_shared_bytes = 0;    // SHARED_SIZE_BYTES, per block
  int constant_bytes = 0;         // CONST_SIZE_BYTES
  int max_threads_per_block = 0;  // MAX_THREADS_PER_BLOCK: the most this function can launch with
  int binary_version = 0;         // BINARY_VERSION: 90 for an sm_90 image
};
FunctionAttributes function_attributes(CUfunction fn);

// How many of `fn`'s blocks launched as `config` says fit at once: per SM
// (cuOccupancyMaxActiveBlocksPerMultiprocessor with its block size and
// dynamic shared memory), and for a cluster launch the clusters the whole
// device holds (cuOccupancyMaxActiveClusters; 0 otherwise). The dynamic
// shared memory limit must be set first (launcher.hpp prepare_function).
struct Occupancy {
  int blocks_per_sm = 0;
  int active_clusters = 0;
};
Occupancy occupancy(CUfunction fn, const abi::LaunchConfig& config);

}  // namespace croq::jit

// Calls a driver function and checks its result: CROQ_CU(cuMemAlloc, &p, n).
#define CROQ_CU(fn, ...) ::croq::jit::check(::croq::jit::driver().fn(__VA_ARGS__), #fn)
