// croq::compile and croq::Kernel: parse once, specialize per argument
// signature (the pipeline: generate + jit, cached), then pack arguments and launch.
#include "croq/kernel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "api/device_rules.hpp"
#include "api/entry_point.hpp"
#include "api/interpret_call.hpp"
#include "api/kernel_stats.hpp"
#include "api/launch_args.hpp"
#include "api/specialization.hpp"
#include "api/tensor_size.hpp"
#include "croq/devices.hpp"
#include "croq/error.hpp"
#include "frontend/host_code.hpp"
#include "jit/driver.hpp"
#include "jit/launcher.hpp"
#include "jit/peer_access.hpp"
#include "pipeline/pipeline.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace croq {
namespace {

// CROQ_CACHE_REQUIRE_HIT=1: a call that would compile is a CacheError
// (replicas that must start warm). Read once.
bool cache_hit_required() {
  static const bool required = support::env_flag("CROQ_CACHE_REQUIRE_HIT", false);
  return required;
}

// CROQ_EXPLAIN=1: one log line per specialization. Read once.
bool explaining() {
  static const bool explain = support::env_flag("CROQ_EXPLAIN", false);
  return explain;
}

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
      key.push_back(a.kind() == Arg::Kind::integer ? 'i' : a.kind() == Arg::Kind::stream ? 's' : 'f');
    }
    key.push_back(';');
  }
}

