// Interpret mode runs TMA loads with an L2 eviction priority as plain loads
// (the hint changes caching, not values): tests/common/l2_eviction_sources.hpp
// against its host reference, with a row tail, alone and in clusters.
#include <gtest/gtest.h>

#include "common/l2_eviction_sources.hpp"

namespace {

TEST(InterpretL2Eviction, HintedLoadsGiveThePlainLoadsValues) {
  croq::CompileOptions options;
  options.interpret = true;
  options.arch = "sm_90a";  // clusters and TMA
  for (bool cluster : {false, true})
    for (std::size_t m : {64, 100, 256}) croq::test::check_l2_eviction(cluster, m, options);
}

}  // namespace
