// The fp8 element codes of the sparse WGMMA section (hopper_sparse.cuh),
// pasted after it when a kernel's sparse multiply has fp8 operands.
#ifndef CROQ_PRELUDE_HOPPER_SPARSE_FP8_CUH
#define CROQ_PRELUDE_HOPPER_SPARSE_FP8_CUH
#include <cuda_fp8.h>
#include "hopper_sparse.cuh"
namespace croq_dev {
#if CROQ_DEV_SM90A
namespace detail {
template <>
struct sparse_code<__nv_fp8_e4m3> {
  static constexpr int value = 2;
};
template <>
struct sparse_code<__nv_fp8_e5m2> {
  static constexpr int value = 3;
};
}  // namespace detail
#endif  // CROQ_DEV_SM90A
}  // namespace croq_dev
#endif  // CROQ_PRELUDE_HOPPER_SPARSE_FP8_CUH
