// The launch ABI is decided after the passes (passes::complete_launch_abi)
// and the backend prints a const kernel: printing neither needs nor changes
// the ABI, and the ABI follows the kernel's launch shape alone.
#include <gtest/gtest.h>

#include "backend/cuda/cuda_backend.hpp"
#include "ir/parser.hpp"
#include "passes/passes.hpp"

namespace croq::passes {
namespace {

TEST(LaunchAbi, FollowsTheKernelsLaunchShape) {
  ir::Kernel k = ir::parse_kernel(
      "kernel croq_k: grid 12, block 256, shared 4096 bytes, clusters of 2 {function=\"k\", cooperative}\n");
  complete_launch_abi(k, target::parse_target("sm_90a"));
  EXPECT_EQ(k.abi.entry, "croq_k");
  EXPECT_EQ(k.abi.launch.grid, (std::array<unsigned, 3>{12, 1, 1}));
  EXPECT_EQ(k.abi.launch.block, (std::array<unsigned, 3>{256, 1, 1}));
  EXPECT_EQ(k.abi.launch.shared_bytes, 4096u);
  EXPECT_EQ(k.abi.launch.cluster, (std::array<unsigned, 3>{2, 1, 1}));
  EXPECT_TRUE(k.abi.launch.cooperative);
  EXPECT_FALSE(k.abi.launch.programmatic);  // every block resident at once: no early launch next to it
}

// From sm_90 on, kernels overlap their launch with the previous kernel's
// end (griddepcontrol); before it they launch as they always did.
TEST(LaunchAbi, KernelsLaunchProgrammaticallyFromSm90) {
  ir::Kernel k = ir::parse_kernel("kernel croq_k: grid 4, block 128, shared 0 bytes {function=\"k\"}\n");
  complete_launch_abi(k, target::parse_target("sm_90a"));
  EXPECT_TRUE(k.abi.launch.programmatic);
  const std::string text = backend::cuda::emit_kernel(k);
  EXPECT_NE(text.find("griddepcontrol.launch_dependents;"), std::string::npos) << text;
  EXPECT_NE(text.find("griddepcontrol.wait;"), std::string::npos) << text;
  // The kernel's first statements.
  EXPECT_NE(text.find("{\n  croq_launch_dependents();\n  croq_wait_for_previous_grid();\n"), std::string::npos) << text;
  ir::Kernel old = ir::parse_kernel("kernel croq_k: grid 4, block 128, shared 0 bytes {function=\"k\"}\n");
  complete_launch_abi(old, target::parse_target("sm_80"));
  EXPECT_FALSE(old.abi.launch.programmatic);
  EXPECT_EQ(backend::cuda::emit_kernel(old).find("griddepcontrol"), std::string::npos);
}

TEST(LaunchAbi, NoClusterAndNoCooperativeLaunchUnlessTheKernelHasThem) {
  ir::Kernel k = ir::parse_kernel("kernel croq_k: grid 4, block 128, shared 0 bytes {function=\"k\"}\n");
  complete_launch_abi(k, target::parse_target("sm_90a"));
  EXPECT_FALSE(k.abi.launch.has_cluster());
  EXPECT_FALSE(k.abi.launch.cooperative);
  EXPECT_EQ(k.abi.launch.shared_bytes, 0u);
}

TEST(LaunchAbi, TheBackendPrintsAConstKernelWithoutTouchingItsAbi) {
  const ir::Kernel k = ir::parse_kernel("kernel croq_k: grid 4, block 128, shared 0 bytes {function=\"k\"}\n");
  const std::string text = backend::cuda::emit_kernel(k);
  EXPECT_NE(text.find("croq_k("), std::string::npos) << text;
  EXPECT_EQ(k.abi.entry, "");  // not decided: the backend did not fill it
  EXPECT_EQ(backend::cuda::emit_kernel(k), text);
}

}  // namespace
}  // namespace croq::passes
