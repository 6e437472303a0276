// Croqtile function + concrete argument signature -> self-contained CUDA C++.
//
// Codegen is a walk over the AST of one __co__ function with every symbolic
// dim bound to a number (the specialization). Shapes, tile extents and
// parallel counts are therefore compile-time constants in the emitted code;
// only indices are runtime values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "croq/dtype.hpp"
#include "croq/error.hpp"
#include "frontend/ast.hpp"
#include "jit/compiled_kernel.hpp"

namespace croq::codegen {

// One argument as the call site saw it.
struct ArgSignature {
  bool is_tensor = true;
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;
  bool is_integer = false;  // scalars: integer or floating
  // Tensors: the largest power of two (at most 16) dividing the data
  // pointer's address, as the kernel will see it. Part of the signature so
  // a misaligned pointer gets a variant without 16-byte vector accesses.
  int align_bytes = 16;
  friend bool operator==(const ArgSignature&, const ArgSignature&) = default;
};

// One parameter of the generated __global__ function, in order.
struct KernelParam {
  enum class Kind { tensor, output, integer, floating } kind = Kind::tensor;
  int argument = -1;  // which call argument (-1 for the output)
  std::string name;
};

struct GeneratedKernel {
  std::string cuda_source;
  std::string entry;
  jit::LaunchConfig launch;
  std::vector<KernelParam> params;
  bool has_output = false;
  DType output_dtype = DType::f32;
  std::vector<std::int64_t> output_shape;
  bool output_needs_zero = false;       // the body reads the output before writing it
  std::vector<bool> argument_written;   // per call argument: the kernel stores into it
  std::vector<Diagnostic> warnings;
};

// Binds symbolic dims from the arguments and checks literal dims; throws
// ArgumentError naming the argument and both shapes.
std::map<std::string, std::int64_t> bind_dims(const frontend::ast::Program& program,
                                              const frontend::ast::Function& fn,
                                              const std::vector<ArgSignature>& args);

// Throws CompileError (with locations) for constructs it cannot lower or
// that do not check against the bound shapes.
GeneratedKernel generate_cuda(const frontend::ast::Program& program, const frontend::ast::Function& fn,
                              const std::vector<ArgSignature>& args, int max_shared_bytes);

}  // namespace croq::codegen
