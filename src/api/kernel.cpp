// croq::compile and croq::Kernel: parse once, specialize per argument
// signature (codegen + jit, cached), then pack arguments and launch.
#include "croq/kernel.hpp"

#include <cstring>
#include <future>
#include <mutex>
#include <unordered_map>

#include "codegen/kernel_codegen.hpp"
#include "croq/error.hpp"
#include "frontend/frontend.hpp"
#include "jit/driver.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/launcher.hpp"
#include "support/hash.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace croq {
namespace detail {

struct Specialization {
  codegen::GeneratedKernel generated;
  std::shared_ptr<const jit::CompiledKernel> compiled;
};

class KernelImpl {
 public:
  std::unique_ptr<frontend::ast::Program> program;
  const frontend::ast::Function* function = nullptr;
  CompileOptions options;
  std::string source_hash;

  // Specializations by argument signature; a future so concurrent callers
  // of a new signature wait for one compile instead of starting their own.
  std::shared_ptr<const Specialization> specialization(const std::string& key,
                                                       const std::vector<codegen::ArgSignature>& sig, int device);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_future<std::shared_ptr<const Specialization>>> table_;
};

std::shared_ptr<const Specialization> KernelImpl::specialization(const std::string& key,
                                                                 const std::vector<codegen::ArgSignature>& sig,
                                                                 int device) {
  std::promise<std::shared_ptr<const Specialization>> promise;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = table_.find(key);
    if (it != table_.end()) {
      auto future = it->second;
      lock.unlock();
      return future.get();
    }
    table_.emplace(key, promise.get_future().share());
  }
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
    spec->generated = codegen::generate_cuda(*program, *function, sig, max_shared);
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
    std::shared_ptr<const Specialization> done = spec;
    promise.set_value(done);
    return done;
  } catch (...) {
    promise.set_exception(std::current_exception());
    std::lock_guard<std::mutex> lock(mutex_);
    table_.erase(key);
    throw;
  }
}

}  // namespace detail

namespace {

// The signature key: dtype and shape of every tensor, kind of every scalar,
// and the device (its architecture picks the cubin).
std::string signature_key(std::span<const Arg> args, int device, std::vector<codegen::ArgSignature>* sig) {
  std::string key;
  key.reserve(8 + args.size() * 24);
  key.append(reinterpret_cast<const char*>(&device), sizeof device);
  for (const Arg& a : args) {
    codegen::ArgSignature s;
    if (a.kind() == Arg::Kind::tensor) {
      const TensorView& v = a.view();
      s.dtype = v.dtype;
      key.push_back('t');
      key.push_back(static_cast<char>(v.dtype));
      for (int d = 0; d < v.shape.rank(); ++d) {
        auto extent = static_cast<std::int64_t>(v.shape[d]);
        key.append(reinterpret_cast<const char*>(&extent), sizeof extent);
        s.shape.push_back(extent);
      }
    } else {
      s.is_tensor = false;
      s.is_integer = a.kind() == Arg::Kind::integer;
      key.push_back(s.is_integer ? 'i' : 'f');
    }
    key.push_back(';');
    if (sig) sig->push_back(std::move(s));
  }
  return key;
}

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

  std::vector<codegen::ArgSignature> sig;
  std::string key = signature_key(args, device, &sig);
  auto spec = impl_->specialization(key, sig, device);
  const codegen::GeneratedKernel& gen = spec->generated;

  jit::make_current(device);
  CUstream stream = options.stream;
  // Host data goes to the device for the call and written arguments come back.
  std::vector<Tensor> staged(args.size());
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].kind() == Arg::Kind::tensor && args[i].view().memory == MemoryKind::host)
      staged[i] = Tensor::copy_of(args[i].view(), MemoryKind::device, device);
  Tensor output;
  if (gen.has_output) {
    Shape shape(gen.output_shape.begin(), gen.output_shape.end());
    output = Tensor::empty(gen.output_dtype, shape, MemoryKind::device, device);
    if (gen.output_needs_zero)
      CROQ_CU(cuMemsetD8Async, reinterpret_cast<CUdeviceptr>(output.data()), 0, output.bytes(), stream);
  }

  // Parameter values live in `slots`; the driver reads them through `pointers`.
  std::vector<std::uint64_t> slots(gen.params.size());
  std::vector<void*> pointers(gen.params.size());
  for (std::size_t p = 0; p < gen.params.size(); ++p) {
    const codegen::KernelParam& kp = gen.params[p];
    std::uint64_t bits = 0;
    if (kp.kind == codegen::KernelParam::Kind::output) {
      bits = reinterpret_cast<std::uint64_t>(output.data());
    } else {
      const Arg& a = args[kp.argument];
      if (kp.kind == codegen::KernelParam::Kind::tensor) {
        void* ptr = staged[kp.argument].defined() ? staged[kp.argument].data() : a.view().data;
        bits = reinterpret_cast<std::uint64_t>(ptr);
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
  jit::launch(*spec->compiled, gen.launch, pointers.data(), stream, device);

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
  if (!options.dynamic_dims.empty())
    throw CompileError({Diagnostic{Severity::error, "dynamic dims (CompileOptions::dynamic_dims) are not supported yet",
                                   0, 0, 1, ""}},
                       std::string(source), options.source_name);
  support::Hasher128 h;
  h.field(source);
  impl->source_hash = h.digest().hex();
  return Kernel(std::move(impl));
}

}  // namespace croq
