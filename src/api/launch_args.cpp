#include "api/launch_args.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "croq/error.hpp"
#include "jit/tensor_map.hpp"
#include "support/checked_int.hpp"

namespace croq::detail {
namespace {

std::int64_t dim_of(std::span<const Arg> args, const abi::DimSource& w) {
  return static_cast<std::int64_t>(args[static_cast<std::size_t>(w.argument)].view().shape[w.dim]);
}

// The value of integer parameter `kp` (a scalar argument, a host program's
// scalar or a dynamic dim) at this launch.
std::int64_t integer_param(const abi::KernelParam& kp, std::span<const Arg> args,
                           std::span<const host::Value> host_scalars) {
  if (kp.kind == abi::KernelParam::Kind::dim) return dim_of(args, kp.dim);
  if (kp.host_slot >= 0) {
    if (static_cast<std::size_t>(kp.host_slot) >= host_scalars.size())
      throw Error("the host program's scalar `" + kp.name + "` is known only as the program runs");
    return host_scalars[static_cast<std::size_t>(kp.host_slot)].i;
  }
  return args[static_cast<std::size_t>(kp.argument)].integer();
}

// One step of a LaunchCount on its stack.
support::CheckedInt apply(abi::LaunchCount::Op::Kind kind, std::vector<std::int64_t>& stack) {
  using K = abi::LaunchCount::Op::Kind;
  const std::int64_t top = stack.back();
  stack.pop_back();
  switch (kind) {
    case K::neg: return support::checked_neg(top);
    case K::to_s32: return {static_cast<std::int32_t>(static_cast<std::uint32_t>(top))};
    case K::to_u32: return {static_cast<std::int64_t>(static_cast<std::uint32_t>(top))};
    case K::to_bool: return {top != 0};
    default: break;
  }
  const std::int64_t lhs = stack.back();
  stack.pop_back();
  switch (kind) {
    case K::add: return support::checked_add(lhs, top);
    case K::sub: return support::checked_sub(lhs, top);
    case K::mul: return support::checked_mul(lhs, top);
    case K::div: return support::checked_div(lhs, top);
    case K::mod: return support::checked_mod(lhs, top);
    case K::min: return {std::min(lhs, top)};
    case K::max: return {std::max(lhs, top)};
    case K::less: return {lhs < top};
    case K::less_equal: return {lhs <= top};
    case K::equal: return {lhs == top};
    case K::not_equal: return {lhs != top};
    default: break;
  }
  const std::int64_t condition = stack.back();  // select: condition, then (lhs), else (top)
  stack.pop_back();
  return {condition != 0 ? lhs : top};
}

}  // namespace

std::int64_t launch_count_value(const abi::LaunchCount& count, const std::function<std::int64_t(int)>& param_value,
                                const std::string& kernel) {
  std::vector<std::int64_t> stack;
  for (const abi::LaunchCount::Op& op : count.ops) {
    if (op.kind == abi::LaunchCount::Op::Kind::constant || op.kind == abi::LaunchCount::Op::Kind::param) {
      stack.push_back(op.kind == abi::LaunchCount::Op::Kind::constant ? op.value : param_value(static_cast<int>(op.value)));
      continue;
    }
    const support::CheckedInt r = apply(op.kind, stack);
    if (!r.ok())
      throw ArgumentError("`" + kernel + "`: the parallel count `" + count.text + "` " + support::describe(r.fault) +
                          " at this call");
    stack.push_back(r.value);
  }
  const std::int64_t v = stack.back();
  if (v < 0)
    throw ArgumentError("`" + kernel + "`: the parallel count `" + count.text + "` is " + std::to_string(v) +
                        " at this call; a count is at least 0");
  return v;
}

unsigned runtime_grid_blocks(const abi::RuntimeGrid& g,
                             const std::function<std::int64_t(const abi::DimSource&)>& dim_value,
                             const std::string& kernel, const std::function<std::int64_t(int)>& param_value) {
  constexpr std::int64_t kMaxGrid = 0x7fffffff;
  support::CheckedInt total{g.factor};
  auto times = [&](const support::CheckedInt& term) {
    total = total.ok() && term.ok() ? support::checked_mul(total.value, term.value)
                                    : support::CheckedInt{0, support::ArithmeticFault::overflow};
  };
  for (const auto& t : g.terms) {
    const std::int64_t v = dim_value(t.source);  // an extent: an int64 (check_argument)
    times(t.ceil ? support::checked_cdiv(v, t.divisor) : support::checked_div(v, t.divisor));
  }
  for (const abi::LaunchCount& c : g.counts) times(support::CheckedInt{launch_count_value(c, param_value, kernel)});
  const support::CheckedInt blocks = total.ok() ? support::checked_cdiv(total.value, g.per_block) : total;
  if (blocks.ok() && blocks.value <= kMaxGrid) return static_cast<unsigned>(blocks.value);
  if (g.grid_stride) return static_cast<unsigned>(kMaxGrid);
  throw ArgumentError("`" + kernel + "`: the " + (g.counts.empty() ? "dynamic dims" : "parallel counts of this call") +
                      " ask for " + (blocks.ok() ? std::to_string(blocks.value) : std::string("more than 2^63")) +
                      " blocks, more than a grid holds (2^31 - 1)");
}

Tensor scalar_result(const host::Value& value, DType dtype, const LaunchOptions& options, const std::string& kernel) {
  Tensor result = Tensor::empty(dtype, Shape(), MemoryKind::host);
  const std::string what = "`" + kernel + "` returned " + host::value_text(value) + ", ";
  if (dtype == DType::f32) {
    const auto f = static_cast<float>(value.as_float());
    std::memcpy(result.data(), &f, sizeof f);
  } else if (dtype == DType::f64) {
    const double f = value.as_float();
    std::memcpy(result.data(), &f, sizeof f);
  } else {
    // s32 or s64 (frontend::ast::returned_scalar_dtype): integers must fit, floats are truncated as C++ does.
    const bool wide = dtype == DType::s64;
    const double lo = wide ? -9223372036854775808.0 : -2147483648.0;
    if (value.is_float && !(value.f >= lo && value.f < -lo))
      throw Error(what + "which " + std::string(dtype_name(dtype)) + " cannot hold");
    const std::int64_t i = value.is_float ? static_cast<std::int64_t>(value.f) : value.i;
    if (!wide && (i < INT32_MIN || i > INT32_MAX)) throw Error(what + "which s32 (its result type) cannot hold");
    if (wide) std::memcpy(result.data(), &i, sizeof i);
    else {
      const auto narrow = static_cast<std::int32_t>(i);
      std::memcpy(result.data(), &narrow, sizeof narrow);
    }
  }
  if (options.output == nullptr) return result;
  const TensorView& out = *options.output;
  if (out.dtype != dtype || out.shape.rank() != 0 || out.memory != MemoryKind::host)
    throw ArgumentError("`" + kernel + "`: LaunchOptions::output " + out.str() + " must be a host rank-0 " +
                        std::string(dtype_name(dtype)) + " tensor: the function returns a number");
  result.copy_to(out);
  return Tensor();
}

abi::LaunchConfig launch_config_of(const abi::KernelAbi& abi, std::span<const Arg> args, const std::string& kernel,
                                   std::span<const host::Value> host_scalars) {
  abi::LaunchConfig launch = abi.launch;
  if (abi.runtime_grid.dynamic())
    launch.grid = {runtime_grid_blocks(
                       abi.runtime_grid, [&](const abi::DimSource& w) { return dim_of(args, w); }, kernel,
                       [&](int p) { return integer_param(abi.params[static_cast<std::size_t>(p)], args, host_scalars); }),
                   1, 1};
  return launch;
}

Shape result_shape_of(const abi::KernelAbi& abi, std::span<const Arg> args) {
  Shape shape;
  for (std::size_t d = 0; d < abi.output_shape.size(); ++d)
    shape.push_back(abi.output_shape[d] >= 0 ? static_cast<std::size_t>(abi.output_shape[d])
                                             : static_cast<std::size_t>(dim_of(args, abi.output_dim_sources[d])));
  return shape;
}

host::Hooks host_hooks(std::span<const Arg> args, const std::string& kernel) {
  host::Hooks hooks;
  hooks.argument = [args, kernel](int i) {
    if (static_cast<std::size_t>(i) >= args.size())
      throw ArgumentError("`" + kernel + "`: argument " + std::to_string(i + 1) + " is missing");
    const Arg& a = args[static_cast<std::size_t>(i)];
    if (a.kind() == Arg::Kind::floating) return host::Value{true, 0, a.floating()};
    return host::Value{false, a.integer(), 0};
  };
  hooks.dim = [args](const abi::DimSource& w) { return dim_of(args, w); };
  return hooks;
}

LaunchArgs::LaunchArgs(const abi::KernelAbi& abi, std::span<const Arg> args, std::span<const Tensor> staged,
                       const std::vector<std::string>& tensor_map_names, void* output,
                       std::span<void* const> scratch, std::span<const host::Value> host_scalars) {
  const std::size_t count = abi.params.size();
  std::uint64_t* slots = inline_slots_.data();
  pointers_ = inline_pointers_.data();
  if (count > kInlineParams) {
    heap_slots_.resize(count);
    heap_pointers_.resize(count);
    slots = heap_slots_.data();
    pointers_ = heap_pointers_.data();
  }
  std::size_t map_count = 0;
  for (const auto& kp : abi.params) map_count += kp.kind == abi::KernelParam::Kind::tensor_map;
  CUtensorMap* maps = inline_maps_.data();
  if (map_count > kInlineMaps) {
    heap_maps_.resize(map_count);
    maps = heap_maps_.data();
  }
  // A tensor's device data: its staged copy for host arguments.
  auto data_of = [&](int argument) -> void* {
    const auto i = static_cast<std::size_t>(argument);
    return i < staged.size() && staged[i].defined() ? staged[i].data() : args[i].view().data;
  };
  std::size_t next_map = 0;
  for (std::size_t p = 0; p < count; ++p) {
    const abi::KernelParam& kp = abi.params[p];
    if (kp.kind == abi::KernelParam::Kind::tensor_map) {
      // Reused per thread: after the first launch, filling it allocates nothing.
      thread_local jit::TensorMapSpec spec_map;
      // The tensor the descriptor covers, each allocated by now: a program
      // buffer (its shape static), the returned tensor (argument -1,
      // contiguous) or an argument.
      Shape shape;
      if (kp.scratch >= 0) {
        const abi::ScratchBuffer& b = abi.scratch[static_cast<std::size_t>(kp.scratch)];
        shape = Shape(b.shape.begin(), b.shape.end());
        spec_map.dtype = b.dtype;
        spec_map.base = scratch[static_cast<std::size_t>(kp.scratch)];
      } else if (kp.argument < 0) {
        shape = result_shape_of(abi, args);
        spec_map.dtype = abi.output_dtype;
        spec_map.base = output;
      } else {
        const TensorView& view = args[static_cast<std::size_t>(kp.argument)].view();
        shape = view.shape;
        spec_map.dtype = view.dtype;
        spec_map.base = data_of(kp.argument);
      }
      spec_map.dims.clear();
      for (int d = 0; d < shape.rank(); ++d) {
        // The kernel's TMA coordinates are 32-bit signed (lowering refuses
        // such static extents; a dynamic dim is known only now).
        if (shape[d] > 0x7fffffffu)
          throw ArgumentError(tensor_map_names[p] + ": " +
                              (kp.scratch >= 0   ? std::string("the program buffer")
                               : kp.argument < 0 ? std::string("the result")
                                                 : args[static_cast<std::size_t>(kp.argument)].view().str()) +
                              " has a dimension of 2^31 elements or more, which tma.copy cannot address (32-bit coordinates)");
        spec_map.dims.push_back(static_cast<std::int64_t>(shape[d]));
      }
      spec_map.box.assign(kp.box.begin(), kp.box.end());
      spec_map.swizzle_bytes = kp.swizzle_bytes;
      spec_map.what.assign(tensor_map_names[p]);
      maps[next_map] = jit::encoded_tensor_map(spec_map);
      pointers_[p] = &maps[next_map++];
      continue;
    }
    std::uint64_t bits = 0;
    switch (kp.kind) {
      case abi::KernelParam::Kind::output: bits = reinterpret_cast<std::uint64_t>(output); break;
      case abi::KernelParam::Kind::scratch:
        bits = reinterpret_cast<std::uint64_t>(scratch[static_cast<std::size_t>(kp.argument)]);
        break;
      case abi::KernelParam::Kind::tensor: bits = reinterpret_cast<std::uint64_t>(data_of(kp.argument)); break;
      case abi::KernelParam::Kind::dim:
      case abi::KernelParam::Kind::integer: {
        const std::int64_t v = integer_param(kp, args, host_scalars);
        std::memcpy(&bits, &v, sizeof v);
        break;
      }
      default: {  // floating
        if (kp.host_slot >= 0) {
          const double v = host_scalars[static_cast<std::size_t>(kp.host_slot)].as_float();
          std::memcpy(&bits, &v, sizeof v);
          break;
        }
        const Arg& a = args[static_cast<std::size_t>(kp.argument)];
        const double v = a.kind() == Arg::Kind::floating ? a.floating() : static_cast<double>(a.integer());
        std::memcpy(&bits, &v, sizeof v);
        break;
      }
    }
    slots[p] = bits;
    pointers_[p] = &slots[p];
  }
}

namespace {

unsigned long long stream_id(CUstream stream) {
  unsigned long long id = 0;
  CROQ_CU(cuStreamGetId, stream, &id);
  return id;
}

}  // namespace

// Kept blocks are freed once every call that used them is done: the device's
// work is waited for (their streams may be gone by now). Errors are ignored:
// this is a destructor, and no one can be told.
ScratchPool::~ScratchPool() {
  try {
    const jit::DriverApi& d = jit::driver();
    for (const Block& b : kept_) {
      jit::make_current(b.device);
      d.cuCtxSynchronize();
      d.cuMemFree(b.ptr);
    }
  } catch (...) {
  }
}

ScratchPool::Block ScratchPool::take(std::size_t bytes, CUstream stream, int device) {
  const unsigned long long id = stream_id(stream);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < kept_.size(); ++i)
      if (kept_[i].stream_id == id && kept_[i].device == device && kept_[i].bytes >= bytes) {
        Block b = kept_[i];
        kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(i));
        return b;
      }
  }
  Block b;
  b.bytes = bytes;
  b.stream_id = id;
  b.device = device;
  CROQ_CU(cuMemAllocAsync, &b.ptr, bytes, stream);
  return b;
}