std::vector<abi::ArgSignature> signature_of(std::span<const Arg> args, const DynamicMask& dynamic) {
  std::vector<abi::ArgSignature> sig;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    abi::ArgSignature s;
    if (a.kind() == Arg::Kind::tensor) {
      s.dtype = a.view().dtype;
      s.align_bytes = pointer_alignment(a.view());
      for (int d = 0; d < a.view().shape.rank(); ++d)
        s.shape.push_back(is_dynamic(dynamic, i, d) ? -1 : static_cast<std::int64_t>(a.view().shape[d]));
    } else {
      s.is_tensor = false;
      s.is_integer = a.kind() == Arg::Kind::integer;
      s.is_stream = a.kind() == Arg::Kind::stream;
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

// `describing`: the call only prepares, so views without data are fine.
void check_argument(const Arg& a, std::size_t i, const std::string& param, bool describing) {
  if (a.kind() != Arg::Kind::tensor) return;
  const TensorView& v = a.view();
  // Named only on failure: this runs on every launch.
  auto who = [&] { return "argument " + std::to_string(i + 1) + " '" + param + "'"; };
  // A dtype and memory kind of their enums; extents become int64 in the
  // signature and index arithmetic: the size in bytes must have an int64
  // value (and so must every extent).
  if (std::string problem = detail::view_problem(v, !describing); !problem.empty())
    throw ArgumentError(who() + ": " + problem);
  for (std::size_t extent : v.shape)
    if (extent > static_cast<std::size_t>(INT64_MAX))
      throw ArgumentError(who() + ": " + v.str() + " has an extent past 2^63 - 1");
  if (!v.is_contiguous()) throw ArgumentError(who() + ": " + v.str() + " is not contiguous (row-major); pass a contiguous copy");
  if (reinterpret_cast<std::uintptr_t>(v.data) % dtype_size(v.dtype) != 0)
    throw ArgumentError(who() + ": data pointer " + std::to_string(reinterpret_cast<std::uintptr_t>(v.data)) +
                        " is not aligned to its " + std::to_string(dtype_size(v.dtype)) + "-byte elements");
}

// "f32 [1024] (device 0), int": how messages name a call's signature.
std::string describe_arguments(std::span<const Arg> args) {
  std::string out;
  for (const Arg& a : args) {
    if (!out.empty()) out += ", ";
    out += a.kind() == Arg::Kind::tensor    ? a.view().str()
           : a.kind() == Arg::Kind::integer ? "int"
           : a.kind() == Arg::Kind::stream  ? "stream"
                                            : "float";
  }
  return out;
}

// Throws instead of doing `what` (work that is not a kernel launch) while
// `stream` is being captured into a CUDA graph, which that work would break.
void refuse_during_capture(CUstream stream, int device, const std::string& kernel, const std::string& what,
                           const std::string& instead) {
  if (!jit::stream_capturing(stream, device)) return;
  throw CudaError("cuStreamIsCapturing", CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                  "`" + kernel + "`: " + what + " while the stream is being captured into a CUDA graph would break "
                  "the capture; " + instead);
}

// The caller's LaunchOptions::output must be exactly the result's tensor.
void check_output(const TensorView& out, DType dtype, const Shape& shape, MemoryKind memory, int device,
                  const std::string& kernel) {
  std::string who = "`" + kernel + "`: LaunchOptions::output " + out.str();
  detail::check_view(out, who, true);
  std::string want = std::string(dtype_name(dtype)) + " " + shape.str();
  if (out.dtype != dtype || !(out.shape == shape)) throw ArgumentError(who + " does not fit the result, " + want);
  if (out.memory != memory)
    throw ArgumentError(who + " must be in " + (memory == MemoryKind::host ? "host memory, as the arguments are"
                                                                            : "device memory, as the arguments are"));
  if (memory == MemoryKind::device && out.device != device)
    throw ArgumentError(who + " is not on the kernel's device " + std::to_string(device));
  if (out.data == nullptr && out.numel() > 0) throw ArgumentError(who + ": null data pointer");
  if (!out.is_contiguous()) throw ArgumentError(who + " is not contiguous (row-major)");
  if (reinterpret_cast<std::uintptr_t>(out.data) % dtype_size(out.dtype) != 0)
    throw ArgumentError(who + ": data pointer is not aligned to its " + std::to_string(dtype_size(out.dtype)) +
                        "-byte elements");
}

// Makes `to` wait for the work queued on `from` so far; the host does not wait.
void join_streams(CUstream from, CUstream to, int device) {
  jit::make_current(device);
  CUevent done = nullptr;
  CROQ_CU(cuEventCreate, &done, CU_EVENT_DISABLE_TIMING);
  CUresult r = jit::driver().cuEventRecord(done, from);
  if (r == CUDA_SUCCESS) r = jit::driver().cuStreamWaitEvent(to, done, 0);
  jit::driver().cuEventDestroy(done);  // released once the event completes
  jit::check(r, "cuStreamWaitEvent");
}

}  // namespace

namespace detail {

class KernelImpl {
 public:
  KernelImpl() : id(next_id.fetch_add(1)) {}
  // Tells kernels apart in the per-thread memo even when one is freed and
  // another allocated at the same address.
  const std::uint64_t id;
  static inline std::atomic<std::uint64_t> next_id{1};

  // The program, its entry, what sema proved and where dynamic dims are read.
  std::shared_ptr<const pipeline::CheckedProgram> checked;
  const frontend::ast::Function* function = nullptr;  // checked->function
  DynamicMask dynamic_mask;  // which argument dims are dynamic dims
  std::string function_key;  // the function in SpecializationHistory: source hash and name

  // What a call needs before anything runs: the arguments checked, the
  // device, whether host data is staged, and the signature's specialization.
  struct ResolvedCall {
    int device = 0;
    bool host_mode = false;
    std::shared_ptr<const Specialization> spec;
  };
  // `precompiling`: croq::precompile, which compiles despite CROQ_CACHE_REQUIRE_HIT.
  ResolvedCall resolve(std::span<const Arg> args, const LaunchOptions& options, bool describing,
                       bool precompiling = false);

  // Specializations by argument signature; a future so concurrent callers
  // of a new signature wait for one compile instead of starting their own.
  // A new signature is refused while `stream` is being captured.
  std::shared_ptr<const Specialization> specialization(std::string_view key, std::span<const Arg> args, int device,
                                                       CUstream stream, bool precompiling);

  KernelStats stats() const;

 private:
  // Generates and compiles (or finds) the specialization of `args`.
  std::shared_ptr<Specialization> build(std::span<const Arg> args, int device, bool precompiling);

  // Found without allocating: lookups take a std::string_view.
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
  };
  // Readers (calls of known signatures, from any thread and device) share
  // it; only a new signature takes it exclusively.
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::string, std::shared_future<std::shared_ptr<const Specialization>>, KeyHash,
                     std::equal_to<>>
      table_;
  std::vector<SpecializationStats> made_;  // in the order they were made
};

KernelStats KernelImpl::stats() const {
  KernelStats out;
  std::shared_lock<std::shared_mutex> lock(mutex_);
  for (const SpecializationStats& s : made_) out.add(s);
  return out;
}

std::shared_ptr<const Specialization> KernelImpl::specialization(std::string_view key, std::span<const Arg> args,
                                                                 int device, CUstream stream, bool precompiling) {
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
    std::shared_lock<std::shared_mutex> lock(mutex_);
    if (auto it = table_.find(key); it != table_.end()) existing = it->second;
  }
  if (!existing.valid()) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    auto it = table_.find(key);
    if (it != table_.end()) {
      existing = it->second;
    } else {
      refuse_during_capture(stream, device, function->name,
                            "compiling a new signature (" + describe_arguments(args) + ")",
                            "call prepare() with the same arguments before capturing");
      table_.emplace(std::string(key), promise.get_future().share());
    }
  }
  if (existing.valid()) {
    auto spec = existing.get();  // waits while another thread specializes
    memo = Memo{id, std::string(key), spec};
    return spec;
  }
  try {
    std::shared_ptr<const Specialization> done = build(args, device, precompiling);
    promise.set_value(done);
    memo = Memo{id, std::string(key), done};
    return done;
  } catch (...) {
    promise.set_exception(std::current_exception());
    std::unique_lock<std::shared_mutex> lock(mutex_);
    if (auto it = table_.find(key); it != table_.end()) table_.erase(it);
    throw;
  }
}

