// The parts the Hopper device prelude is assembled from (internal to
// backend/cuda; hopper_prelude() is the whole, hopper_prelude_fp8() the
// fp8 WGMMA section a kernel adds when it multiplies fp8 tiles).
#pragma once

#include <string>
#include <string_view>

namespace croq::backend::cuda {

// Closes croq_dev::detail, then the WGMMA entry points, the accumulator
// fragments and their stores, and the mma.sync path.
std::string_view hopper_prelude_accumulators();
// Warp-level mma with fragments gathered element by element, and the warp
// accumulators' stores (hopper_prelude_warp.cpp).
std::string_view hopper_prelude_warp();
// Register reallocation; closes croq_dev and the include guard.
std::string_view hopper_prelude_tail();

// One WGMMA form with both operands in shared memory, as the device struct
// `struct_name<N, enumerator>::run(d, desc_a, desc_b, scale_d)`.
struct WgmmaKind {
  const char* struct_name;  // the template in croq_dev::detail
  const char* enumerator;   // its Kind argument
  const char* shape_k;      // "k16" (16-bit inputs) or "k32" (fp8)
  const char* ptx_types;    // .dtype.atype.btype
  const char* reg_type;     // accumulator register C++ type
  const char* constraint;   // its asm constraint
  int values_per_reg;       // accumulator values packed per register
  bool transposes;          // the form takes imm-trans-a / imm-trans-b (16-bit inputs)
};

// Appends the specialization of `kind` for m64nN (one inline-asm block).
void emit_wgmma(std::string& out, int n, const WgmmaKind& kind);

}  // namespace croq::backend::cuda
