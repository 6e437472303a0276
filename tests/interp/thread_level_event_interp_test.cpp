// Interpret mode: an event declared inside a thread level, against the host
// reference (tests/common/thread_level_event_kernel.hpp; the GPU runs the
// same kernel in tests/gpu/thread_level_event_gpu_test.cpp).
#include <gtest/gtest.h>

#include "common/thread_level_event_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretThreadLevelEvent, ItsTriggerAndWaitOrderTheThreadsStores) {
  croq::Kernel k = croq::test::interpreted(croq::test::kThreadLevelEventKernel);
  auto a = croq::make_spandata<croq::s32>(2, 64);
  a.fill_random(-1000, 1000, 17);
  auto out = croq::make_spandata<croq::s32>(2, 64);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::thread_level_event_mismatch(a.data(), out.data()), "");
}

}  // namespace