std::shared_ptr<Specialization> KernelImpl::build(std::span<const Arg> args, int device, bool precompiling) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<abi::ArgSignature> sig = signature_of(args, dynamic_mask);
  auto spec = std::make_shared<Specialization>();
  // The arch is fixed per device for this kernel (options, CROQ_ARCH or
  // the device), so the key's device separates the arches.
  const pipeline::TargetChoice target = pipeline::choose_target(checked->options.arch, device);
  const CompileOptions& options = checked->options;
  SpecializationRecord record{sig, target.target.arch, define_values(*checked->program), options.debug_line_info,
                              options.dynamic_dims};
  // Why this one is new: computed only for a compile (or a refused one).
  auto differences = [&] {
    return difference_reason(*function, record, SpecializationHistory::global().of(function_key));
  };
  pipeline::Built built;
  try {
    // Bound with the real extents, so messages show them rather than the
    // `?` that stands for a dynamic dim in `sig` (bind unbinds them again).
    built = pipeline::build(*checked, checked->options.dynamic_dims.empty() ? sig : signature_of(args, {}), target,
                            cache_hit_required() && !precompiling);
  } catch (const jit::CacheMiss& miss) {
    throw CacheError("CROQ_CACHE_REQUIRE_HIT=1: `" + function->name + "`(" + signature_text(sig) + ") for " +
                     record.arch + " is in no cache and would compile (" +
                     compile_reason(differences(), miss.notes()) + ")");
  }
  {
    for (std::size_t k = 0; k < built.generated.kernels.size(); ++k) {
      Specialization::Part part{std::move(built.generated.kernels[k]), std::move(built.compiled[k]), {},
                                image_source_of(built.lookups[k].source)};
      for (const abi::KernelParam& kp : part.generated.params)
        part.tensor_map_names.push_back(kp.kind != abi::KernelParam::Kind::tensor_map ? std::string()
                                        : kp.scratch >= 0 ? "a program buffer (" + kp.name + ")"
                                        : kp.argument < 0
                                            ? "the returned tensor (" + kp.name + ")"
                                            : "argument " + std::to_string(kp.argument + 1) + " '" +
                                                  function->params[kp.argument].name + "' (" + kp.name + ")");
      spec->parts.push_back(std::move(part));
    }
    spec->host = std::move(built.generated.host);
    if (!spec->parts.empty()) spec->program = spec->parts.front().generated;
    spec->program.argument_written.resize(args.size(), false);
    for (const Specialization::Part& part : spec->parts) {
      detail::take_fills(spec->program, part.generated);
      for (std::size_t i = 0; i < part.generated.argument_written.size(); ++i)
        if (part.generated.argument_written[i]) spec->program.argument_written[i] = true;
    }
  }
  const bool compiled = std::any_of(built.lookups.begin(), built.lookups.end(),
                                    [](const jit::JitLookup& l) { return l.source == jit::CacheSource::compiled; });
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  spec->stats = specialization_stats(record, built.lookups, compiled ? differences() : std::string(), ms);
  SpecializationHistory::global().add(function_key, std::move(record));
  if (explaining()) support::log().info("{}", explain_line(function->name, spec->stats));
  std::unique_lock<std::shared_mutex> lock(mutex_);
  made_.push_back(spec->stats);
  return spec;
}

}  // namespace detail


