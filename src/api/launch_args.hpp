// The kernel ABI (abi::KernelAbi) decoded against one call's arguments:
// the result's shape, the grid of a launch sized by dynamic dims, and the
// __global__ function's parameter values with their TMA descriptors.
// Internal to src/api; src/api/kernel.cpp owns the rest of a launch.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "croq/kernel.hpp"
#include "host/host_program.hpp"
#include "jit/driver.hpp"

namespace croq::detail {

// The blocks to launch for `grid`, each dim's value from `dim_value`. A
// kernel that loops over block indices (grid.grid_stride) takes at most
// 2^31 - 1 blocks whatever the count; for any other kernel a count past
// that, or one with no 64-bit value, is an ArgumentError naming `kernel`.
// Each of grid.counts from `param_value` (an integer parameter's value by
// its KernelAbi::params index).
unsigned runtime_grid_blocks(const abi::RuntimeGrid& grid,
                             const std::function<std::int64_t(const abi::DimSource&)>& dim_value,
                             const std::string& kernel, const std::function<std::int64_t(int)>& param_value = {});

// The value of `count` at this launch; an ArgumentError naming `kernel` and
// the count when it overflows, divides by zero or is negative.
std::int64_t launch_count_value(const abi::LaunchCount& count, const std::function<std::int64_t(int)>& param_value,
                                const std::string& kernel);

// A host program's hooks for a call's scalar arguments and dynamic dims
// (host::run; the caller adds launch and print).
host::Hooks host_hooks(std::span<const Arg> args, const std::string& kernel);

// A returned number (host::Program::result) as the call's result: a host
// rank-0 tensor of `dtype`, or, when options.output is given (a host rank-0
// tensor of that dtype, else an ArgumentError), written there and an empty
// Tensor returned. An Error names `kernel` when the value does not fit.
Tensor scalar_result(const host::Value& value, DType dtype, const LaunchOptions& options, const std::string& kernel);

// The launch shape for this call: the ABI's, with a runtime grid computed
// from the arguments' dynamic dims and scalars (and `host_scalars`, a host
// program's scalars at this launch).
abi::LaunchConfig launch_config_of(const abi::KernelAbi& abi, std::span<const Arg> args, const std::string& kernel,
                                   std::span<const host::Value> host_scalars = {});

// The result's extents: the ABI's, with dynamic dims read from the arguments.
Shape result_shape_of(const abi::KernelAbi& abi, std::span<const Arg> args);

// The parameter values of one launch, in the ABI's order, and the pointers
// the driver reads them through (cuLaunchKernel's kernelParams). Up to 32
// parameters and 8 TMA descriptors live inline, so a launch allocates
// nothing; pointers() points into the object, which therefore stays put.
class LaunchArgs {
 public:
  // `staged`: per argument, the device copy of a host tensor (or an
  // undefined Tensor: the argument's own data). `tensor_map_names`: per
  // parameter, how a TMA descriptor's errors name it. `output`: the
  // result's device memory (when the kernel returns a tensor).
  // `scratch`: the program's global buffers (ScratchBuffers::pointers()).
  // `host_scalars`: a host program's scalars at this launch (the
  // parameters with KernelParam::host_slot).
  LaunchArgs(const abi::KernelAbi& abi, std::span<const Arg> args, std::span<const Tensor> staged,
             const std::vector<std::string>& tensor_map_names, void* output, std::span<void* const> scratch = {},
             std::span<const host::Value> host_scalars = {});
  LaunchArgs(const LaunchArgs&) = delete;
  LaunchArgs& operator=(const LaunchArgs&) = delete;

  void** pointers() { return pointers_; }

 private:
  static constexpr std::size_t kInlineParams = 32;
  static constexpr std::size_t kInlineMaps = 8;
  std::array<std::uint64_t, kInlineParams> inline_slots_;
  std::array<void*, kInlineParams> inline_pointers_;
  std::array<CUtensorMap, kInlineMaps> inline_maps_;
  std::vector<std::uint64_t> heap_slots_;
  std::vector<void*> heap_pointers_;
  std::vector<CUtensorMap> heap_maps_;
  void** pointers_ = nullptr;
};

// Device memory for the global buffers of a program's calls, kept between
// calls so that a hot call allocates nothing. A block goes back to the
// stream its call ran on (by stream id, which CUDA never reuses), and the
// next call on that stream, which the stream orders after every kernel of
// the last one, takes it as it is. Calls on other streams, or several
// threads' calls on one stream at once, get blocks of their own.
class ScratchPool {
 public:
  struct Block {
    CUdeviceptr ptr = 0;
    std::size_t bytes = 0;
    unsigned long long stream_id = 0;
    int device = -1;
  };
  ScratchPool() = default;
  ~ScratchPool();
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;

  // A block of at least `bytes` for a call on `stream` (allocated on it when
  // none is kept for that stream).
  Block take(std::size_t bytes, CUstream stream, int device);
  // After the call's work is enqueued on `stream`: kept for the next call
  // on it, or freed in stream order when enough are kept.
  void give_back(Block block, CUstream stream);

 private:
  static constexpr std::size_t kKeptBlocks = 8;
  std::mutex mutex_;
  std::vector<Block> kept_;
};

// Gives `program` the fills `kernel` asks for where it has none (the
// returned tensor's, each program buffer's): the kernels of a program
// declare the same buffers, and any one that declares a buffer's value or
// updates it in place decides its fill.
void take_fills(abi::KernelAbi& program, const abi::KernelAbi& kernel);

// Fills `bytes` bytes at `ptr` with `element` (one element's bytes, 1, 2, 4
// or 8 of them) repeated, on `stream`.
void fill_device(CUdeviceptr ptr, std::size_t bytes, const std::vector<std::uint8_t>& element, CUstream stream);

// A program's global buffers (abi::KernelAbi::scratch) for one call: one
// block of `pool` holds them all, each buffer with a fill set filled on
// `stream` at construction (the others hold what the pool's memory held),
// and given back at destruction (after the kernels queued in between), so
// nothing waits for the GPU.
class ScratchBuffers {
 public:
  ScratchBuffers(const std::vector<abi::ScratchBuffer>& buffers, ScratchPool& pool, CUstream stream, int device);
  ~ScratchBuffers();
  ScratchBuffers(const ScratchBuffers&) = delete;
  ScratchBuffers& operator=(const ScratchBuffers&) = delete;
  std::span<void* const> pointers() const { return pointers_; }

 private:
  ScratchPool* pool_ = nullptr;
  CUstream stream_;
  ScratchPool::Block block_;
  std::vector<void*> pointers_;
};

}  // namespace croq::detail
