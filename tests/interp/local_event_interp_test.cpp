// Interpret mode: threads counting with local events
// (tests/common/local_event_kernels.hpp) against the host reference, and a
// wait for a generation the thread's own triggers have not reached, which
// stops the kernel at the wait (on the GPU too: a trap, not a spin).
#include <gtest/gtest.h>

#include "common/local_event_kernels.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretLocalEvent, EachThreadsTriggersAndWaitsPairUp) {
  croq::Kernel k = croq::test::interpreted(croq::test::kLocalEventRing);
  auto a = croq::make_spandata<croq::s32>(3, 64);
  a.fill_random(-1000, 1000, 53);
  auto out = croq::make_spandata<croq::s32>(3, 64);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::doubled_mismatch(a.data(), out.data(), 3 * 64), "");
}

// `source`'s error in interpret mode on a [1, 64] tensor, or "".
std::string interpret_error(const char* source) {
  croq::Kernel k = croq::test::interpreted(source);
  auto a = croq::make_spandata<croq::s32>(1, 64);
  a.fill(1);
  auto out = croq::make_spandata<croq::s32>(1, 64);
  try {
    k(a.view(), out.view());
  } catch (const croq::Error& e) {
    return e.what();
  }
  return "";
}

TEST(InterpretLocalEvent, AWaitPastTheThreadsOwnTriggersStopsTheKernel) {
  const char* source = R"(__co__ void once(global s32 [B, 64] a, global s32 [B, 64] out) {
  parallel b by B : block {
    parallel t by 64 : thread {
      local event e;
      trigger e;
      wait e;
      wait e;
      out.at(b, t) = a.at(b, t);
    }
  }
}
)";
  const std::string message = interpret_error(source);
  EXPECT_NE(message.find(":7:"), std::string::npos) << message;  // the second wait
  EXPECT_NE(message.find("assertion failed in thread 0 of block 0"), std::string::npos) << message;
}

TEST(InterpretLocalEvent, AnOrderPastTheTriggeredGenerationsStopsTheKernel) {
  const char* source = R"(__co__ void ahead(global s32 [B, 64] a, global s32 [B, 64] out) {
  parallel b by B : block {
    parallel t by 64 : thread {
      local event ring[2];
      trigger ring[0];
      wait ring.at(0);
      wait ring.at(2);
      out.at(b, t) = a.at(b, t);
    }
  }
}
)";
  const std::string message = interpret_error(source);
  EXPECT_NE(message.find(":7:"), std::string::npos) << message;  // ring.at(2): generation 1 of ring[0]
}

}  // namespace
