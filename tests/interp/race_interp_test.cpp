// Data races on shared memory in interpret mode: two threads of a block
// access one element, one of them writes, and no barrier or event orders
// them. Each is an InterpretError at the second access's line that names
// both threads and both lines; the same kernel with `sync.shared` runs.
// (Event-ordered producers and consumers run without a report in the
// pipelined GEMM and attention tests: matmul_interp_test, hazard_interp_test.)
#include <gtest/gtest.h>

#include <string>

#include "interp/interp_test_util.hpp"

namespace {

using croq::test::interpreted;

// Each thread writes its element of the tile, then reads its neighbour's.
std::string neighbours(bool barrier) {
  return std::string(R"croq(
__co__ void neighbours(s32 [64] input, s32 [64] output) {
  parallel b by 1 : block {
    shared s32 [64] tile;
    parallel t by 64 : thread {
      tile.at(t) = input.at(t);
)croq") + (barrier ? "      sync.shared;\n" : "") + R"croq(      output.at(t) = tile.at((t + 1) % 64);
    }
  }
}
)croq";
}

void expect_race(const croq::Kernel& k, int line, const std::string& text) {
  auto input = croq::make_spandata<croq::s32>(64);
  for (std::size_t t = 0; t < 64; ++t) input[t] = static_cast<std::int32_t>(t) + 1;  // each thread its own value
  auto output = croq::make_spandata<croq::s32>(64);
  try {
    k(input.view(), output.view());
    FAIL() << "expected an InterpretError";
  } catch (const croq::InterpretError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(InterpretRaces, AReadOfAnotherThreadsElementWithoutABarrier) {
  // Thread 0 reads tile[1] before thread 1 writes it: nothing orders them.
  expect_race(interpreted(neighbours(false)), 6,
              "data race on shared `tile` (element 1): thread 0 reads it at line 7 and thread 1 writes it at line 6 "
              "with no barrier or event between them");
}

TEST(InterpretRaces, TheBarrierOrdersTheNeighboursElements) {
  auto k = interpreted(neighbours(true));
  auto input = croq::make_spandata<croq::s32>(64);
  input.fill_random(-100, 100);
  auto output = croq::make_spandata<croq::s32>(64);
  k(input.view(), output.view());
  for (std::size_t t = 0; t < 64; ++t) EXPECT_EQ(output[t], input[(t + 1) % 64]) << t;
}

TEST(InterpretRaces, TwoThreadsWriteOneElement) {
  auto k = interpreted(R"croq(
__co__ void last_writer(s32 [64] input, s32 [64] output) {
  parallel b by 1 : block {
    shared s32 [1] slot;
    parallel t by 64 : thread {
      slot.at(0) = input.at(t);
      sync.shared;
      output.at(t) = slot.at(0);
    }
  }
}
)croq");
  expect_race(k, 6,
              "data race on shared `slot` (element 0): thread 0 writes it at line 6 and thread 1 writes it at line 6 "
              "with no barrier or event between them");
}

TEST(InterpretRaces, ThreadsThatStoreTheSameValuesDoNotRace) {
  // Every thread copies the whole tile (as a thread-level dma.copy into
  // shared memory does), then reads it: whichever store lands, the values
  // are the same.
  auto k = interpreted(R"croq(
__co__ void replicated(s32 [64] input, s32 [64] output) {
  parallel b by 1 : block {
    shared s32 [64] tile;
    parallel t by 64 : thread {
      foreach i in [64]
        tile.at(i) = input.at(i);
      output.at(t) = tile.at(63 - t);
    }
  }
}
)croq");
  auto input = croq::make_spandata<croq::s32>(64);
  input.fill_random(1, 100);
  auto output = croq::make_spandata<croq::s32>(64);
  k(input.view(), output.view());
  for (std::size_t t = 0; t < 64; ++t) EXPECT_EQ(output[t], input[63 - t]) << t;
}

}  // namespace
