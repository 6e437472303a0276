// Warp shuffles written as inline PTX (shfl.sync, the PTX ISA's four
// modes) run in interpret mode as a warp collective; a partial member mask
// is refused at its line.
#include <gtest/gtest.h>

#include <string>

#include "interp/interp_test_util.hpp"

namespace {

using croq::test::interpreted;

TEST(InterpretShuffle, EachModeTakesThePtxSourceLane) {
  auto k = interpreted(R"croq(
__co__ void shuffles(s32 [64] input, s32 [4, 64] output) {
  parallel b by 1 : block {
    parallel t by 64 : thread {
      s32 v = input.at(t);
      s32 got = 0;
      __asm__ volatile("shfl.sync.bfly.b32 %0, %1, 5, 31, -1;" : "=r"(got) : "r"(v));
      output.at(0, t) = got;
      __asm__ volatile("shfl.sync.down.b32 %0, %1, 3, 31, -1;" : "=r"(got) : "r"(v));
      output.at(1, t) = got;
      __asm__ volatile("shfl.sync.up.b32 %0, %1, 2, 0, -1;" : "=r"(got) : "r"(v));
      output.at(2, t) = got;
      __asm__ volatile("shfl.sync.idx.b32 %0, %1, 7, 31, -1;" : "=r"(got) : "r"(v));
      output.at(3, t) = got;
    }
  }
}
)croq");
  auto input = croq::make_spandata<croq::s32>(64);
  input.fill_random(-1000, 1000);
  auto output = croq::make_spandata<croq::s32>(4, 64);
  k(input.view(), output.view());
  for (std::size_t t = 0; t < 64; ++t) {
    const std::size_t warp = t / 32 * 32, lane = t % 32;
    EXPECT_EQ(output[0][t], input[warp + (lane ^ 5)]) << t;
    EXPECT_EQ(output[1][t], lane + 3 <= 31 ? input[warp + lane + 3] : input[t]) << t;
    EXPECT_EQ(output[2][t], lane >= 2 ? input[warp + lane - 2] : input[t]) << t;
    EXPECT_EQ(output[3][t], input[warp + 7]) << t;
  }
}

TEST(InterpretShuffle, FloatsKeepTheirBits) {
  auto k = interpreted(R"croq(
__co__ void sums(f32 [32] input, f32 [32] output) {
  parallel b by 1 : block {
    parallel t by 32 : thread {
      f32 v = input.at(t);
      f32 other = 0.0f;
      __asm__ volatile("shfl.sync.bfly.b32 %0, %1, 16, 31, -1;" : "=f"(other) : "f"(v));
      v = v + other;
      __asm__ volatile("shfl.sync.bfly.b32 %0, %1, 8, 31, -1;" : "=f"(other) : "f"(v));
      v = v + other;
      output.at(t) = v;
    }
  }
}
)croq");
  auto input = croq::make_spandata<croq::f32>(32);
  input.fill_random(-1.0f, 1.0f);
  auto output = croq::make_spandata<croq::f32>(32);
  k(input.view(), output.view());
  for (std::size_t t = 0; t < 32; ++t) {
    const std::size_t g = t % 8;
    // As the device adds, in f32: pairs 16 apart, then those sums 8 apart.
    const float a = input[g] + input[g + 16], b = input[g + 8] + input[g + 24];
    EXPECT_EQ(output[t], a + b) << t;
  }
}

TEST(InterpretShuffle, APartialMemberMaskIsRefusedAtItsLine) {
  auto k = interpreted(R"croq(
__co__ void half_warp(s32 [32] input, s32 [32] output) {
  parallel b by 1 : block {
    parallel t by 32 : thread {
      s32 v = input.at(t);
      s32 got = 0;
      __asm__ volatile("shfl.sync.bfly.b32 %0, %1, 1, 31, 0xffff;" : "=r"(got) : "r"(v));
      output.at(t) = got;
    }
  }
}
)croq");
  auto input = croq::make_spandata<croq::s32>(32);
  auto output = croq::make_spandata<croq::s32>(32);
  try {
    k(input.view(), output.view());
    FAIL() << "expected an InterpretError";
  } catch (const croq::InterpretError& e) {
    EXPECT_EQ(e.line(), 7) << e.what();
    EXPECT_NE(std::string(e.what()).find(
                  "interpret mode runs warp shuffles of the whole warp only (member mask -1 / 0xffffffff)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