int device_count() {
  return detail::entry_point("croq::device_count", [] { return jit::driver_available() ? jit::device_count() : 0; });
}

namespace {
void check_ordinals(const char* entry, int a, int b) {
  for (int d : {a, b})
    if (d < 0) throw ArgumentError(std::string(entry) + ": device ordinal " + std::to_string(d) + " is negative");
}
}  // namespace

bool can_access_peer(int a, int b) {
  return detail::entry_point("croq::can_access_peer", [&] {
    check_ordinals("croq::can_access_peer", a, b);
    return jit::can_access_peer(a, b);
  });
}

void enable_peer_access(int a, int b) {
  detail::entry_point("croq::enable_peer_access", [&] {
    check_ordinals("croq::enable_peer_access", a, b);
    jit::enable_peer_access(a, b);
  });
}

bool cuda_available(std::string* why) {
  std::string reason;
  bool ok = jit::driver_available(&reason) && jit::device_count() > 0;
  if (!ok && reason.empty()) reason = "no CUDA device";
  if (why) *why = reason;
  return ok;
}

namespace detail {

KernelImpl::ResolvedCall KernelImpl::resolve(std::span<const Arg> args, const LaunchOptions& options,
                                             bool describing, bool precompiling) {
  const auto& params = function->params;
  for (std::size_t i = 0; i < args.size() && i < params.size(); ++i)
    check_argument(args[i], i, params[i].name, describing);

  if (options.device < -1)
    throw ArgumentError("croq::LaunchOptions::device " + std::to_string(options.device) +
                        " is neither -1 (the current device) nor a device ordinal");
  bool host_mode = false;
  int device = options.device;
  std::size_t device_from = args.size();  // the argument that chose the device, if one did
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].kind() == Arg::Kind::tensor) {
      if (args[i].view().memory == MemoryKind::host) host_mode = true;
      else if (device < 0) device = args[i].view().device, device_from = i;
    }
  if (device < 0) device = jit::current_device();
  // How messages name argument i (the arity is checked later, by bind).
  auto argument = [&](std::size_t i) {
    return "argument " + std::to_string(i + 1) + " '" + (i < params.size() ? params[i].name : std::string("?")) + "'";
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind() != Arg::Kind::tensor || args[i].view().memory != MemoryKind::device ||
        args[i].view().device == device)
      continue;
    const int there = args[i].view().device;
    const LaunchDevice launch{device, options.device >= 0          ? std::string("LaunchOptions::device")
                                      : device_from < args.size() ? "the device of " + argument(device_from)
                                                                  : std::string("the current device")};
    const std::string problem =
        device_argument_problem(argument(i), there, launch, options.peer_access, jit::peer_table().enabled(device, there));
    if (!problem.empty()) throw ArgumentError(problem);
  }

  // Every occurrence of a dynamic dim must agree (the key cannot check it).
  for (const auto& [name, where] : checked->dynamic_sources) {
    if (where.front().argument >= static_cast<int>(args.size())) break;  // arity is checked by bind
    const Arg& first = args[where.front().argument];
    if (first.kind() != Arg::Kind::tensor || first.view().shape.rank() <= where.front().dim) continue;
    std::int64_t value = first.view().shape[where.front().dim];
    for (const abi::DimSource& w : where) {
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
  append_signature_key(args, dynamic_mask, device, key);
  return ResolvedCall{device, host_mode, specialization(key.view(), args, device, options.stream, precompiling)};
}

}  // namespace detail

