// Functions returning a number on a real device
// (tests/common/returned_number_source.hpp): the host program's number
// comes back as a rank-0 host tensor beside what the kernels wrote, against
// the host references (the interpreter runs the same programs in
// tests/interp/returned_number_interp_test.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/host_statement_sources.hpp"
#include "common/returned_number_source.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

std::int32_t only_s32(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DType::s32);
  EXPECT_EQ(t.shape().rank(), 0);
  EXPECT_EQ(t.memory(), MemoryKind::host);
  std::int32_t v = 0;
  std::memcpy(&v, t.data(), sizeof v);
  return v;
}

TEST(GpuReturnedNumber, HostCountBesideTheKernelsTensor) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kReturnedCountSource);
  for (std::int64_t rounds : {std::int64_t{0}, std::int64_t{1}, std::int64_t{5}}) {
    std::vector<float> a = test::seeded_floats(4099, static_cast<unsigned>(test::next_seed()));
    const std::vector<float> want = test::returned_count_tensor(a, rounds);
    const TensorView view = TensorView::contiguous(a.data(), DType::f32, Shape{4099});
    const CallInfo info = k.prepare(std::vector<Arg>{Arg(view), Arg(rounds)});
    EXPECT_TRUE(info.has_result);
    EXPECT_EQ(info.result_dtype, DType::s32);
    EXPECT_EQ(info.result_shape.rank(), 0);
    EXPECT_EQ(only_s32(k(view, rounds)), test::returned_count(4099, rounds)) << rounds;
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], want[i]) << "rounds " << rounds << " at " << i;
  }
}

// Device arguments: the kernels run on the call's stream, the number is the host's.
TEST(GpuReturnedNumber, DeviceArgumentsGiveTheHostNumber) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kReturnedCountSource);
  std::vector<float> a = test::seeded_floats(1000, static_cast<unsigned>(test::next_seed()));
  Tensor d = Tensor::copy_of(TensorView::contiguous(a.data(), DType::f32, Shape{1000}), MemoryKind::device);
  EXPECT_EQ(only_s32(k(d.view(), std::int64_t{3})), test::returned_count(1000, 3));
  const std::vector<float> want = test::returned_count_tensor(a, 3);
  Tensor back = d.to_host();
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(static_cast<const float*>(back.data())[i], want[i]) << i;
}

TEST(GpuReturnedNumber, NoKernelEarlyReturns) {
  CROQ_REQUIRE_GPU();
  CompileOptions options;
  options.entry = "clamped";
  Kernel clamped = compile(test::kReturnedNumbersSource, options);
  for (std::int32_t n : {0, 3, 10, 11, 40}) EXPECT_EQ(only_s32(clamped(n)), test::clamped_reference(n)) << n;
}

TEST(GpuReturnedNumber, HostConversionsReachTheKernel) {
  CROQ_REQUIRE_GPU();
  CompileOptions options;
  options.entry = "converted";
  Kernel converted = compile(test::kReturnedConversionsSource, options);
  const std::vector<float> fs = test::seeded_floats(4, static_cast<unsigned>(test::next_seed()));
  const std::int32_t is[] = {7, -1, 300, 70000};
  for (std::size_t k = 0; k < 4; ++k) {
    const float f = fs[k] * 3000.0f;
    std::vector<float> a = test::seeded_floats(1025, static_cast<unsigned>(test::next_seed()));
    const std::vector<float> want = test::converted_tensor(a, is[k], f);
    Tensor r = converted(TensorView::contiguous(a.data(), DType::f32, Shape{1025}), is[k], f);
    ASSERT_EQ(r.dtype(), DType::f32);
    float got = 0;
    std::memcpy(&got, r.data(), sizeof got);
    EXPECT_EQ(got, test::converted_reference(is[k], f)) << is[k];
    for (std::size_t x = 0; x < a.size(); ++x) ASSERT_EQ(a[x], want[x]) << is[k] << " at " << x;
  }
}

}  // namespace
}  // namespace croq
