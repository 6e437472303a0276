// croq::compile and croq::Kernel: the entry points of libcroqjit.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "croq/options.hpp"
#include "croq/spandata.hpp"
#include "croq/tensor.hpp"

namespace croq {

// One argument of a kernel call: a tensor (host or device view) or a scalar.
class Arg {
 public:
  enum class Kind : std::uint8_t { tensor, integer, floating };

  Arg(const TensorView& v) : kind_(Kind::tensor), view_(v) {}  // NOLINT
  Arg(const Tensor& t) : kind_(Kind::tensor), view_(t.view()) {}  // NOLINT
  template <typename T>
  Arg(spandata<T>& s) : kind_(Kind::tensor), view_(s.view()) {}  // NOLINT
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
  Arg(T v, int = 0) : kind_(Kind::integer), integer_(static_cast<std::int64_t>(v)) {}  // NOLINT
  template <typename T, typename = std::enable_if_t<std::is_floating_point_v<T>>>
  Arg(T v, long = 0) : kind_(Kind::floating), floating_(static_cast<double>(v)) {}  // NOLINT

  Kind kind() const { return kind_; }
  const TensorView& view() const { return view_; }
  std::int64_t integer() const { return integer_; }
  double floating() const { return floating_; }

 private:
  Kind kind_;
  TensorView view_{};
  std::int64_t integer_ = 0;
  double floating_ = 0;
};

namespace detail { class KernelImpl; }

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

  bool valid() const { return impl_ != nullptr; }
  const std::string& name() const;  // the __co__ function's name

 private:
  std::shared_ptr<detail::KernelImpl> impl_;
};

// Whether a CUDA driver and at least one device are present (kernels can
// run); `why` gets the reason when not. compile() works either way.
bool cuda_available(std::string* why = nullptr);

// Parses and checks Croqtile source text. Throws CompileError with
// diagnostics (line:column and a caret) when the source is not valid.
Kernel compile(std::string_view source, const CompileOptions& options = {});

}  // namespace croq
