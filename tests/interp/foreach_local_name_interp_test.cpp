// Interpret mode: a loop that names its index locally (`foreach c = k(1:)`,
// tests/common/foreach_local_name_kernel.hpp), against its host reference.
#include <gtest/gtest.h>

#include "common/foreach_local_name_kernel.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretForeachLocalName, ALoopNamesItsIndexLocally) {
  croq::Kernel k = croq::test::interpreted(croq::test::kForeachLocalName);
  auto a = croq::make_spandata<croq::s32>(4, 64);
  a.fill_random(-1000, 1000, 31);
  croq::Tensor out = k(a.view());
  croq::test::expect_rotated_tiles(a, static_cast<const croq::s32*>(out.data()));
}

}  // namespace
