// Global events on a real device: blocks that hand rows to each other,
// against the host references (the interpreter runs the same kernels in
// tests/interp/global_event_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/global_event_kernels.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

// `source`, a function of one s32 [rows, 64] tensor returning another, on
// random data, checked against its host reference.
std::string returned_rows(const char* source, int rows, std::string (*mismatch)(const std::int32_t*, const std::int32_t*)) {
  Kernel k = compile(source);
  auto a = make_spandata<s32>(rows, 64);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = k(a.view());
  return mismatch(a.data(), static_cast<const std::int32_t*>(out.data()));
}

TEST(GpuGlobalEvent, EachBlockWaitsForTheRowOfTheBlockAfterIt) {
  CROQ_REQUIRE_GPU();
  EXPECT_EQ(returned_rows(test::kGlobalEventSuffixSums, 4, test::suffix_sums_mismatch), "");
}

TEST(GpuGlobalEvent, GenerationsHandRowsBackAndForth) {
  CROQ_REQUIRE_GPU();
  EXPECT_EQ(returned_rows(test::kGlobalEventGenerations, 4, test::generations_mismatch), "");
}

TEST(GpuGlobalEvent, ItsCountsStayFromOneKernelToTheNext) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kGlobalEventAcrossKernels);
  auto a = make_spandata<s32>(2, 64);
  a.fill_random(-1000, 1000, test::next_seed());
  for (int call = 0; call < 2; ++call) {
    auto out = k(a.view());
    EXPECT_EQ(test::across_mismatch(a.data(), static_cast<const std::int32_t*>(out.data())), "") << "call " << call;
  }
}

TEST(GpuGlobalEvent, AWaitOnAWholeArrayWaitsForEachOfItsEvents) {
  CROQ_REQUIRE_GPU();
  EXPECT_EQ(returned_rows(test::kGlobalEventWholeArray, 4, test::gather_rows_mismatch), "");
}

TEST(GpuSharedEventArray, ATriggerAndAWaitOfTheWholeArrayTakeEachEvent) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kSharedEventWholeArray);
  auto a = make_spandata<s32>(2, 64);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = make_spandata<s32>(2, 64);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(test::both_tiles_mismatch(a.data(), out.data()), "");
}

}  // namespace
}  // namespace croq
