// Interpret mode (its race check is on by default): a copy inside a thread level reads a
// shared tile the other threads of the level wrote element by element;
// lowering puts a block barrier between (the interpreter reported a data
// race on Croqtile's memreuse.co before). The GPU runs the same kernel in
// tests/gpu/thread_copy_gpu_test.cpp.
#include <gtest/gtest.h>

#include "common/thread_copy_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretThreadCopy, CopyOutOfSharedWaitsForTheLevelsStores) {
  croq::Kernel k = croq::test::interpreted(croq::test::kThreadCopyKernel);
  auto a = croq::make_spandata<croq::s32>(4, 2, 128);
  a.fill_random(-1000, 1000, 5);
  auto out = croq::make_spandata<croq::s32>(4, 2, 128);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::thread_copy_mismatch(a.data(), out.data()), "");
}

}  // namespace
