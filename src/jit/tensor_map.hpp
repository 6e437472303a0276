// TMA tensor maps (host side): checking a Croqtile tensor/tile description
// against the rules of cuTensorMapEncodeTiled, converting it to that call's
// arguments, and encoding it through the driver with a process-wide cache.
//
// Croqtile writes shapes outermost first ([M, K]); the driver wants them
// innermost first with strides in bytes. TensorMapSpec is in Croqtile order;
// EncodeArgs is in driver order.
//
// Out-of-bounds box elements are filled with zeros on loads (OOB fill NONE)
// and clipped on stores, which is how `.zfill` comes for free with TMA.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "croq/dtype.hpp"

namespace croq::jit {

struct TensorMapSpec {
  DType dtype = DType::f32;
  const void* base = nullptr;         // device pointer; 16-byte aligned, not null
  std::vector<std::int64_t> dims;     // outermost first, as Croqtile shapes are written ([M, K])
  std::vector<std::int64_t> strides;  // in elements, outermost first; empty = dense row-major
  std::vector<std::uint32_t> box;     // tile box, outermost first, one extent per dim
  int swizzle_bytes = 0;              // 0 (none), 32, 64 or 128
  std::string what;                   // for messages, e.g. "tma.copy of 'lhs' at 3:5"
};

// Throws ArgumentError when the spec cannot be encoded. The message starts
// with `what` (or "TMA tensor map" when empty), names the rule and the
// offending value; dimensions are numbered as written (outermost first).
// Rules:
//   - rank (dims.size()) 1..5; box and (non-empty) strides have one entry a dim;
//   - base not null and 16-byte aligned;
//   - dims 1..2^32;
//   - innermost stride 1 element (TMA reads the innermost dim contiguously);
//     every other stride positive, in bytes a multiple of 16 and < 2^40
//     (dense strides are computed and checked the same way);
//   - box extents 1..256; innermost box extent * element size a multiple of
//     16 bytes; with swizzle, innermost box bytes <= the swizzle span;
//   - swizzle_bytes one of 0, 32, 64, 128;
//   - dtype supported by TMA: u8/s8/f8_*, and the sub-byte types (a byte
//     each in memory) -> UINT8, u16/s16 ->
//     UINT16, f16 -> FLOAT16, bf16 -> BFLOAT16, u32 -> UINT32, s32 -> INT32,
//     f32 -> FLOAT32, u64 -> UINT64, s64 -> INT64, f64 -> FLOAT64 (TMA moves
//     bits; the type only matters for the OOB fill, which is always zeros).
void validate(const TensorMapSpec& spec);

// The arguments of cuTensorMapEncodeTiled, innermost first. Entries past
// `rank` are zero. strides[i] is the byte stride of driver dim i + 1.
struct EncodeArgs {
  CUtensorMapDataType dtype;
  cuuint32_t rank;
  void* base;
  cuuint64_t dims[5];
  cuuint64_t strides[4];
  cuuint32_t box[5];
  cuuint32_t element_strides[5];  // all 1
  CUtensorMapSwizzle swizzle;
  CUtensorMapL2promotion l2;
};
// Pure (no driver): validates, then converts. Interleave is always NONE and
// the OOB fill NONE (zeros). L2 promotion is 128B when the innermost box row
// is at most 128 bytes (every swizzled box), 256B for wider rows.
EncodeArgs encode_args(const TensorMapSpec& spec);

// The encoded 128-byte map, by value, for copying into kernel parameter
// storage (a `const __grid_constant__ CUtensorMap` parameter).
//
// Cached process-wide by (dtype, base, dims, strides, box, swizzle): a
// repeated spec costs a validation and a hash lookup under a shared lock, no
// driver call. Thread-safe. The cache is cleared when it passes 4096
// entries; that is safe because a map is a pure function of its key (it
// holds no reference to the allocation and owns nothing) and callers get
// copies, never references into the cache, so dropping entries only costs
// re-encoding. For the same reason a freed and reused address is harmless:
// the same key encodes the same map.
//
// Encoding needs a current context: a thread without one gets the primary
// context of the device owning `base` made current (as a launch would).
// Throws ArgumentError (see validate), or CudaError when the driver is
// missing or cuTensorMapEncodeTiled rejects the arguments (the message then
// names `what`).
CUtensorMap encoded_tensor_map(const TensorMapSpec& spec);

// Number of cuTensorMapEncodeTiled calls made by encoded_tensor_map so far.
std::uint64_t tensor_map_encode_count();

// Maps the N of the Croqtile spelling `.swiz<N>` to swizzle bytes:
//   0 -> 0 (no swizzle), 1 -> 32, 2 -> 64, 3 -> 128  (the hardware modes,
//   CU_TENSOR_MAP_SWIZZLE_NONE/32B/64B/128B), and the byte spellings
//   32 -> 32, 64 -> 64, 128 -> 128.
// The tutorial's wording "swiz<0> identity, 64B, 128B, 256B" does not match
// the hardware (there is no 256-byte swizzle); we follow the hardware.
// Anything else throws std::invalid_argument naming the value.
int swizzle_bytes_from_mode(int n);

}  // namespace croq::jit
