// Croqtile function + concrete argument signature -> self-contained CUDA C++.
//
// Codegen is a walk over the AST of one __co__ function with every symbolic
// dim bound to a number (the specialization). Shapes, tile extents and
// parallel counts are therefore compile-time constants in the emitted code;
// only indices are runtime values. The exception is a dynamic dim
// (CompileOptions::dynamic_dims): it stays a kernel parameter, so one cubin
// serves every value; it may size the grid, bound loops and guard tails, but
// anything that needs a constant (tile extents, chunkat, local shapes) is a
// CompileError naming it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
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
  std::vector<std::int64_t> shape;  // -1: a dynamic dim, known only at launch
  bool is_integer = false;  // scalars: integer or floating
  // Tensors: the largest power of two (at most 16) dividing the data
  // pointer's address, as the kernel will see it. Part of the signature so
  // a misaligned pointer gets a variant without 16-byte vector accesses.
  int align_bytes = 16;
  friend bool operator==(const ArgSignature&, const ArgSignature&) = default;
};

// Where a dynamic dim's value is read at launch: extent `dim` of call
// argument `argument` (argument -1: not dynamic).
struct DimSource {
  int argument = -1;
  int dim = -1;
  friend bool operator==(const DimSource&, const DimSource&) = default;
};

// One parameter of the generated __global__ function, in order.
struct KernelParam {
  enum class Kind { tensor, output, integer, floating, dim, tensor_map } kind = Kind::tensor;
  int argument = -1;  // which call argument (-1 for the output)
  std::string name;
  DimSource dim;      // Kind::dim: the dynamic dim's value (a long long)
  // Kind::tensor_map: a TMA descriptor of argument `argument`, encoded at
  // launch from the real tensor with this box (outermost first) and swizzle
  // span in bytes; `name` says where it is used, for messages.
  std::vector<std::uint32_t> box;
  int swizzle_bytes = 0;
};

// A grid whose size depends on dynamic dims: blocks =
// cdiv(factor * prod(terms), per_block), each term cdiv(dim, divisor) or
// dim / divisor. No terms: LaunchConfig::grid is the whole story.
struct RuntimeGrid {
  struct Term {
    DimSource source;
    std::int64_t divisor = 1;
    bool ceil = false;
  };
  std::int64_t factor = 1;
  std::int64_t per_block = 1;
  std::vector<Term> terms;
  // The kernel loops over block indices (grid-stride), so a launch of up to
  // 2^31 - 1 blocks covers any count; otherwise more blocks than a grid
  // holds is an error at launch.
  bool grid_stride = false;
  bool dynamic() const { return !terms.empty(); }
};

struct GeneratedKernel {
  std::string cuda_source;
  std::string entry;
  jit::LaunchConfig launch;
  std::vector<KernelParam> params;
  bool has_output = false;
  DType output_dtype = DType::f32;
  std::vector<std::int64_t> output_shape;      // -1 where a dynamic dim goes
  std::vector<DimSource> output_dim_sources;   // per output dim, for the -1 entries
  RuntimeGrid runtime_grid;
  bool output_needs_zero = false;       // the body reads the output before writing it
  std::vector<bool> argument_written;   // per call argument: the kernel stores into it
  std::vector<Diagnostic> warnings;
  // Set when the kernel uses Hopper-only instructions (TMA, WGMMA): the
  // error to raise when compiling for an older architecture. (Generated for
  // a target below 90, mma lowers to mma.sync and does not set it.)
  std::optional<Diagnostic> needs_sm90;
};

// What codegen compiles for: the arch number and whether the target has the
// sm_90a feature set (WGMMA, setmaxnreg). A bare number is that arch with
// WGMMA exactly when it is 90 (the default, sm_90a).
struct Target {
  int sm = 90;
  bool wgmma = true;
  Target() = default;
  Target(int sm_number) : sm(sm_number), wgmma(sm_number == 90) {}  // NOLINT: implicit on purpose
  Target(int sm_number, bool has_wgmma) : sm(sm_number), wgmma(has_wgmma) {}
};

// The codegen target of a well-formed architecture name (sm_XY[a|f] or
// compute_XY[a|f], see jit::validate_arch).
Target target_of_arch(const std::string& arch);

// generate_cuda for the resolved architecture name `arch` (what the
// CompileOptions / --arch asked for, after jit::resolve_arch): a malformed
// or unsupported name is jit::validate_arch's CompileError, and a kernel
// that needs sm_90 compiled for an older arch is needs_sm90's error with
// " (compiling for ARCH)" appended.
GeneratedKernel generate_cuda_for_arch(const frontend::ast::Program& program, const frontend::ast::Function& fn,
                                       const std::vector<ArgSignature>& args, int max_shared_bytes,
                                       const std::vector<std::string>& dynamic_dims, const std::string& arch);

// Binds symbolic dims from the arguments and checks literal dims; throws
// ArgumentError naming the argument and both shapes.
// Extents given as -1 in `args` are dynamic dims and stay unbound.
std::map<std::string, std::int64_t> bind_dims(const frontend::ast::Program& program,
                                              const frontend::ast::Function& fn,
                                              const std::vector<ArgSignature>& args);

// Throws CompileError (with locations) for constructs it cannot lower or
// that do not check against the bound shapes.
// `dynamic_dims` names the symbolic dims that stay runtime parameters; their
// extents are -1 in `args`.
// `target` is the architecture compiled for (target_of_arch): its number
// (90 for sm_90a, 80 for sm_80 or compute_80) and whether it has WGMMA and
// setmaxnreg (sm_90a and compute_90a only). With WGMMA the mma.* statements
// lower to it; on every other target from 80 (sm_80..sm_89, sm_90 without
// the 'a', sm_100, sm_120, ...) to mma.sync m16n8k16 with the same meaning.
// Below 90 the Hopper-only constructs (tma.copy, clusters) set needs_sm90;
// below 80 mma and events are a CompileError.
GeneratedKernel generate_cuda(const frontend::ast::Program& program, const frontend::ast::Function& fn,
                              const std::vector<ArgSignature>& args, int max_shared_bytes,
                              const std::vector<std::string>& dynamic_dims = {}, Target target = {});

// Where each dynamic dim is read at launch (its first occurrence among the
// tensor parameters), and every occurrence (for the consistency check).
// Throws CompileError when a name is not a symbolic dim of a tensor parameter.
std::map<std::string, std::vector<DimSource>> dynamic_dim_sources(const frontend::ast::Program& program,
                                                                 const frontend::ast::Function& fn,
                                                                 const std::vector<std::string>& dynamic_dims);

}  // namespace croq::codegen
