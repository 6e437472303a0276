// tf32 and the block-scale types on the device (see scale_type_prelude.hpp):
// prelude/scale_types.cuh.
#include "backend/cuda/scale_type_prelude.hpp"

#include "backend/cuda/prelude_files.hpp"

namespace croq::backend::cuda {

std::string_view scale_type_prelude() { return prelude_file("scale_types.cuh"); }

}  // namespace croq::backend::cuda