const std::string& Kernel::name() const {
  static const std::string empty;
  return impl_ ? impl_->function->name : empty;
}

Tensor Kernel::launch(std::span<const Arg> args, const LaunchOptions& options) const {
  if (!impl_) throw Error("croq::Kernel: calling an empty kernel (use croq::compile)");
  return detail::entry_point("croq::Kernel::launch", [&] { return launch_checked(args, options); });
}

Tensor Kernel::launch_checked(std::span<const Arg> args, const LaunchOptions& options) const {
  if (detail::interpreting(impl_->checked->options)) return detail::interpret_call(*impl_->checked, args, options);
  const auto call = impl_->resolve(args, options, false);
  const int device = call.device;
  const bool host_mode = call.host_mode;
  const auto& spec = call.spec;
  const abi::KernelAbi& gen = spec->program;
  const Shape result_shape = gen.has_output ? detail::result_shape_of(gen, args) : Shape();

  CUstream stream = options.stream;
  // Work other than the launch itself would break a CUDA graph capture.
  if (host_mode) refuse_during_capture(stream, device, name(), "copying host arguments", "pass device tensors");
  else if (gen.has_output && options.output == nullptr)
    refuse_during_capture(stream, device, name(), "allocating the result", "pass LaunchOptions::output");
  for (const auto& part : spec->parts)
    if (!jit::is_loaded(*part.compiled, device))
      refuse_during_capture(stream, device, name(), "loading the kernel's module",
                            "call prepare() with the same arguments before capturing");
  if (!gen.scratch.empty())
    refuse_during_capture(stream, device, name(), "allocating the program's global buffers", "call it outside the capture");
  if (!spec->host.launches_only)
    refuse_during_capture(stream, device, name(), "running a host program (its prints wait for the kernels)",
                          "call it outside the capture");
  const std::optional<DType> scalar = spec->host.result;  // a returned number: computed by the host program
  if (options.output != nullptr && !scalar) {
    if (!gen.has_output)
      throw ArgumentError("`" + name() + "`: LaunchOptions::output is given, but the function returns no tensor");
    check_output(*options.output, gen.output_dtype, result_shape,
                 host_mode ? MemoryKind::host : MemoryKind::device, device, name());
  }
  // Host data goes to the device for the call and written arguments come back.
  std::vector<Tensor> staged;
  if (host_mode) {
    jit::make_current(device);
    staged.resize(args.size());
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i].kind() == Arg::Kind::tensor && args[i].view().memory == MemoryKind::host)
        staged[i] = Tensor::copy_of(args[i].view(), MemoryKind::device, device);
  }
  // The result goes to the caller's output when given (staged through the
  // device for host arguments), else to a fresh device tensor.
  Tensor output;
  void* output_data = nullptr;
  if (gen.has_output) {
    if (options.output != nullptr && !host_mode) {
      output_data = options.output->data;
    } else {
      output = Tensor::empty(gen.output_dtype, result_shape, MemoryKind::device, device);
      output_data = output.data();
    }
    std::size_t bytes = result_shape.numel() * dtype_size(gen.output_dtype);
    if (!gen.output_fill.empty() && bytes > 0)
      detail::fill_device(reinterpret_cast<CUdeviceptr>(output_data), bytes, gen.output_fill, stream);
  }

  // The program's global buffers live for this call, in stream order.
  detail::ScratchBuffers scratch(gen.scratch, spec->scratch_pool, stream, device);
  // A kernel of `parallel<s>` launches on stream argument s; when the
  // stream changes, the next one waits for the last (the kernels keep their
  // order), and the call's stream waits for the last before the buffers go.
  CUstream current = stream;
  // A programmatic kernel (sm_90) overlaps its launch only with this call's
  // previous kernel on the same stream; the call's first kernel, and one
  // after a change of stream, waits in full for what came before it (fills,
  // copies, the caller's work, other streams' events).
  bool follows_own_kernel = false;
  auto launch_part = [&](const detail::Specialization::Part& part, std::span<const host::Value> host_scalars) {
    abi::LaunchConfig launch = detail::launch_config_of(part.generated, args, name(), host_scalars);
    detail::LaunchArgs parameters(part.generated, args, staged, part.tensor_map_names, output_data, scratch.pointers(),
                                  host_scalars);
    const CUstream on = part.generated.stream_argument >= 0
                            ? args[static_cast<std::size_t>(part.generated.stream_argument)].stream()
                            : stream;
    if (on != current) {
      join_streams(current, on, device);
      follows_own_kernel = false;
    }
    current = on;
    launch.programmatic = launch.programmatic && follows_own_kernel;
    // An empty grid (a dynamic dim of 0) has nothing to do.
    if (launch.grid[0] > 0) {
      jit::launch(*part.compiled, launch, parameters.pointers(), on, device);
      follows_own_kernel = true;
    }
  };
  std::optional<host::Value> returned;
  if (spec->host.launches_only) {
    for (const auto& part : spec->parts) launch_part(part, {});
  } else {
    // A host program: its statements run here, in order with the launches;
    // a print waits for the kernels before it (and their printf output).
    bool launched = false;
    host::Hooks hooks = detail::host_hooks(args, name());
    hooks.launch = [&](int kernel, std::span<const host::Value> slots) {
      launch_part(spec->parts[static_cast<std::size_t>(kernel)], slots);
      launched = true;
    };
    hooks.print = [&](std::string_view text) {
      if (launched) CROQ_CU(cuStreamSynchronize, current);
      launched = false;
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fflush(stdout);
    };
    returned = host::run(spec->host, hooks);
  }
  if (current != stream) join_streams(current, stream, device);
  if (scalar) {
    // The number is the host's, ready now; the kernels' writes are complete
    // when the call returns for host arguments, in stream order otherwise.
    if (host_mode) {
      CROQ_CU(cuStreamSynchronize, stream);
      for (std::size_t i = 0; i < args.size(); ++i)
        if (staged[i].defined() && gen.argument_written[i]) staged[i].copy_to(args[i].view());
    }
    return detail::scalar_result(*returned, *scalar, options, name());
  }

  if (!host_mode) return output;
  CROQ_CU(cuStreamSynchronize, stream);
  for (std::size_t i = 0; i < args.size(); ++i)
    if (staged[i].defined() && gen.argument_written[i]) staged[i].copy_to(args[i].view());
  if (!gen.has_output) return Tensor();
  if (options.output == nullptr) return output.to_host();
  output.copy_to(*options.output);
  return Tensor();
}

