// Interpret mode: `.chunk(...).at(...)` (tests/common/chunk_kernel.hpp),
// against its host reference.
#include <gtest/gtest.h>

#include "common/chunk_kernel.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretChunk, ChunksOfCountedExtentsWithAGuardedTail) {
  croq::Kernel k = croq::test::interpreted(croq::test::kReverseChunks);
  auto a = croq::make_spandata<croq::s32>(10, 64);
  a.fill_random(-1000, 1000, 47);
  croq::Tensor out = k(a.view());
  croq::test::expect_reversed_chunks(a, static_cast<const croq::s32*>(out.data()));
}

}  // namespace
