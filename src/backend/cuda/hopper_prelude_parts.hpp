// The WGMMA specializations the Hopper device prelude generates (internal
// to backend/cuda; hopper_prelude() is the whole, hopper_prelude_fp8() the
// fp8 WGMMA section a kernel adds when it multiplies fp8 tiles).
#pragma once

#include <string>

namespace croq::backend::cuda {

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