CallInfo Kernel::prepare(std::span<const Arg> args, const LaunchOptions& options) const {
  if (!impl_) throw Error("croq::Kernel: preparing an empty kernel (use croq::compile)");
  return detail::entry_point("croq::Kernel::prepare", [&] { return prepare_checked(args, options); });
}

CallInfo Kernel::prepare_checked(std::span<const Arg> args, const LaunchOptions& options) const {
  const auto call = impl_->resolve(args, options, true);
  const abi::KernelAbi& gen = call.spec->program;
  if (jit::driver_available() && call.device < jit::device_count()) {
    for (const auto& part : call.spec->parts)
      if (!jit::is_loaded(*part.compiled, call.device))
        refuse_during_capture(options.stream, call.device, name(), "loading the kernel's module",
                              "call prepare() before capturing");
    jit::make_current(call.device);
    for (const auto& part : call.spec->parts) jit::prepare_function(*part.compiled, part.generated.launch, call.device);
  }
  CallInfo info;
  if (call.spec->host.result) {  // a returned number: a rank-0 host tensor
    info.has_result = true;
    info.result_dtype = *call.spec->host.result;
  }
  info.has_result = info.has_result || gen.has_output;
  if (gen.has_output) {
    info.result_dtype = gen.output_dtype;
    info.result_shape = detail::result_shape_of(gen, args);
    for (std::size_t d = 0; d < gen.output_shape.size(); ++d)
      info.result_extent_sources.push_back(gen.output_shape[d] < 0 ? std::pair{gen.output_dim_sources[d].argument,
                                                                               gen.output_dim_sources[d].dim}
                                                                    : std::pair{-1, -1});
  }
  info.argument_written = gen.argument_written;
  return info;
}

