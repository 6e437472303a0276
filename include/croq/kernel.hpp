// croq::compile and croq::Kernel: the entry points of libcroqjit.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "croq/info.hpp"
#include "croq/options.hpp"
#include "croq/spandata.hpp"
#include "croq/stats.hpp"
#include "croq/tensor.hpp"

namespace croq {

// One argument of a kernel call: a tensor (host or device view), a scalar,
// or a CUDA stream (for a `stream` parameter: the parallel statements that
// name it, `parallel<s>`, launch on it).
class Arg {
 public:
  enum class Kind : std::uint8_t { tensor, integer, floating, stream };

  Arg(const TensorView& v) : kind_(Kind::tensor), view_(v) {}  // NOLINT
  Arg(const Tensor& t) : kind_(Kind::tensor), view_(t.view()) {}  // NOLINT
  template <typename T>
  Arg(spandata<T>& s) : kind_(Kind::tensor), view_(s.view()) {}  // NOLINT
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
  Arg(T v, int = 0) : kind_(Kind::integer), integer_(static_cast<std::int64_t>(v)) {}  // NOLINT
  template <typename T, typename = std::enable_if_t<std::is_floating_point_v<T>>>
  Arg(T v, long = 0) : kind_(Kind::floating), floating_(static_cast<double>(v)) {}  // NOLINT
  Arg(CUstream_st* s) : kind_(Kind::stream), stream_(s) {}  // NOLINT: cudaStream_t / CUstream

  Kind kind() const { return kind_; }
  CUstream_st* stream() const { return stream_; }
  const TensorView& view() const { return view_; }
  std::int64_t integer() const { return integer_; }
  double floating() const { return floating_; }

 private:
  Kind kind_;
  TensorView view_{};
  std::int64_t integer_ = 0;
  double floating_ = 0;
  CUstream_st* stream_ = nullptr;
};

// A parameter of the __co__ function, as declared.
struct ParamInfo {
  std::string name;
  bool is_tensor = false;
  std::string type;           // element or scalar type as written: "f32", "int"
  int rank = 0;               // tensors: number of dims
  std::vector<bool> dynamic;  // tensors, per dim: one of CompileOptions::dynamic_dims
};

// What a call with a given argument signature does (Kernel::prepare).
struct CallInfo {
  bool has_result = false;
  DType result_dtype = DType::f32;
  Shape result_shape;  // dynamic dims take their values from the arguments
  // Per result dim: {argument, dim} whose extent it is when it is a dynamic
  // dim, else {-1, -1} (a constant of the specialization).
  std::vector<std::pair<int, int>> result_extent_sources;
  std::vector<bool> argument_written;  // per argument: the kernel stores into it
};

namespace detail { class KernelImpl; }
class Kernel;

// Fills the kernel caches ahead of time, with no GPU needed: compiles (or
// finds) `source`'s function for each argument signature and each arch, as
// the first call with those arguments would, without loading anything.
// A signature is a call's arguments as prepare() takes them: tensor views
// whose data may be null (TensorView::contiguous(nullptr, dtype, shape);
// their pointers are taken to be 16-byte aligned, as allocators give) and
// scalars. `archs` empty: options.arch (else CROQ_ARCH, the device's, or
// sm_90a). `options` must be the application's, source_name included: the
// generated code names the source, and the cache keys cover the code. Later processes sharing the cache directory (or a bundle of it,
// `croq-cache export`) then start warm. Ignores CROQ_CACHE_REQUIRE_HIT.
// Returns one SpecializationStats per (arch, signature), archs outermost.
// Throws the first error (CompileError, ArgumentError); what was compiled
// before it stays cached.
KernelStats precompile(std::string_view source, const CompileOptions& options,
                       std::span<const std::vector<Arg>> signatures, std::span<const std::string> archs = {});

// A compiled Croqtile function. Calling it specializes the function for the
// arguments' dtypes and shapes (compiling once per signature, cached in
// memory and on disk) and launches it. Copies share the same state; calls
// are thread-safe.
class Kernel {
 public:
  Kernel() = default;
  explicit Kernel(std::shared_ptr<detail::KernelImpl> impl) : impl_(std::move(impl)) {}

  // k(lhs.view(), rhs.view()): synchronous for host arguments (inputs copied
  // in, the result copied back); asynchronous on the default stream for
  // device tensors. Returns the function's result, or an empty Tensor.
  template <typename... Args>
  Tensor operator()(Args&&... args) const {
    std::array<Arg, sizeof...(Args)> packed{Arg(std::forward<Args>(args))...};
    return launch(std::span<const Arg>(packed.data(), packed.size()), LaunchOptions{});
  }
  Tensor launch(std::span<const Arg> args, const LaunchOptions& options = {}) const;

  // Checks the arguments, specializes and compiles for their signature and
  // loads the kernel on the device, without launching: a later launch with
  // the same signature only enqueues (as CUDA graph capture needs). Tensor
  // views may have no data (data == nullptr) when only their dtype and shape
  // matter. Without a CUDA device it compiles and does not load.
  CallInfo prepare(std::span<const Arg> args, const LaunchOptions& options = {}) const;

  bool valid() const { return impl_ != nullptr; }
  const std::string& name() const;  // the __co__ function's name
  std::vector<ParamInfo> params() const;
  bool returns_tensor() const;  // whether calls return a result tensor

  // Its specializations so far: where each one's images came from (memory,
  // disk, remote, compiled), why each compile happened, and the totals.
  KernelStats stats() const;

  // What the kernels of the specialization for these arguments use
  // (<croq/info.hpp>): specializes and compiles as prepare() does (views
  // without data are fine); with a CUDA device it loads them and reads the
  // driver's figures and occupancy, else ptxas's report of the compile.
  KernelInfo info(std::span<const Arg> args = {}, const LaunchOptions& options = {}) const;
  template <typename... Args>
    requires(sizeof...(Args) > 0 && (std::is_constructible_v<Arg, Args &&> && ...))
  KernelInfo info(Args&&... args) const {
    std::array<Arg, sizeof...(Args)> packed{Arg(std::forward<Args>(args))...};
    return info(std::span<const Arg>(packed.data(), packed.size()), LaunchOptions{});
  }

 private:
  Tensor launch_checked(std::span<const Arg> args, const LaunchOptions& options) const;
  CallInfo prepare_checked(std::span<const Arg> args, const LaunchOptions& options) const;

  friend KernelStats precompile(std::string_view, const CompileOptions&, std::span<const std::vector<Arg>>,
                                std::span<const std::string>);
  std::shared_ptr<detail::KernelImpl> impl_;
};

// Whether a CUDA driver and at least one device are present (kernels can
// run); `why` gets the reason when not. compile() works either way.
bool cuda_available(std::string* why = nullptr);

// Parses and checks Croqtile source text. Throws CompileError with
// diagnostics (line:column and a caret) when the source is not valid.
// Like every function of this header it throws croq::Errors only:
// ArgumentError for inputs it cannot take (a dtype outside DType, null
// data, sizes past 64 bits), Error when host memory runs out.
Kernel compile(std::string_view source, const CompileOptions& options = {});

}  // namespace croq
