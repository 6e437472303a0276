// The launch ABI of a finished kernel: decided here, after the passes, so
// that the backend only prints (backend/cuda/cuda_backend.hpp).
#include "passes/passes.hpp"

namespace croq::passes {

void complete_launch_abi(ir::Kernel& kernel, const target::Target& target) {
  abi::LaunchConfig& launch = kernel.abi.launch;
  launch.grid = {static_cast<unsigned>(kernel.grid), 1, 1};
  launch.block = {static_cast<unsigned>(kernel.block_threads), 1, 1};
  launch.shared_bytes = static_cast<unsigned>(kernel.shared_bytes);
  if (kernel.cluster_blocks > 0) launch.cluster = {static_cast<unsigned>(kernel.cluster_blocks), 1, 1};
  launch.cooperative = kernel.cooperative;
  // Back-to-back kernels (a program's, or calls in a row) overlap one's
  // launch with the other's last blocks; a cooperative launch needs every
  // block resident at once, so it waits as before.
  launch.programmatic = target.grid_dependencies() && !kernel.cooperative;
  kernel.abi.entry = kernel.entry;
}

}  // namespace croq::passes
