// The kernel ABI: how a call's arguments become the parameters of a
// generated __global__ function and its launch shape. Lowering produces it,
// the runtime consumes it; both sides agree on nothing else. Plain data, so
// every layer may include it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "croq/dtype.hpp"

namespace croq::abi {

// One argument as the call site saw it (the specialization signature).
struct ArgSignature {
  bool is_tensor = true;
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;  // -1: a dynamic dim, known only at launch
  bool is_integer = false;  // scalars: integer or floating
  bool is_stream = false;   // a CUDA stream (is_tensor false)
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
  enum class Kind { tensor, output, integer, floating, dim, tensor_map, scratch } kind = Kind::tensor;
  int argument = -1;  // which call argument (-1 for the output); Kind::scratch: which KernelAbi::scratch
  std::string name;
  DimSource dim;      // Kind::dim: the dynamic dim's value (a long long)
  // Kind::tensor_map: a TMA descriptor of argument `argument` (-1: the
  // returned tensor, allocated before the descriptors are encoded; or, with
  // `scratch` >= 0, program buffer `scratch` of KernelAbi::scratch), encoded
  // at launch from the real tensor with this box (outermost first) and
  // swizzle span in bytes; `name` says where it is used, for messages.
  std::vector<std::uint32_t> box;
  int swizzle_bytes = 0;
  int scratch = -1;
  // Kind::integer / Kind::floating of a host program's kernel: the value
  // host scalar `host_slot` has at the launch (host/host_program.hpp), not
  // an argument's.
  int host_slot = -1;
};

// A parallel count known only at launch, computed from the kernel's integer
// parameters (scalar arguments, a host program's scalars, dynamic dims): a
// postfix program in 64-bit integers, with C++'s division, remainder,
// comparisons (0 or 1) and conversions to 32 bits.
struct LaunchCount {
  struct Op {
    enum class Kind {
      constant, param,                       // push `value`; push KernelAbi::params[value]'s value
      neg, to_s32, to_u32, to_bool,          // on the top value
      add, sub, mul, div, mod, min, max,     // on the two top values (the first pushed is the left operand)
      less, less_equal, equal, not_equal,
      select                                 // condition, then, else
    } kind = Kind::constant;
    std::int64_t value = 0;
    friend bool operator==(const Op&, const Op&) = default;
  };
  std::vector<Op> ops;
  std::string text;  // the count as the source writes it, for messages
};

// A grid whose size depends on dynamic dims or counts computed at launch:
// blocks = cdiv(factor * prod(terms) * prod(counts), per_block), each term
// cdiv(dim, divisor) or dim / divisor. No terms and no counts:
// LaunchConfig::grid is the whole story.
struct RuntimeGrid {
  struct Term {
    DimSource source;
    std::int64_t divisor = 1;
    bool ceil = false;
  };
  std::int64_t factor = 1;
  std::int64_t per_block = 1;
  std::vector<Term> terms;
  std::vector<LaunchCount> counts;
  // The kernel loops over block indices (grid-stride), so a launch of up to
  // 2^31 - 1 blocks covers any count; otherwise more blocks than a grid
  // holds is an error at launch.
  bool grid_stride = false;
  bool dynamic() const { return !terms.empty() || !counts.empty(); }
};

// Grid, block, dynamic shared memory and (optional) cluster shape.
struct LaunchConfig {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  unsigned shared_bytes = 0;               // dynamic shared memory per block
  std::array<unsigned, 3> cluster{0, 0, 0};  // all zero: no cluster launch
  bool cooperative = false;  // every block resident at once (grid barriers)
  // The kernel starts with griddepcontrol: it lets the next kernel of its
  // stream launch early and waits for the previous one's results, so it is
  // launched with programmatic stream serialization (sm_90, not cooperative).
  bool programmatic = false;
  bool has_cluster() const { return cluster[0] * cluster[1] * cluster[2] != 0; }
};

// Everything the runtime needs to launch one generated kernel.
// A `global` tensor declared at function scope that is not returned: device
// memory the runtime allocates for one call (stream-ordered) and passes to
// every kernel of the program, in declaration order.
// Its contents at the start of a call: `fill`, one element's bytes, repeated
// over the buffer; empty: whatever the memory held (the program writes
// before it reads, as Croqtile's uninitialized declarations mean).
struct ScratchBuffer {
  std::string name;  // as the source names it
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> fill;  // `{v}` declared, or zero where the program updates it in place
};

struct KernelAbi {
  std::string entry;  // the __global__ symbol
  LaunchConfig launch;
  std::vector<KernelParam> params;
  RuntimeGrid runtime_grid;
  bool has_output = false;
  DType output_dtype = DType::f32;
  std::vector<std::int64_t> output_shape;      // -1 where a dynamic dim goes
  std::vector<DimSource> output_dim_sources;   // per output dim, for the -1 entries
  // The returned tensor's contents before the kernels run, as ScratchBuffer::fill:
  // `{v}` declared, or zero where the body updates it in place (`+=`, atomics).
  std::vector<std::uint8_t> output_fill;
  std::vector<bool> argument_written;   // per call argument: the kernel stores into it
  std::vector<ScratchBuffer> scratch;   // the program's global buffers (the same in each of its kernels)
  // `parallel<s>`: the call argument whose stream the kernel launches on;
  // -1: the call's stream (LaunchOptions::stream).
  int stream_argument = -1;
};

}  // namespace croq::abi
