// Interpret mode: samples/row_norm_source.hpp's softmax and RMSNorm, their
// warp folds through shared memory (WarpFolds::shared: the interpreter runs
// no inline PTX; loads, chunks, block folds and stores are the GPU text's),
// against a host reference in double: the short-row form (16 elements a
// thread) and the long-row form (rows of 16384: 512 threads of 32).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../../samples/row_norm_source.hpp"
#include "common/test_seed.hpp"
#include "interp/interp_test_util.hpp"

namespace {

using row_norm::Kind;

// Every element within 2^-10 |ref| + floor (f16; bf16 2^-7) of the reference.
// (chunks: the generator's choice when 0)
template <typename T>
void expect_rows(Kind kind, const char* element, long long tokens, long long hidden, long long chunks = 0) {
  SCOPED_TRACE(std::string(row_norm::name(kind)) + " " + element + " [" + std::to_string(tokens) + ", " +
               std::to_string(hidden) + "], chunks " + std::to_string(chunks));
  croq::Kernel kernel =
      croq::test::interpreted(row_norm::source(kind, element, hidden, row_norm::detail::WarpFolds::shared, chunks));
  auto x = croq::make_spandata<T>(tokens, hidden);
  auto w = croq::make_spandata<T>(hidden);
  auto y = croq::make_spandata<T>(tokens, hidden);
  x.fill_random(-4, 4, croq::test::next_seed());
  w.fill_random(0.5, 1.5, croq::test::next_seed());
  y.fill_random(1e4, 2e4, croq::test::next_seed());  // poison: every element must be written
  if (kind == Kind::softmax) kernel(x.view(), y.view());
  else kernel(x.view(), w.view(), y.view());
  const double ulps = std::string(element) == "f16" ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7);
  const double floor = kind == Kind::softmax ? 1e-6 : 1e-3;
  for (long long r = 0; r < tokens; ++r) {
    std::vector<double> row(static_cast<std::size_t>(hidden)), want(row.size());
    for (long long c = 0; c < hidden; ++c) row[c] = float(static_cast<T>(x[r][c]));
    if (kind == Kind::softmax) {
      double top = row[0], sum = 0;
      for (double v : row) top = std::max(top, v);
      for (double v : row) sum += std::exp(v - top);
      for (std::size_t c = 0; c < row.size(); ++c) want[c] = std::exp(row[c] - top) / sum;
    } else {
      double squares = 0;
      for (double v : row) squares += v * v;
      const double scale = 1.0 / std::sqrt(squares / double(hidden) + 1e-6);
      for (std::size_t c = 0; c < row.size(); ++c) want[c] = row[c] * scale * float(static_cast<T>(w[c]));
    }
    for (long long c = 0; c < hidden; ++c) {
      const double got = float(static_cast<T>(y[r][c]));
      ASSERT_LE(std::abs(got - want[c]), ulps * std::abs(want[c]) + floor) << "[" << r << ", " << c << "]: " << got
                                                                          << " (want " << want[c] << ")";
    }
  }
}

TEST(InterpretRowNorms, SoftmaxLongRowsTakeSixtyFourElementsAThread) {
  EXPECT_EQ(row_norm::chunks_per_thread(Kind::softmax, 16384), 8);
  EXPECT_EQ(row_norm::threads_per_row(Kind::softmax, 16384), 256);
  EXPECT_EQ(row_norm::threads_per_row(Kind::softmax, 14336), 896);  // shorter rows keep 16 a thread
  EXPECT_EQ(row_norm::threads_per_row(Kind::rmsnorm, 16384), 1024);
  expect_rows<croq::f16>(Kind::softmax, "f16", 3, 16384);
  expect_rows<croq::bf16>(Kind::softmax, "bf16", 2, 16384);
}

// The form the benchmark compares with (`--softmax-chunks 2`): 1024 threads.
TEST(InterpretRowNorms, LongRowsInTheFormerFormToo) {
  EXPECT_TRUE(row_norm::chunks_fit(16384, 2));
  EXPECT_FALSE(row_norm::chunks_fit(16384, 1));  // 2048 threads
  EXPECT_FALSE(row_norm::chunks_fit(4608, 4));   // 144 threads: four and a half warps
  expect_rows<croq::f16>(Kind::softmax, "f16", 2, 16384, 2);
}

TEST(InterpretRowNorms, ShortRowsMatchTheHost) {
  expect_rows<croq::f16>(Kind::softmax, "f16", 5, 4096);
  expect_rows<croq::bf16>(Kind::softmax, "bf16", 3, 1024);
  expect_rows<croq::f16>(Kind::rmsnorm, "f16", 4, 2048);
}

// The GPU text folds with shuffles; the interpreter's, through `lanes`.
TEST(InterpretRowNorms, OnlyTheWarpFoldsDifferFromTheGpuText) {
  const std::string gpu = row_norm::source(Kind::softmax, "f16", 16384);
  const std::string interp = row_norm::source(Kind::softmax, "f16", 16384, row_norm::detail::WarpFolds::shared);
  EXPECT_NE(gpu.find("shfl.sync.bfly"), std::string::npos);
  EXPECT_EQ(interp.find("__asm__"), std::string::npos);
  auto until_first_fold = [](const std::string& s, const std::string& marker) { return s.substr(0, s.find(marker)); };
  std::string gpu_head = until_first_fold(gpu, "      __asm__");
  std::string interp_head = until_first_fold(interp, "      lanes.at(t)");
  interp_head.erase(interp_head.find("    shared f32 [THREADS] lanes;\n"), 32);
  EXPECT_EQ(gpu_head, interp_head);
}

}  // namespace