void ScratchPool::give_back(Block block, CUstream stream) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.size() < kKeptBlocks) {
      kept_.push_back(block);
      return;
    }
  }
  jit::driver().cuMemFreeAsync(block.ptr, stream);  // after this call's kernels
}

void take_fills(abi::KernelAbi& program, const abi::KernelAbi& kernel) {
  if (program.output_fill.empty()) program.output_fill = kernel.output_fill;
  for (std::size_t i = 0; i < kernel.scratch.size() && i < program.scratch.size(); ++i)
    if (program.scratch[i].fill.empty()) program.scratch[i].fill = kernel.scratch[i].fill;
}

void fill_device(CUdeviceptr ptr, std::size_t bytes, const std::vector<std::uint8_t>& element, CUstream stream) {
  const std::size_t size = element.size();
  if (size == 0 || bytes % size != 0)
    throw std::logic_error("fill_device: " + std::to_string(bytes) + " bytes do not hold elements of " +
                           std::to_string(size) + " bytes");
  const bool uniform = std::all_of(element.begin(), element.end(), [&](std::uint8_t b) { return b == element[0]; });
  auto check = [](CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) jit::throw_cuda_error(r, what);
  };
  if (uniform) return check(jit::driver().cuMemsetD8Async(ptr, element[0], bytes, stream), "cuMemsetD8Async");
  if (size == 2) {
    std::uint16_t v;
    std::memcpy(&v, element.data(), 2);
    return check(jit::driver().cuMemsetD16Async(ptr, v, bytes / 2, stream), "cuMemsetD16Async");
  }
  std::uint32_t halves[2] = {0, 0};
  std::memcpy(halves, element.data(), std::min<std::size_t>(size, 8));
  if (size == 4 || (size == 8 && halves[0] == halves[1]))
    return check(jit::driver().cuMemsetD32Async(ptr, halves[0], bytes / 4, stream), "cuMemsetD32Async");
  // 8-byte elements whose halves differ: the pattern copied from the host
  // (a pageable source, so the copy has read it before this returns).
  std::vector<std::uint8_t> pattern(bytes);
  for (std::size_t at = 0; at < bytes; at += size) std::memcpy(pattern.data() + at, element.data(), size);
  check(jit::driver().cuMemcpyHtoDAsync(ptr, pattern.data(), bytes, stream), "cuMemcpyHtoDAsync");
}

