// Interpret mode: blocks that hand data to each other through global events,
// against the host references (tests/common/global_event_kernels.hpp; the
// GPU runs the same kernels in tests/gpu/global_event_gpu_test.cpp), and the
// waits the interpreter reports: for a later block of a launch that is not
// cooperative, and for a trigger that never comes.
#include <gtest/gtest.h>

#include "common/global_event_kernels.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

// `source`, a function of one s32 [rows, 64] tensor returning another, on
// random data, checked against its host reference.
std::string returned_rows(const char* source, int rows, unsigned seed,
                          std::string (*mismatch)(const std::int32_t*, const std::int32_t*)) {
  croq::Kernel k = croq::test::interpreted(source);
  auto a = croq::make_spandata<croq::s32>(rows, 64);
  a.fill_random(-1000, 1000, seed);
  auto out = k(a.view());
  return mismatch(a.data(), static_cast<const std::int32_t*>(out.data()));
}

TEST(InterpretGlobalEvent, EachBlockWaitsForTheRowOfTheBlockAfterIt) {
  EXPECT_EQ(returned_rows(croq::test::kGlobalEventSuffixSums, 4, 23, croq::test::suffix_sums_mismatch), "");
}

TEST(InterpretGlobalEvent, GenerationsHandRowsBackAndForth) {
  EXPECT_EQ(returned_rows(croq::test::kGlobalEventGenerations, 4, 29, croq::test::generations_mismatch), "");
}

TEST(InterpretGlobalEvent, ItsCountsStayFromOneKernelToTheNext) {
  croq::Kernel k = croq::test::interpreted(croq::test::kGlobalEventAcrossKernels);
  auto a = croq::make_spandata<croq::s32>(2, 64);
  a.fill_random(-1000, 1000, 31);
  for (int call = 0; call < 2; ++call) {  // each call's counts start at zero
    auto out = k(a.view());
    EXPECT_EQ(croq::test::across_mismatch(a.data(), static_cast<const std::int32_t*>(out.data())), "") << "call " << call;
  }
}

TEST(InterpretGlobalEvent, AWaitOnAWholeArrayWaitsForEachOfItsEvents) {
  EXPECT_EQ(returned_rows(croq::test::kGlobalEventWholeArray, 4, 37, croq::test::gather_rows_mismatch), "");
}

TEST(InterpretSharedEventArray, ATriggerAndAWaitOfTheWholeArrayTakeEachEvent) {
  croq::Kernel k = croq::test::interpreted(croq::test::kSharedEventWholeArray);
  auto a = croq::make_spandata<croq::s32>(2, 64);
  a.fill_random(-1000, 1000, 41);
  auto out = croq::make_spandata<croq::s32>(2, 64);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::both_tiles_mismatch(a.data(), out.data()), "");
}

std::string interpret_error(const char* source, int rows) {
  croq::Kernel k = croq::test::interpreted(source);
  auto a = croq::make_spandata<croq::s32>(rows, 64);
  a.fill(1);
  try {
    k(a.view());
  } catch (const croq::Error& e) {
    return e.what();
  }
  return "";
}

TEST(InterpretGlobalEvent, AWaitForALaterBlockOfAnOrdinaryLaunchIsReported) {
  const char* source = R"(__co__ s32 [2, 64] backwards(s32 [2, 64] a) {
  s32 [2, 64] out;
  global event done[2];
  parallel b by 2 : block {
    parallel t by 64 : thread {
      if (b == 0) {
        wait done[1];
      }
      out.at(b, t) = a.at(b, t);
    }
    trigger done[b];
  }
  return out;
}
)";
  const std::string message = interpret_error(source, 2);
  EXPECT_NE(message.find("deadlock: thread 0 of block 0 waits for global event `done` (its count to pass 0), which only "
                         "this block or one before it can trigger: the blocks of a launch that is not cooperative may run "
                         "one after another"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(":7:"), std::string::npos) << message;
}

TEST(InterpretGlobalEvent, AWaitThatNoTriggerEndsIsADeadlock) {
  const char* source = R"(__co__ s32 [2, 64] never(s32 [2, 64] a) {
  s32 [2, 64] out;
  global event done[2];
  parallel b by 2 : block<cooperative> {
    parallel t by 64 : thread {
      wait done[b];
      out.at(b, t) = a.at(b, t);
    }
  }
  return out;
}
)";
  const std::string message = interpret_error(source, 2);
  EXPECT_NE(message.find("deadlock: thread 0 of block 0 waits for global event `done` (its count to pass 0), which never "
                         "comes"),
            std::string::npos)
      << message;
}

}  // namespace
