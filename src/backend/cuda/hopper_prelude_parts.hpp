// The parts the Hopper device prelude is assembled from (internal to
// backend/cuda; hopper_prelude() is the whole).
#pragma once

#include <string_view>

namespace croq::backend::cuda {

// Closes croq_dev::detail, then the WGMMA entry points, the accumulator
// fragments and their stores, and the mma.sync path.
std::string_view hopper_prelude_accumulators();

}  // namespace croq::backend::cuda
