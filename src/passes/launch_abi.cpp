// The launch ABI of a finished kernel: decided here, after the passes, so
// that the backend only prints (backend/cuda/cuda_backend.hpp).
#include "passes/passes.hpp"

namespace croq::passes {

void complete_launch_abi(ir::Kernel& kernel) {
  abi::LaunchConfig& launch = kernel.abi.launch;
  launch.grid = {static_cast<unsigned>(kernel.grid), 1, 1};
  launch.block = {static_cast<unsigned>(kernel.block_threads), 1, 1};
  launch.shared_bytes = static_cast<unsigned>(kernel.shared_bytes);
  if (kernel.cluster_blocks > 0) launch.cluster = {static_cast<unsigned>(kernel.cluster_blocks), 1, 1};
  launch.cooperative = kernel.cooperative;
  kernel.abi.entry = kernel.entry;
}

}  // namespace croq::passes
