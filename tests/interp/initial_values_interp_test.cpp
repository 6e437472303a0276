// Interpret mode: tensors declared with an initial value start with it
// (global buffers, the returned tensor, shared tiles, local arrays), and a
// program buffer without one holds no zeros (bytes of 0xff here), against
// host references (tests/common/program_sources.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/program_sources.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretInitialValues, GlobalTensorsStartAsDeclared) {
  croq::Kernel k = croq::test::interpreted(croq::test::kInitialValues);
  const std::size_t n = 37;
  auto a = croq::make_spandata<float>(n);
  a.fill_random(-10, 10, 7);
  croq::Tensor out = k(a.view());
  const float* got = static_cast<const float*>(out.data());
  for (std::size_t j = 0; j < n; ++j) {
    const float want = 0.5f + static_cast<float>(a[n - 1 - j]) * 3.0f + 2.0f - 2.0f + 1.25f;
    ASSERT_NEAR(got[j], want, 1e-5f * (1.0f + std::abs(want))) << j;
  }
}

TEST(InterpretInitialValues, SharedTilesAndLocalArraysStartAsDeclared) {
  croq::Kernel k = croq::test::interpreted(croq::test::kInitialTiles);
  auto a = croq::make_spandata<float>(3, 64);
  auto out = croq::make_spandata<float>(3, 64);
  a.fill_random(-10, 10, 8);
  out.fill(std::nanf(""));
  k(a.view(), out.view());
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t t = 0; t < 64; ++t)
      ASSERT_EQ(static_cast<float>(out[b][t]), static_cast<float>(a[b][t]) + 1.5f + 6.0f - 2.0f) << b << ", " << t;
}

TEST(InterpretInitialValues, SharedAndLocalValuesComputedAtRunTime) {
  croq::Kernel k = croq::test::interpreted(croq::test::kComputedInitialTiles);
  auto a = croq::make_spandata<std::int32_t>(3, 32);
  auto out = croq::make_spandata<std::int32_t>(3, 32);
  a.fill_random(-100, 100, 9);
  for (float x : {-7.75f, 0.5f, 99.9f})
    for (std::int32_t kk : {-3, 11}) {
      out.fill(-1);
      k(a.view(), out.view(), x, kk);
      for (std::size_t b = 0; b < 3; ++b)
        for (std::size_t t = 0; t < 32; ++t)
          ASSERT_EQ(static_cast<std::int32_t>(out[b][t]),
                    croq::test::computed_initial_reference(a[b][t], b, x, kk))
              << x << " " << kk << " at " << b << ", " << t;
    }
}

// A program that reads a buffer it never wrote sees what the memory held:
// not zeros (the GPU's pool may hold anything; the interpreter holds 0xff).
TEST(InterpretInitialValues, AProgramBufferWithoutAValueIsNotZeroed) {
  croq::Kernel k = croq::test::interpreted(
      "__co__ s32 [N] unread(s32 [N] a) {\n  global s32 [N] never;\n  s32 [N] out;\n"
      "  parallel i by N\n    out.at(i) = a.at(i) + never.at(i);\n  return out;\n}\n");
  auto a = croq::make_spandata<croq::s32>(5);
  a.fill_random(-100, 100, 9);
  croq::Tensor out = k(a.view());
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(static_cast<const croq::s32*>(out.data())[i], a[i] - 1) << i;
}

// A result written into the caller's tensor (LaunchOptions::output) keeps
// the caller's values where the program writes nothing, as the GPU's
// kernels writing into that tensor do (the interpreter used to start the
// result at zero and copy it all back).
TEST(InterpretInitialValues, TheCallersOutputKeepsWhatTheProgramLeavesAlone) {
  croq::Kernel k = croq::test::interpreted(
      "__co__ s32 [N] firsts(s32 [N] a) {\n  s32 [N] out;\n"
      "  parallel i by 3\n    out.at(i) = a.at(i) * 2;\n  return out;\n}\n");
  auto a = croq::make_spandata<croq::s32>(8);
  a.fill_random(-100, 100, 10);
  std::vector<croq::s32> into(8, 77);
  croq::TensorView out = croq::TensorView::contiguous(into.data(), croq::DType::s32, croq::Shape{8});
  croq::LaunchOptions launch;
  launch.output = &out;
  std::vector<croq::Arg> args{a.view()};
  EXPECT_FALSE(k.launch(args, launch).defined());
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(into[i], i < 3 ? a[i] * 2 : 77) << i;
}

}  // namespace
