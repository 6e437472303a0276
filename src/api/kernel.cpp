// croq::compile and croq::Kernel.
#include "croq/kernel.hpp"

#include "croq/error.hpp"

namespace croq {
namespace detail {
class KernelImpl {
 public:
  std::string name;
};
}  // namespace detail

const std::string& Kernel::name() const {
  static const std::string empty;
  return impl_ ? impl_->name : empty;
}

Tensor Kernel::launch(std::span<const Arg>, const LaunchOptions&) const {
  if (!impl_) throw Error("croq::Kernel: calling an empty kernel (use croq::compile)");
  throw Error("croq::Kernel: launching Croqtile functions is not implemented yet");
}

Kernel compile(std::string_view source, const CompileOptions& options) {
  throw CompileError({Diagnostic{Severity::error,
                                 "Croqtile compilation is not implemented yet in this build", 0, 0, 1, ""}},
                     std::string(source), options.source_name);
}

}  // namespace croq
