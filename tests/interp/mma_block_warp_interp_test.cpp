// Interpret mode: a block of one warp multiplying at block scope
// (tests/common/mma_block_warp_sources.hpp) against the host's A * B^T:
// f16 into f32 and s8 into s32 (exact). The operands are gathered from global
// memory directly (tails: tests/interp/mma_gather_tail_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/mma_block_warp_sources.hpp"
#include "common/product_check.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

// 41, 42, 43, ...: fixed seeds, one per filled tensor.
struct Seeds {
  unsigned next = 41;
  unsigned operator()() { return next++; }
};

TEST(InterpretBlockWarp, F16BlockOfOneWarpMatchesTheHost) {
  croq::Kernel k = croq::test::interpreted(croq::test::kBlockWarpGemm);
  croq::test::expect_product<croq::f16, float>(k, 48, 24, 48, -1, 1, Seeds{});
}

TEST(InterpretBlockWarp, S8BlockOfOneWarpIsExact) {
  croq::Kernel k = croq::test::interpreted(croq::test::kBlockWarpIntegerGemm);
  croq::test::expect_product<croq::s8, croq::s32>(k, 48, 24, 96, -128, 127, Seeds{});
}

}  // namespace
