// Part of croq/choreo.hpp (include that): the CUDA runtime calls a host
// program makes itself (cudaMalloc, cudaMemcpy, cudaMemset, cudaFree,
// cudaDeviceSynchronize, ...) work in interpret mode.
//
// Under CROQ_INTERPRET=1 the __co__ functions run on the CPU on host memory,
// and there may be no GPU or driver at all: a program that allocates its
// "device" buffers with cudaMalloc and fills them with cudaMemcpy would stop
// at its first call. The names below replace the runtime's for the code that
// follows this header (the program's own code): when interpreting, device
// memory is host memory (aligned as cudaMalloc's is) and copies, fills and
// synchronizations act on it; otherwise each forwards to the CUDA runtime
// unchanged. So one built program runs on the GPU or, with CROQ_INTERPRET=1,
// on the CPU (docs/how-to/interpret.md).
#pragma once

#include "croq/choreo_host.hpp"

#if CROQ_CHOREO_CUDA

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_set>

namespace choreo::cuda_shim {

namespace detail {

// The blocks cudaMalloc handed out while interpreting: cudaFree releases
// only those (a foreign pointer is cudaErrorInvalidValue, as on a device).
struct Allocations {
  std::mutex mutex;
  std::unordered_set<void*> live;
};
inline Allocations& allocations() {
  static Allocations a;
  return a;
}

// cudaMalloc's alignment: TMA descriptors and vector loads rely on it.
inline constexpr std::size_t kAlignment = 256;

inline cudaError_t host_malloc(void** ptr, std::size_t bytes) {
  if (ptr == nullptr) return cudaErrorInvalidValue;
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) {
    *ptr = nullptr;
    return cudaErrorMemoryAllocation;
  }
  std::lock_guard<std::mutex> lock(allocations().mutex);
  allocations().live.insert(p);
  *ptr = p;
  return cudaSuccess;
}

inline cudaError_t host_free(void* ptr) {
  if (ptr == nullptr) return cudaSuccess;
  {
    std::lock_guard<std::mutex> lock(allocations().mutex);
    if (allocations().live.erase(ptr) == 0) return cudaErrorInvalidValue;
  }
  std::free(ptr);
  return cudaSuccess;
}

}  // namespace detail

inline cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
  if (host::interpreting()) return detail::host_malloc(ptr, bytes);
  return ::cudaMalloc(ptr, bytes);
}
template <typename T>
cudaError_t cudaMalloc(T** ptr, std::size_t bytes) {
  return cuda_shim::cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
inline cudaError_t cudaMallocManaged(void** ptr, std::size_t bytes, unsigned flags = cudaMemAttachGlobal) {
  if (host::interpreting()) return detail::host_malloc(ptr, bytes);
  return ::cudaMallocManaged(ptr, bytes, flags);
}
template <typename T>
cudaError_t cudaMallocManaged(T** ptr, std::size_t bytes, unsigned flags = cudaMemAttachGlobal) {
  return cuda_shim::cudaMallocManaged(reinterpret_cast<void**>(ptr), bytes, flags);
}
inline cudaError_t cudaFree(void* ptr) {
  if (host::interpreting()) return detail::host_free(ptr);
  return ::cudaFree(ptr);
}

inline cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  if (!host::interpreting()) return ::cudaMemcpy(dst, src, bytes, kind);
  if (bytes > 0 && (dst == nullptr || src == nullptr)) return cudaErrorInvalidValue;
  if (bytes > 0) std::memmove(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                                   cudaStream_t stream = nullptr) {
  if (!host::interpreting()) return ::cudaMemcpyAsync(dst, src, bytes, kind, stream);
  return cuda_shim::cudaMemcpy(dst, src, bytes, kind);
}
inline cudaError_t cudaMemset(void* dst, int value, std::size_t bytes) {
  if (!host::interpreting()) return ::cudaMemset(dst, value, bytes);
  if (bytes > 0 && dst == nullptr) return cudaErrorInvalidValue;
  if (bytes > 0) std::memset(dst, value, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t stream = nullptr) {
  if (!host::interpreting()) return ::cudaMemsetAsync(dst, value, bytes, stream);
  return cuda_shim::cudaMemset(dst, value, bytes);
}

// Interpreted calls have finished when they return: nothing to wait for.
inline cudaError_t cudaDeviceSynchronize() {
  if (!host::interpreting()) return ::cudaDeviceSynchronize();
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!host::interpreting()) return ::cudaStreamSynchronize(stream);
  return cudaSuccess;
}
// No runtime call fails while interpreting (the shim's own report their
// errors when they return them).
inline cudaError_t cudaGetLastError() {
  if (!host::interpreting()) return ::cudaGetLastError();
  return cudaSuccess;
}
inline cudaError_t cudaPeekAtLastError() {
  if (!host::interpreting()) return ::cudaPeekAtLastError();
  return cudaSuccess;
}
// Streams: interpreted calls run in order on the host; the default stream
// (null) stands for every stream.
inline cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  if (!host::interpreting()) return ::cudaStreamCreate(stream);
  if (stream == nullptr) return cudaErrorInvalidValue;
  *stream = nullptr;
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (!host::interpreting()) return ::cudaStreamDestroy(stream);
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int device) {
  if (!host::interpreting()) return ::cudaSetDevice(device);
  return device == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}

}  // namespace choreo::cuda_shim

// The program's own code, which follows, calls the names above.
#define cudaMalloc ::choreo::cuda_shim::cudaMalloc
#define cudaMallocManaged ::choreo::cuda_shim::cudaMallocManaged
#define cudaFree ::choreo::cuda_shim::cudaFree
#define cudaMemcpy ::choreo::cuda_shim::cudaMemcpy
#define cudaMemcpyAsync ::choreo::cuda_shim::cudaMemcpyAsync
#define cudaMemset ::choreo::cuda_shim::cudaMemset
#define cudaMemsetAsync ::choreo::cuda_shim::cudaMemsetAsync
#define cudaDeviceSynchronize ::choreo::cuda_shim::cudaDeviceSynchronize
#define cudaStreamSynchronize ::choreo::cuda_shim::cudaStreamSynchronize
#define cudaGetLastError ::choreo::cuda_shim::cudaGetLastError
#define cudaPeekAtLastError ::choreo::cuda_shim::cudaPeekAtLastError
#define cudaStreamCreate ::choreo::cuda_shim::cudaStreamCreate
#define cudaStreamDestroy ::choreo::cuda_shim::cudaStreamDestroy
#define cudaSetDevice ::choreo::cuda_shim::cudaSetDevice

#endif  // CROQ_CHOREO_CUDA
