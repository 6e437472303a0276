// Shapes, views, spandata and host tensors (no GPU needed).
#include <gtest/gtest.h>

#include <cstdlib>

#include "croq/croq.hpp"
#include "common/test_seed.hpp"

namespace croq {
namespace {

TEST(Shape, BasicsAndLimits) {
  Shape s{128, 256};
  EXPECT_EQ(s.rank(), 2);
  EXPECT_EQ(s.numel(), 128u * 256u);
  EXPECT_EQ(s.str(), "[128, 256]");
  EXPECT_EQ(s, (Shape{128, 256}));
  EXPECT_FALSE(s == (Shape{256, 128}));
  EXPECT_THROW((Shape{1, 1, 1, 1, 1, 1, 1, 1, 1}), Error);
}

TEST(SpanData, SeedHostCodeIdioms) {
  auto lhs = make_spandata<s32>(128, 256);
  lhs.fill_random(-10, 10, croq::test::next_seed());
  int lo = 0, hi = 0;
  for (size_t i = 0; i < lhs.shape()[0]; ++i)
    for (size_t j = 0; j < lhs.shape()[1]; ++j) {
      int v = lhs[i][j];
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  EXPECT_GE(lo, -10);
  EXPECT_LE(hi, 10);
  EXPECT_LT(lo, 0);  // fresh random data, not zeros
  EXPECT_GT(hi, 0);
  lhs[3][4] = 77;
  EXPECT_EQ(lhs.data()[3 * 256 + 4], 77);
  int ref = 0;
  ref += lhs[3][4] * lhs[3][4];
  EXPECT_EQ(ref, 77 * 77);

  TensorView v = lhs.view();
  EXPECT_EQ(v.dtype, DType::s32);
  EXPECT_EQ(v.shape, (Shape{128, 256}));
  EXPECT_EQ(v.strides[0], 256);
  EXPECT_EQ(v.strides[1], 1);
  EXPECT_EQ(v.memory, MemoryKind::host);
  EXPECT_TRUE(v.is_contiguous());
  EXPECT_EQ(v.str(), "s32 [128, 256] (host)");
}

TEST(SpanData, IndexErrorsAreClear) {
  auto t = make_spandata<float>(2, 3);
  try {
    t[2];
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "croq::spandata: index 2 out of range for dimension 0 of extent 2");
  }
  try {
    float x = t[0];
    (void)x;
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "croq::spandata: element access needs 2 indices, got 1");
  }
}

TEST(SpanData, SeededFillIsReproducibleAndFloatsStayInRange) {
  auto a = make_spandata<float>(64), b = make_spandata<float>(64);
  a.fill_random(-1, 1, 42);
  b.fill_random(-1, 1, 42);
  for (size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(static_cast<float>(a[i]), static_cast<float>(b[i]));
    EXPECT_GE(static_cast<float>(a[i]), -1.0f);
    EXPECT_LT(static_cast<float>(a[i]), 1.0f);
  }
  auto h = make_spandata<f16>(8);
  h.fill_random(0, 4, 1);
  for (size_t i = 0; i < 8; ++i) EXPECT_LE(static_cast<float>(h.data()[i]), 4.0f);
}

TEST(HostTensor, CopyAndIndex) {
  auto src = make_spandata<s64>(3, 5);
  src.fill_random(-1000000, 1000000, croq::test::next_seed());
  Tensor t = Tensor::copy_of(src.view(), MemoryKind::host);
  EXPECT_EQ(t.memory(), MemoryKind::host);
  EXPECT_EQ(t.shape(), (Shape{3, 5}));
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < 5; ++j) {
      EXPECT_TRUE(src[i][j] == t[i][j]);
      EXPECT_EQ(t[i][j].as<std::int64_t>(), static_cast<std::int64_t>(src[i][j]));
    }
  EXPECT_THROW(t[3], Error);
  EXPECT_THROW(t[0][0][0], Error);
  EXPECT_THROW(t[0].as_double(), Error);
  Tensor copy = t;  // shares storage
  EXPECT_EQ(copy.data(), t.data());
  auto wrong = make_spandata<s32>(3, 5);
  EXPECT_THROW(t.copy_from(wrong.view()), ArgumentError);
  EXPECT_THROW(Tensor()[0], Error);
}

// Tests' random data comes from fixed seeds (tests/common/test_seed.hpp):
// the seeds of a test are a function of the base seed, the test's name and
// their order, and differ from one another.
TEST(TestSeeds, AreFixedPerTestAndDistinct) {
  const std::uint64_t first = test::next_seed(), second = test::next_seed();
  EXPECT_NE(first, second);
  EXPECT_EQ(test::seed_for("TestSeeds.AreFixedPerTestAndDistinct", 0), first);
  EXPECT_EQ(test::seed_for("TestSeeds.AreFixedPerTestAndDistinct", 1), second);
  EXPECT_NE(test::seed_for("TestSeeds.Other", 0), first);
  if (!std::getenv("CROQ_TEST_SEED")) EXPECT_EQ(test::base_seed(), test::kDefaultTestSeed);
}

}  // namespace
}  // namespace croq
