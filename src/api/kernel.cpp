// croq::compile and croq::Kernel: parse once, specialize per argument
// signature (codegen + jit, cached), then pack arguments and launch.
#include "croq/kernel.hpp"

#include <array>
#include <atomic>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <unordered_map>

#include "codegen/kernel_codegen.hpp"
#include "croq/error.hpp"
#include "frontend/frontend.hpp"
#include "jit/driver.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/launcher.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/tensor_map.hpp"
#include "pipeline/pipeline.hpp"
#include "support/hash.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace croq {
namespace {

// The alignment the kernel can rely on for a tensor argument's data: the
// largest power of two up to 16 dividing the device address. Host tensors
// are staged into fresh device allocations, which are 256-byte aligned.
int pointer_alignment(const TensorView& v) {
  if (v.memory == MemoryKind::host) return 16;
  auto address = reinterpret_cast<std::uintptr_t>(v.data);
  std::uintptr_t lowest = address & (~address + 1);
  return address == 0 || lowest >= 16 ? 16 : static_cast<int>(lowest);
}

// Per parameter, a bit per dimension that is a dynamic dim.
using DynamicMask = std::vector<std::uint32_t>;

bool is_dynamic(const DynamicMask& mask, std::size_t arg, int dim) {
  return arg < mask.size() && dim < 32 && (mask[arg] >> dim & 1u) != 0;
}

// The signature key: dtype, shape and pointer alignment class of every
// tensor (dynamic dims as -1), kind of every scalar, and the device (its
// architecture picks the cubin). Appended to `key`, which callers keep on
// the stack for the hot path.
template <typename Key>
void append_signature_key(std::span<const Arg> args, const DynamicMask& dynamic, int device, Key& key) {
  key.append(reinterpret_cast<const char*>(&device), sizeof device);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    if (a.kind() == Arg::Kind::tensor) {
      const TensorView& v = a.view();
      key.push_back('t');
      key.push_back(static_cast<char>(v.dtype));
      key.push_back(static_cast<char>(pointer_alignment(v)));
      for (int d = 0; d < v.shape.rank(); ++d) {
        auto extent = is_dynamic(dynamic, i, d) ? std::int64_t{-1} : static_cast<std::int64_t>(v.shape[d]);
        key.append(reinterpret_cast<const char*>(&extent), sizeof extent);
      }
    } else {
      key.push_back(a.kind() == Arg::Kind::integer ? 'i' : 'f');
    }
    key.push_back(';');
  }
}

std::vector<codegen::ArgSignature> signature_of(std::span<const Arg> args, const DynamicMask& dynamic) {
  std::vector<codegen::ArgSignature> sig;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    codegen::ArgSignature s;
    if (a.kind() == Arg::Kind::tensor) {
      s.dtype = a.view().dtype;
      s.align_bytes = pointer_alignment(a.view());
      for (int d = 0; d < a.view().shape.rank(); ++d)
        s.shape.push_back(is_dynamic(dynamic, i, d) ? -1 : static_cast<std::int64_t>(a.view().shape[d]));
    } else {
      s.is_tensor = false;
      s.is_integer = a.kind() == Arg::Kind::integer;
    }
    sig.push_back(std::move(s));
  }
  return sig;
}

// A fixed stack buffer with the two string operations the key needs; it
// spills to a std::string for very long signatures.
class KeyBuffer {
 public:
  void append(const char* p, std::size_t n) {
    if (size_ + n <= sizeof inline_) std::memcpy(inline_ + size_, p, n);
    else spill().append(p, n);
    size_ += n;
  }
  void push_back(char c) { append(&c, 1); }
  std::string_view view() const { return spilled_.empty() ? std::string_view(inline_, size_) : std::string_view(spilled_); }

 private:
  std::string& spill() {
    if (spilled_.empty()) spilled_.assign(inline_, std::min(size_, sizeof inline_));
    return spilled_;
  }
  char inline_[384];
  std::size_t size_ = 0;
  std::string spilled_;
};

void check_argument(const Arg& a, std::size_t i, const std::string& param) {
  if (a.kind() != Arg::Kind::tensor) return;
  const TensorView& v = a.view();
  std::string who = "argument " + std::to_string(i + 1) + " '" + param + "'";
  if (v.data == nullptr && v.numel() > 0) throw ArgumentError(who + ": null data pointer");
  if (!v.is_contiguous()) throw ArgumentError(who + ": " + v.str() + " is not contiguous (row-major); pass a contiguous copy");
  if (reinterpret_cast<std::uintptr_t>(v.data) % dtype_size(v.dtype) != 0)
    throw ArgumentError(who + ": data pointer " + std::to_string(reinterpret_cast<std::uintptr_t>(v.data)) +
                        " is not aligned to its " + std::to_string(dtype_size(v.dtype)) + "-byte elements");
}

}  // namespace

