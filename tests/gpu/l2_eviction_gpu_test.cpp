// TMA loads with an L2 eviction priority on the device
// (tests/common/l2_eviction_sources.hpp): the values of plain loads, with a
// row tail, alone and as a multicast load in clusters of two.
#include <gtest/gtest.h>

#include "common/l2_eviction_sources.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuL2Eviction, HintedLoadsGiveThePlainLoadsValues) {
  CROQ_REQUIRE_GPU();
  for (bool cluster : {false, true})
    for (std::size_t m : {64, 100, 256}) test::check_l2_eviction(cluster, m);
}

}  // namespace
}  // namespace croq
