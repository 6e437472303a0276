// The target: an architecture name parsed once into its compute capability,
// virtual or not, its suffix, and the features lowering asks about.
#include <gtest/gtest.h>

#include <string>

#include "croq/error.hpp"
#include "target/target.hpp"

namespace croq::target {
namespace {

TEST(ParseTarget, ReadsEveryFormOfTheName) {
  const Target hopper = parse_target("sm_90a");
  EXPECT_EQ(hopper.sm, 90);
  EXPECT_EQ(hopper.suffix, 'a');
  EXPECT_FALSE(hopper.is_virtual);
  EXPECT_EQ(hopper.arch, "sm_90a");

  const Target ampere = parse_target("sm_80");
  EXPECT_EQ(ampere.sm, 80);
  EXPECT_EQ(ampere.suffix, 0);

  const Target ptx = parse_target("compute_90a");
  EXPECT_TRUE(ptx.is_virtual);
  EXPECT_EQ(ptx.sm, 90);
  EXPECT_EQ(ptx.suffix, 'a');

  const Target family = parse_target("sm_100f");
  EXPECT_EQ(family.sm, 100);
  EXPECT_EQ(family.suffix, 'f');
}

TEST(ParseTarget, FeaturesFollowTheComputeCapabilityAndSuffix) {
  EXPECT_TRUE(parse_target("sm_90a").wgmma());
  EXPECT_TRUE(parse_target("sm_90a").setmaxnreg());
  // WGMMA is sm_90a's own: neither plain sm_90 nor a later arch has it.
  EXPECT_FALSE(parse_target("sm_90").wgmma());
  EXPECT_FALSE(parse_target("sm_100a").wgmma());
  EXPECT_TRUE(parse_target("sm_90").tma());
  EXPECT_TRUE(parse_target("sm_90").clusters());
  EXPECT_FALSE(parse_target("sm_89").tma());
  EXPECT_TRUE(parse_target("sm_80").mma_sync());
  EXPECT_TRUE(parse_target("sm_80").mbarrier());
  EXPECT_FALSE(parse_target("sm_80").mbarrier_tx());
  EXPECT_FALSE(parse_target("sm_75").mma_sync());
}

TEST(ParseTarget, SharedMemoryPerBlockByComputeCapability) {
  EXPECT_EQ(parse_target("sm_90a").max_shared_bytes_per_block(), 227 * 1024);
  EXPECT_EQ(parse_target("sm_80").max_shared_bytes_per_block(), 163 * 1024);
  EXPECT_EQ(parse_target("sm_86").max_shared_bytes_per_block(), 99 * 1024);
  EXPECT_EQ(parse_target("sm_120").max_shared_bytes_per_block(), 99 * 1024);
  EXPECT_EQ(parse_target("sm_75").max_shared_bytes_per_block(), 64 * 1024);
}

TEST(ParseTarget, AMalformedNameIsAnOptionsError) {
  for (const std::string bad : {"", "sm90a", "sm_", "sm_9x", "compute_", "sm_12345", "gfx942", "sm_90b"}) {
    try {
      parse_target(bad);
      ADD_FAILURE() << "accepted `" << bad << "`";
    } catch (const CompileError& e) {
      ASSERT_EQ(e.diagnostics().size(), 1u);
      EXPECT_EQ(e.diagnostics()[0].message, "malformed architecture `" + bad +
                                                "`: expected sm_XY, sm_XYa, compute_XY or compute_XYa (for example sm_90a)");
      EXPECT_NE(std::string(e.what()).find("<options>"), std::string::npos) << e.what();
    }
  }
}

TEST(ArchForComputeCapability, HopperGetsItsArchSpecificFeatures) {
  EXPECT_EQ(arch_for_compute_capability(9, 0), "sm_90a");
  EXPECT_EQ(arch_for_compute_capability(8, 0), "sm_80");
  EXPECT_EQ(arch_for_compute_capability(8, 9), "sm_89");
  EXPECT_EQ(arch_for_compute_capability(10, 0), "sm_100");
}

}  // namespace
}  // namespace croq::target