namespace detail {

struct Specialization {
  codegen::GeneratedKernel generated;
  std::shared_ptr<const jit::CompiledKernel> compiled;
  // Per parameter: how a TMA descriptor's errors name it (empty for other
  // kinds). Built once here so a launch formats no strings.
  std::vector<std::string> tensor_map_names;
};

class KernelImpl {
 public:
  KernelImpl() : id(next_id.fetch_add(1)) {}
  // Tells kernels apart in the per-thread memo even when one is freed and
  // another allocated at the same address.
  const std::uint64_t id;
  static inline std::atomic<std::uint64_t> next_id{1};

  std::unique_ptr<frontend::ast::Program> program;
  const frontend::ast::Function* function = nullptr;
  sema::CheckedProgram checked;  // what sema proved about `function`, for later stages
  CompileOptions options;
  std::string source_hash;
  // Dynamic dims: where each is read, and which argument dims they are.
  std::map<std::string, std::vector<codegen::DimSource>> dynamic_sources;
  DynamicMask dynamic_mask;

  // Specializations by argument signature; a future so concurrent callers
  // of a new signature wait for one compile instead of starting their own.
  std::shared_ptr<const Specialization> specialization(std::string_view key, std::span<const Arg> args, int device);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_future<std::shared_ptr<const Specialization>>> table_;
};

std::shared_ptr<const Specialization> KernelImpl::specialization(std::string_view key, std::span<const Arg> args,
                                                                 int device) {
  // Hot path: the calling thread's last signature for this kernel, with no
  // lock and no allocation.
  struct Memo {
    std::uint64_t kernel_id = 0;
    std::string key;
    std::shared_ptr<const Specialization> spec;
  };
  thread_local Memo memo;
  if (memo.kernel_id == id && memo.key == key) return memo.spec;

  std::promise<std::shared_ptr<const Specialization>> promise;
  std::shared_future<std::shared_ptr<const Specialization>> existing;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = table_.find(std::string(key));
    if (it != table_.end()) existing = it->second;
    else table_.emplace(std::string(key), promise.get_future().share());
  }
  if (existing.valid()) {
    auto spec = existing.get();  // waits while another thread specializes
    memo = Memo{id, std::string(key), spec};
    return spec;
  }
  std::vector<codegen::ArgSignature> sig = signature_of(args, dynamic_mask);
  try {
    auto spec = std::make_shared<Specialization>();
    int max_shared = 227 * 1024;
    std::string arch = options.arch;
    std::string why;
    if (jit::driver_available(&why) && jit::device_count() > device) {
      const jit::DeviceInfo& info = jit::device_info(device);
      max_shared = info.max_shared_per_block_optin;
      if (arch.empty() && !support::env_string("CROQ_ARCH"))
        arch = jit::arch_for_compute_capability(info.cc_major, info.cc_minor);
    }
    // Check every argument with its real extents first, so messages show
    // them rather than the `?` that stands for a dynamic dim in `sig`.
    if (!options.dynamic_dims.empty()) codegen::bind_dims(*program, *function, signature_of(args, {}));
    // Codegen targets the resolved arch (mma is WGMMA on sm_90a, mma.sync on
    // the other archs from sm_80). The arch is fixed per device for this
    // kernel (options, CROQ_ARCH or the device), so the key's device
    // separates the arches.
    spec->generated = codegen::generate_cuda_for_arch(*program, *function, sig, max_shared, options.dynamic_dims,
                                                      jit::resolve_arch(arch));
    for (const Diagnostic& w : spec->generated.warnings)
      support::log().warn("{}", render_diagnostics({w}, program->source, program->source_name));
    jit::JitRequest request;
    request.cuda_source = spec->generated.cuda_source;
    request.entry = spec->generated.entry;
    request.source_name = program->source_name + ".cu";
    request.arch = arch;
    request.line_info = options.debug_line_info;
    request.launch = spec->generated.launch;
    request.croq_source_hash = source_hash;
    spec->compiled = jit::JitCompiler::global().compile(request);
    for (const codegen::KernelParam& kp : spec->generated.params)
      spec->tensor_map_names.push_back(kp.kind == codegen::KernelParam::Kind::tensor_map
                                           ? "argument " + std::to_string(kp.argument + 1) + " '" +
                                                 function->params[kp.argument].name + "' (" + kp.name + ")"
                                           : std::string());
    std::shared_ptr<const Specialization> done = spec;
    promise.set_value(done);
    memo = Memo{id, std::string(key), done};
    return done;
  } catch (...) {
    promise.set_exception(std::current_exception());
    std::lock_guard<std::mutex> lock(mutex_);
    table_.erase(std::string(key));
    throw;
  }
}

}  // namespace detail


