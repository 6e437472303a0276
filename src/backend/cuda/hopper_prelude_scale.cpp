// The block-scale section of the device prelude (see hopper_prelude.hpp):
// prelude/hopper_scale.cuh, pasted after hopper_prelude() by kernels that
// scale.
#include "backend/cuda/hopper_prelude.hpp"
#include "backend/cuda/prelude_files.hpp"

namespace croq::backend::cuda {

std::string_view hopper_prelude_scale() { return prelude_file("hopper_scale.cuh"); }

}  // namespace croq::backend::cuda
