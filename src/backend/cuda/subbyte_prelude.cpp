// The sub-byte element types on the device (see subbyte_prelude.hpp):
// prelude/subbyte.cuh.
#include "backend/cuda/subbyte_prelude.hpp"

#include "backend/cuda/prelude_files.hpp"

namespace croq::backend::cuda {

std::string_view subbyte_prelude() { return prelude_file("subbyte.cuh"); }

}  // namespace croq::backend::cuda