std::vector<ParamInfo> Kernel::params() const {
  std::vector<ParamInfo> out;
  if (!impl_) return out;
  for (std::size_t i = 0; i < impl_->function->params.size(); ++i) {
    const frontend::ast::Parameter& p = impl_->function->params[i];
    ParamInfo info;
    info.name = p.name;
    info.is_tensor = p.type.has_shape;
    info.type = p.type.name;
    info.rank = static_cast<int>(p.type.shape.size());
    for (int d = 0; info.is_tensor && d < info.rank; ++d) info.dynamic.push_back(is_dynamic(impl_->dynamic_mask, i, d));
    out.push_back(std::move(info));
  }
  return out;
}

bool Kernel::returns_tensor() const {
  return impl_ && (frontend::ast::returned_tensor_type(*impl_->function) != nullptr ||
                   frontend::ast::returned_scalar(*impl_->function) != nullptr);
}

KernelStats Kernel::stats() const { return impl_ ? impl_->stats() : KernelStats{}; }

KernelInfo Kernel::info(std::span<const Arg> args, const LaunchOptions& options) const {
  if (!impl_) throw Error("croq::Kernel: describing an empty kernel (use croq::compile)");
  return detail::entry_point("croq::Kernel::info", [&] {
    const auto call = impl_->resolve(args, options, true);
    return detail::specialization_info(*call.spec, args, call.device, name());
  });
}

KernelStats precompile(std::string_view source, const CompileOptions& options,
                       std::span<const std::vector<Arg>> signatures, std::span<const std::string> archs) {
  return detail::entry_point("croq::precompile", [&] {
    std::vector<std::string> targets(archs.begin(), archs.end());
    if (targets.empty()) targets.push_back(options.arch);
    KernelStats out;
    for (const std::string& arch : targets) {
      CompileOptions for_arch = options;
      for_arch.arch = arch;
      Kernel kernel = compile(source, for_arch);
      // prepare() without loading: the arch need not be the device's.
      for (const std::vector<Arg>& args : signatures) kernel.impl_->resolve(args, LaunchOptions{}, true, true);
      KernelStats made = kernel.stats();
      for (SpecializationStats& s : made.specializations) out.add(std::move(s));
    }
    return out;
  });
}

namespace detail {

Kernel compile_checked(std::string_view source, const CompileOptions& options) {
  auto impl = std::make_shared<detail::KernelImpl>();
  // Every shape-independent error now, before any call; the arch rules too
  // when the options name the arch (else they wait for the device's).
  impl->checked = pipeline::check(source, options);
  impl->function = impl->checked->function;
  impl->function_key = impl->checked->source_hash + ":" + impl->function->name;
  impl->dynamic_mask.assign(impl->function->params.size(), 0);
  for (const auto& [name, where] : impl->checked->dynamic_sources)
    for (const abi::DimSource& w : where)
      if (w.dim < 32) impl->dynamic_mask[w.argument] |= 1u << w.dim;
  return Kernel(std::move(impl));
}

}  // namespace detail

Kernel compile(std::string_view source, const CompileOptions& options) {
  return detail::entry_point("croq::compile", [&] { return detail::compile_checked(source, options); });
}

}  // namespace croq
