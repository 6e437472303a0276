// Functions returning a number (tests/common/returned_number_source.hpp) in
// interpret mode: the call returns it as a rank-0 host tensor, against the
// host references (the GPU runs the same programs in
// tests/gpu/returned_number_gpu_test.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/host_statement_sources.hpp"
#include "common/returned_number_source.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace croq {
namespace {

template <typename T>
T only_element(const Tensor& t, DType dtype) {
  EXPECT_EQ(t.dtype(), dtype);
  EXPECT_EQ(t.shape().rank(), 0);
  EXPECT_EQ(t.memory(), MemoryKind::host);
  T v{};
  std::memcpy(&v, t.data(), sizeof v);
  return v;
}

TEST(ReturnedNumberInterp, HostCountBesideTheKernelsTensor) {
  Kernel k = test::interpreted(test::kReturnedCountSource);
  EXPECT_TRUE(k.returns_tensor());
  for (std::int64_t rounds : {std::int64_t{0}, std::int64_t{1}, std::int64_t{4}}) {
    std::vector<float> a = test::seeded_floats(70, 9);
    const std::vector<float> want = test::returned_count_tensor(a, rounds);
    Tensor r = k(TensorView::contiguous(a.data(), DType::f32, Shape{70}), rounds);
    EXPECT_EQ(only_element<std::int32_t>(r, DType::s32), test::returned_count(70, rounds)) << rounds;
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], want[i]) << "rounds " << rounds << " at " << i;
  }
}

TEST(ReturnedNumberInterp, EarlyReturnsInHostBranchesAndLoops) {
  CompileOptions options;
  options.interpret = true;
  options.entry = "clamped";
  Kernel clamped = compile(test::kReturnedNumbersSource, options);
  for (std::int32_t n : {0, 1, 3, 8, 10, 11, 40})
    EXPECT_EQ(only_element<std::int32_t>(clamped(n), DType::s32), test::clamped_reference(n)) << n;
}

TEST(ReturnedNumberInterp, FloatTypesFollowTheExpression) {
  CompileOptions options;
  options.interpret = true;
  options.entry = "halved";
  Kernel halved = compile(test::kReturnedNumbersSource, options);
  EXPECT_EQ(only_element<float>(halved(3.5f, 2), DType::f32), 3.75f);
  options.entry = "precise";
  Kernel precise = compile(test::kReturnedNumbersSource, options);
  EXPECT_EQ(only_element<double>(precise(3), DType::f64), 3.25);
}

TEST(ReturnedNumberInterp, ElementCountsOfATensorArgument) {
  CompileOptions options;
  options.interpret = true;
  options.entry = "elements";
  Kernel elements = compile(test::kReturnedNumbersSource, options);
  std::vector<float> a(15);
  EXPECT_EQ(only_element<std::int32_t>(elements(TensorView::contiguous(a.data(), DType::f32, Shape{3, 5})), DType::s32),
            45);
}

TEST(ReturnedNumberInterp, HostConversionsRoundAndWrapToTheDeclaredTypes) {
  CompileOptions options;
  options.interpret = true;
  options.entry = "converted";
  Kernel converted = compile(test::kReturnedConversionsSource, options);
  std::vector<float> fs = test::seeded_floats(6, 21);
  std::vector<std::int32_t> is{0, 7, -1, 300, -40000, 70000};
  for (std::size_t k = 0; k < is.size(); ++k) {
    const float f = fs[k] * 3000.0f;  // beyond bf16's 8 significant bits
    std::vector<float> a = test::seeded_floats(33, static_cast<unsigned>(k));
    const std::vector<float> want = test::converted_tensor(a, is[k], f);
    Tensor r = converted(TensorView::contiguous(a.data(), DType::f32, Shape{33}), is[k], f);
    EXPECT_EQ(only_element<float>(r, DType::f32), test::converted_reference(is[k], f)) << is[k] << " " << f;
    for (std::size_t x = 0; x < a.size(); ++x) ASSERT_EQ(a[x], want[x]) << is[k] << " at " << x;
  }
  options.entry = "widened";
  Kernel widened = compile(test::kReturnedConversionsSource, options);
  for (std::int32_t i : {0, 5, -1, -123456})
    EXPECT_EQ(only_element<float>(widened(i), DType::f32), static_cast<float>(static_cast<std::uint64_t>(i))) << i;
}

TEST(ReturnedNumberInterp, OutputOptionTakesAHostRankZeroTensor) {
  CompileOptions options;
  options.interpret = true;
  options.entry = "clamped";
  Kernel clamped = compile(test::kReturnedNumbersSource, options);
  std::int32_t into = -1;
  TensorView out = TensorView::contiguous(&into, DType::s32, Shape());
  LaunchOptions launch;
  launch.output = &out;
  std::vector<Arg> args{Arg(7)};
  EXPECT_FALSE(clamped.launch(args, launch).defined());
  EXPECT_EQ(into, test::clamped_reference(7));
  float wrong = 0;
  TensorView bad = TensorView::contiguous(&wrong, DType::f32, Shape());
  launch.output = &bad;
  EXPECT_THROW(clamped.launch(args, launch), ArgumentError);
}

}  // namespace
}  // namespace croq
