// Interpret mode: arrays of arrays of events (tests/common/event_grid_kernel.hpp)
// against the host reference on random data, and a wait on an event of a
// row nothing triggered, which the interpreter reports when no
// thread can go on.
#include <gtest/gtest.h>

#include "common/event_grid_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretEventGrid, ElementsRowsAndWholeArraysOfAnArrayOfArrays) {
  croq::Kernel k = croq::test::interpreted(croq::test::kEventGridKernel);
  auto a = croq::make_spandata<croq::s32>(3, 64);
  a.fill_random(-1000, 1000, 71);
  auto out = croq::make_spandata<croq::s32>(3, 64);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::event_grid_mismatch(a.data(), out.data(), 3 * 64), "");
}

TEST(InterpretEventGrid, AWaitOnAnEventOfAnotherRowNeverEnds) {
  const char* source = R"(__co__ void other_row(global s32 [B, 64] a, global s32 [B, 64] out) {
  parallel b by B : block {
    parallel t by 64 : thread {
      shared event e[2][3];
      trigger e[0];
      wait e[1][2];
      out.at(b, t) = a.at(b, t);
    }
  }
}
)";
  croq::Kernel k = croq::test::interpreted(source);
  auto a = croq::make_spandata<croq::s32>(1, 64);
  a.fill(1);
  auto out = croq::make_spandata<croq::s32>(1, 64);
  std::string message;
  try {
    k(a.view(), out.view());
  } catch (const croq::Error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find(":6:"), std::string::npos) << message;  // the wait
  EXPECT_NE(message.find("event `e[5]`"), std::string::npos) << message;  // e[1][2], row-major
}

}  // namespace