ScratchBuffers::ScratchBuffers(const std::vector<abi::ScratchBuffer>& buffers, ScratchPool& pool, CUstream stream,
                               int device)
    : stream_(stream) {
  if (buffers.empty()) return;
  // One block: each buffer at a 256-byte boundary (extents and byte sizes
  // were checked when the kernel was lowered).
  std::vector<std::size_t> offsets, sizes;
  std::size_t total = 0;
  for (const abi::ScratchBuffer& b : buffers) {
    std::size_t bytes = dtype_size(b.dtype);
    for (std::int64_t d : b.shape) bytes *= static_cast<std::size_t>(d);
    offsets.push_back(total);
    sizes.push_back(bytes);
    total += (bytes + 255) / 256 * 256;
  }
  if (total == 0) {
    pointers_.assign(buffers.size(), nullptr);
    return;
  }
  jit::make_current(device);
  block_ = pool.take(total, stream, device);
  pool_ = &pool;
  // Filled for every call where the program declares an initial value (or
  // updates the buffer in place); the others it writes before reading.
  try {
    for (std::size_t i = 0; i < buffers.size(); ++i)
      if (!buffers[i].fill.empty() && sizes[i] > 0) fill_device(block_.ptr + offsets[i], sizes[i], buffers[i].fill, stream);
  } catch (...) {
    pool.give_back(block_, stream);
    pool_ = nullptr;
    throw;
  }
  for (std::size_t i = 0; i < buffers.size(); ++i)
    pointers_.push_back(sizes[i] > 0 ? reinterpret_cast<void*>(block_.ptr + offsets[i]) : nullptr);
}

ScratchBuffers::~ScratchBuffers() {
  if (pool_) pool_->give_back(block_, stream_);
}

}  // namespace croq::detail
