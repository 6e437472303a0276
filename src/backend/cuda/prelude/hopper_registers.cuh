// The Hopper device prelude, part 5 (the last): register reallocation
// between warpgroups.
#ifndef CROQ_PRELUDE_HOPPER_REGISTERS_CUH
#define CROQ_PRELUDE_HOPPER_REGISTERS_CUH
#include "hopper_core.cuh"
namespace croq_dev {
// ---------------------------------------------------------------------------
// Register reallocation between warpgroups (warp-specialized kernels): the
// producer gives registers back (dec), consumers take them (inc). R in
// 24..256, a multiple of 8; every warp of the warpgroup executes it. The
// kernel needs a register cap at entry: __launch_bounds__(threads, 1).
// ---------------------------------------------------------------------------

#if CROQ_DEV_SM90A
template <int R>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}

template <int R>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}
#endif  // CROQ_DEV_SM90A

}  // namespace croq_dev
// ===== end of croq hopper prelude =====
#endif  // CROQ_PRELUDE_HOPPER_REGISTERS_CUH
