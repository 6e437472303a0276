#include "codegen/signature_check.hpp"

namespace croq::codegen {

void check_argument_extents(const frontend::ast::Program& program, const frontend::ast::Function& fn,
                            const std::vector<ArgSignature>& args, const std::vector<std::string>& dynamic_dims) {
  std::vector<abi::ArgSignature> signature;
  for (const ArgSignature& a : args) signature.push_back({a.is_tensor, a.dtype, a.shape, a.is_integer, a.align_bytes});
  bind::check_argument_extents(program, fn, signature, dynamic_dims);
}

}  // namespace croq::codegen