bool cuda_available(std::string* why) {
  std::string reason;
  bool ok = jit::driver_available(&reason) && jit::device_count() > 0;
  if (!ok && reason.empty()) reason = "no CUDA device";
  if (why) *why = reason;
  return ok;
}

const std::string& Kernel::name() const {
  static const std::string empty;
  return impl_ ? impl_->function->name : empty;
}

Tensor Kernel::launch(std::span<const Arg> args, const LaunchOptions& options) const {
  if (!impl_) throw Error("croq::Kernel: calling an empty kernel (use croq::compile)");
  const auto& params = impl_->function->params;
  for (std::size_t i = 0; i < args.size() && i < params.size(); ++i) check_argument(args[i], i, params[i].name);

  bool host_mode = false;
  int device = options.device;
  for (const Arg& a : args)
    if (a.kind() == Arg::Kind::tensor) {
      if (a.view().memory == MemoryKind::host) host_mode = true;
      else if (device < 0) device = a.view().device;
    }
  if (device < 0) device = jit::current_device();
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].kind() == Arg::Kind::tensor && args[i].view().memory == MemoryKind::device &&
        args[i].view().device != device)
      throw ArgumentError("argument " + std::to_string(i + 1) + " '" + params[i].name + "' is on device " +
                          std::to_string(args[i].view().device) + " but the kernel runs on device " +
                          std::to_string(device));

  // Every occurrence of a dynamic dim must agree (the key cannot check it).
  for (const auto& [name, where] : impl_->dynamic_sources) {
    if (where.front().argument >= static_cast<int>(args.size())) break;  // arity is checked by codegen
    const Arg& first = args[where.front().argument];
    if (first.kind() != Arg::Kind::tensor || first.view().shape.rank() <= where.front().dim) continue;
    std::int64_t value = first.view().shape[where.front().dim];
    for (const codegen::DimSource& w : where) {
      if (w.argument >= static_cast<int>(args.size())) break;
      const Arg& a = args[w.argument];
      if (a.kind() != Arg::Kind::tensor || a.view().shape.rank() <= w.dim) continue;
      if (static_cast<std::int64_t>(a.view().shape[w.dim]) != value)
        throw ArgumentError("argument " + std::to_string(w.argument + 1) + " '" + params[w.argument].name +
                            "': dimension " + std::to_string(w.dim) + " is " + name + ", bound to " +
                            std::to_string(value) + " by argument " + std::to_string(where.front().argument + 1) +
                            " '" + params[where.front().argument].name + "', but got " + a.view().str());
    }
  }

  KeyBuffer key;
  append_signature_key(args, impl_->dynamic_mask, device, key);
  auto spec = impl_->specialization(key.view(), args, device);
  const codegen::GeneratedKernel& gen = spec->generated;

  CUstream stream = options.stream;
  // Host data goes to the device for the call and written arguments come back.
  std::vector<Tensor> staged;
  if (host_mode) {
    jit::make_current(device);
    staged.resize(args.size());
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i].kind() == Arg::Kind::tensor && args[i].view().memory == MemoryKind::host)
        staged[i] = Tensor::copy_of(args[i].view(), MemoryKind::device, device);
  }
  auto dim_value = [&](const codegen::DimSource& w) {
    return static_cast<std::int64_t>(args[w.argument].view().shape[w.dim]);
  };
  jit::LaunchConfig launch = gen.launch;
  if (gen.runtime_grid.dynamic()) {
    const codegen::RuntimeGrid& g = gen.runtime_grid;
    std::int64_t total = g.factor;
    for (const auto& t : g.terms) {
      std::int64_t v = dim_value(t.source);
      total *= t.ceil ? (v + t.divisor - 1) / t.divisor : v / t.divisor;
    }
    std::int64_t blocks = (total + g.per_block - 1) / g.per_block;
    if (blocks > 0x7fffffff)
      throw ArgumentError("`" + name() + "`: the dynamic dims ask for " + std::to_string(blocks) +
                          " blocks, more than a grid holds (2^31 - 1)");
    launch.grid = {static_cast<unsigned>(blocks), 1, 1};
  }
  Tensor output;
  if (gen.has_output) {
    std::vector<std::int64_t> dims = gen.output_shape;
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (dims[d] < 0) dims[d] = dim_value(gen.output_dim_sources[d]);
    Shape shape(dims.begin(), dims.end());
    output = Tensor::empty(gen.output_dtype, shape, MemoryKind::device, device);
    if (gen.output_needs_zero)
      CROQ_CU(cuMemsetD8Async, reinterpret_cast<CUdeviceptr>(output.data()), 0, output.bytes(), stream);
  }

  // Parameter values live in `slots`; the driver reads them through `pointers`.
  constexpr std::size_t kInlineParams = 32;
  std::array<std::uint64_t, kInlineParams> inline_slots;
  std::array<void*, kInlineParams> inline_pointers;
  std::vector<std::uint64_t> heap_slots;
  std::vector<void*> heap_pointers;
  std::uint64_t* slots = inline_slots.data();
  void** pointers = inline_pointers.data();
  if (gen.params.size() > kInlineParams) {
    heap_slots.resize(gen.params.size());
    heap_pointers.resize(gen.params.size());
    slots = heap_slots.data();
    pointers = heap_pointers.data();
  }
  // TMA descriptors, encoded from the real tensors (cached by jit::encoded_tensor_map).
  constexpr std::size_t kInlineMaps = 8;
  std::array<CUtensorMap, kInlineMaps> inline_maps;
  std::vector<CUtensorMap> heap_maps;
  std::size_t map_count = 0;
  for (const auto& kp : gen.params) map_count += kp.kind == codegen::KernelParam::Kind::tensor_map;
  CUtensorMap* maps = inline_maps.data();
  if (map_count > kInlineMaps) {
    heap_maps.resize(map_count);
    maps = heap_maps.data();
  }
  std::size_t next_map = 0;
  for (std::size_t p = 0; p < gen.params.size(); ++p) {
    const codegen::KernelParam& kp = gen.params[p];
    if (kp.kind == codegen::KernelParam::Kind::tensor_map) {
      const TensorView& v = args[kp.argument].view();
      // Reused per thread: after the first launch, filling it allocates nothing.
      thread_local jit::TensorMapSpec spec_map;
      spec_map.dtype = v.dtype;
      spec_map.base = host_mode && staged[kp.argument].defined() ? staged[kp.argument].data() : v.data;
      spec_map.dims.clear();
      for (int d = 0; d < v.shape.rank(); ++d) spec_map.dims.push_back(static_cast<std::int64_t>(v.shape[d]));
      spec_map.box.assign(kp.box.begin(), kp.box.end());
      spec_map.swizzle_bytes = kp.swizzle_bytes;
      spec_map.what.assign(spec->tensor_map_names[p]);
      maps[next_map] = jit::encoded_tensor_map(spec_map);
      pointers[p] = &maps[next_map++];
      continue;
    }
    std::uint64_t bits = 0;
    if (kp.kind == codegen::KernelParam::Kind::output) {
      bits = reinterpret_cast<std::uint64_t>(output.data());
    } else {
      const Arg& a = args[kp.argument];
      if (kp.kind == codegen::KernelParam::Kind::tensor) {
        void* ptr = host_mode && staged[kp.argument].defined() ? staged[kp.argument].data() : a.view().data;
        bits = reinterpret_cast<std::uint64_t>(ptr);
      } else if (kp.kind == codegen::KernelParam::Kind::dim) {
        std::int64_t v = dim_value(kp.dim);
        std::memcpy(&bits, &v, sizeof v);
      } else if (kp.kind == codegen::KernelParam::Kind::integer) {
        std::int64_t v = a.integer();
        std::memcpy(&bits, &v, sizeof v);
      } else {
        double v = a.kind() == Arg::Kind::floating ? a.floating() : static_cast<double>(a.integer());
        std::memcpy(&bits, &v, sizeof v);
      }
    }
    slots[p] = bits;
    pointers[p] = &slots[p];
  }
  // An empty grid (a dynamic dim of 0) has nothing to do.
  if (launch.grid[0] > 0) jit::launch(*spec->compiled, launch, pointers, stream, device);

  if (!host_mode) return output;
  CROQ_CU(cuStreamSynchronize, stream);
  for (std::size_t i = 0; i < args.size(); ++i)
    if (staged[i].defined() && gen.argument_written[i]) staged[i].copy_to(args[i].view());
  return gen.has_output ? output.to_host() : Tensor();
}

Kernel compile(std::string_view source, const CompileOptions& options) {
  auto impl = std::make_shared<detail::KernelImpl>();
  impl->options = options;
  impl->program = frontend::parse_program(source, options);
  impl->function = &frontend::select_entry(*impl->program, options, impl->program->source);
  for (const Diagnostic& w : impl->program->warnings)
    support::log().warn("{}", render_diagnostics({w}, impl->program->source, options.source_name));
  // Every shape-independent error now, before any call; the arch rules too
  // when the options name the arch (else they wait for the device's).
  impl->checked = pipeline::check_semantics(*impl->program, *impl->function, options);
  impl->dynamic_sources = codegen::dynamic_dim_sources(*impl->program, *impl->function, options.dynamic_dims);
  impl->dynamic_mask.assign(impl->function->params.size(), 0);
  for (const auto& [name, where] : impl->dynamic_sources)
    for (const codegen::DimSource& w : where)
      if (w.dim < 32) impl->dynamic_mask[w.argument] |= 1u << w.dim;
  support::Hasher128 h;
  h.field(source);
  impl->source_hash = h.digest().hex();
  return Kernel(std::move(impl));
}

}  // namespace croq
