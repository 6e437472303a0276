// croq/choreo.hpp on the host: the names Croqtile's test programs use.
#include <gtest/gtest.h>

#include <type_traits>

#include "croq/choreo.hpp"

namespace {

TEST(ChoreoCompat, SpandataShapeAndIndexing) {
  auto a = choreo::make_spandata<choreo::s32>(2, 3, 4);
  static_assert(std::is_same_v<decltype(a), choreo::spanned_data<choreo::s32, 3>>);
  static_assert(std::is_same_v<decltype(a[0][0][0]), choreo::s32&>);
  EXPECT_EQ(a.rank(), 3u);
  EXPECT_EQ(a.shape()[0], 2u);
  EXPECT_EQ(a.shape()[2], 4u);
  EXPECT_EQ(a.element_count(), 24u);
  EXPECT_EQ(a.bytes(), 96u);
  for (int i = 0; i < 24; ++i) a.data()[i] = i;
  EXPECT_EQ(a[1][2][3], 23);
  EXPECT_EQ(a[1][0][1], 13);
  a[0][1][2] = -5;
  EXPECT_EQ(a.data()[6], -5);
  auto element = a[1][1][1];  // `auto` copies the element, as upstream's T& does
  static_assert(std::is_same_v<decltype(element), choreo::s32>);
  const auto& c = a;
  EXPECT_EQ(c[1][2][3], 23);
  auto b = choreo::make_spandata<choreo::s32, 2>({4, 6});
  EXPECT_EQ(b.shape()[1], 6u);
  std::ostringstream os;
  os << b.shape();
  EXPECT_EQ(os.str(), "4 6 ");
}

TEST(ChoreoCompatDeathTest, OutOfRangeIndexAborts) {
  auto a = choreo::make_spandata<choreo::f32>(2, 3);
  EXPECT_DEATH(a[1][3] = 1.0f, "index 3 out of range for a dimension of extent 3");
  EXPECT_DEATH(a[2][0] = 1.0f, "index 2 out of range for a dimension of extent 2");
}

TEST(ChoreoCompat, FillAndFillRandom) {
  auto a = choreo::make_spandata<choreo::s8>(1000);
  a.fill_random(-10, 10);
  bool low = false, high = false;
  for (std::size_t i = 0; i < a.element_count(); ++i) {
    EXPECT_GE(a[i], -10);
    EXPECT_LE(a[i], 10);
    low |= a[i] == -10;
    high |= a[i] == 10;
  }
  EXPECT_TRUE(low && high) << "integer bounds are inclusive";
  auto h = choreo::make_spandata<choreo::f16>(8, 8);
  h.fill_random(1, 10);
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t j = 0; j < 8; ++j) {
      EXPECT_GE(choreo::f16_to_f32(h[i][j]), 1.0f);
      EXPECT_LE(choreo::f16_to_f32(h[i][j]), 10.0f);
    }
  h.fill(0.5f);
  EXPECT_EQ(choreo::to_f32(h[7][7]), 0.5f);
  h.fill(0);
  EXPECT_EQ(choreo::to_f32(h[3][3]), 0.0f);
  auto e = choreo::make_spandata<choreo::f8_e4m3>(4);
  e.fill_random(-2.0f, 2.0f);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_LE(std::fabs(choreo::to_f32(e[i])), 2.0f);
}

TEST(ChoreoCompat, Conversions) {
  EXPECT_EQ(choreo::f16_to_f32(choreo::f32_to_f16(1.5f)), 1.5f);
  EXPECT_EQ(choreo::f16_to_f32(choreo::f32_to_f16(65504.0f)), 65504.0f);
  EXPECT_EQ(choreo::f16_to_f32(choreo::f32_to_f16(1.0f + 1.0f / 4096)), 1.0f);  // below half an ulp
  EXPECT_EQ(choreo::bf16_to_f32(choreo::f32_to_bf16(3.0f)), 3.0f);
  EXPECT_EQ(choreo::to_f32(choreo::utils::from_f32<choreo::bf16>(-0.25f)), -0.25f);
  EXPECT_EQ(choreo::to_f32(choreo::f8_e4m3(448.0f)), 448.0f);
  EXPECT_EQ(choreo::to_f32(choreo::f8_e5m2(-0.5f)), -0.5f);
  EXPECT_EQ(choreo::to_f32(7), 7.0f);
  EXPECT_EQ(__half2float(__float2half(2.5f)), 2.5f);
  EXPECT_EQ(__bfloat162float(__float2bfloat16(2.5f)), 2.5f);
  // The small floats: e2m1 holds 0, 0.5, 1, 1.5, 2, 3, 4, 6; e2m3 up to
  // 7.5; e3m2 up to 28. Values round to the nearest and saturate.
  EXPECT_EQ(float(choreo::f4_e2m1(2.6f)), 3.0f);
  EXPECT_EQ(float(choreo::f4_e2m1(-1.4f)), -1.5f);
  EXPECT_EQ(float(choreo::f4_e2m1(100.0f)), 6.0f);
  EXPECT_EQ(float(choreo::f6_e2m3(7.5f)), 7.5f);
  EXPECT_EQ(float(choreo::f6_e2m3(0.125f)), 0.125f);
  EXPECT_EQ(float(choreo::f6_e3m2(28.0f)), 28.0f);
  EXPECT_EQ(float(choreo::f6_e3m2(-0.0625f)), -0.0625f);
  // Sub-byte integers wrap into their range.
  EXPECT_EQ(int(choreo::s4(9)), -7);
  EXPECT_EQ(int(choreo::s4(-8)), -8);
  EXPECT_EQ(int(choreo::u4(17)), 1);
  EXPECT_EQ(int(choreo::s6(31)), 31);
  EXPECT_EQ(int(choreo::s2(2)), -2);
  EXPECT_EQ(int(choreo::bin1(3)), 1);
  // tf32 and the scale types.
  EXPECT_EQ(float(choreo::tf32(1.0f + 1.0f / 2048)), 1.0f + 1.0f / 1024);  // ties away from zero
  EXPECT_EQ(float(choreo::f8_ue8m0(5.0f)), 8.0f);                          // powers of two, rounded up
  EXPECT_EQ(float(choreo::f8_ue4m3(500.0f)), 448.0f);
  EXPECT_EQ(float(choreo::f8_ue4m3(-2.0f)), 0.0f);
  static_assert(choreo::element_dtype<choreo::tf32>::value == croq::DType::tf32 &&
                choreo::element_dtype<choreo::f8_ue8m0>::value == croq::DType::f8_ue8m0 &&
                choreo::element_dtype<choreo::f8_ue4m3>::value == croq::DType::f8_ue4m3);
  auto bits = choreo::make_spandata<choreo::u2>(64);
  bits.fill_random(0, 3);
  for (std::size_t i = 0; i < 64; ++i) EXPECT_TRUE(bits[i] >= 0 && bits[i] <= 3);
}

TEST(ChoreoCompat, SpanViewsOfProgramMemory) {
  float buffer[12] = {};
  auto v = choreo::make_spanview<2, choreo::f32>(buffer, {3, 4});
  static_assert(std::is_same_v<decltype(v), choreo::spanned_view<float, 2>>);
  v[2][1] = 9.0f;
  EXPECT_EQ(buffer[9], 9.0f);
  auto w = choreo::make_spanview<choreo::f32, 1>(static_cast<void*>(buffer), {12});
  EXPECT_EQ(w[9], 9.0f);
  int grid[2][3] = {{1, 2, 3}, {4, 5, 6}};
  auto g = choreo::make_spanview(grid);
  EXPECT_EQ(g.shape()[1], 3u);
  EXPECT_EQ(g[1][2], 6);
  auto d = choreo::make_spandata<choreo::s32>(3);
  auto dv = d.view();
  dv[1] = 4;
  EXPECT_EQ(d[1], 4);
  auto copy = choreo::copy_as_spanned<1>(buffer, {12});
  EXPECT_EQ(copy[9], 9.0f);
}

TEST(ChoreoCompat, ArgumentsForKernels) {
  auto a = choreo::make_spandata<choreo::f16>(4, 8);
  croq::Arg arg = choreo::host::to_arg(a);
  ASSERT_EQ(arg.kind(), croq::Arg::Kind::tensor);
  EXPECT_EQ(arg.view().dtype, croq::DType::f16);
  EXPECT_EQ(arg.view().shape, (croq::Shape{4, 8}));
  EXPECT_EQ(arg.view().memory, croq::MemoryKind::host);
  EXPECT_EQ(arg.view().data, a.data());
  float host[6] = {};
  croq::Arg from_view = choreo::host::to_arg(choreo::make_spanview<1, choreo::f32>(host, {6}));
  EXPECT_EQ(from_view.view().memory, croq::MemoryKind::host);  // not a CUDA allocation
  EXPECT_EQ(choreo::host::to_arg(3).kind(), croq::Arg::Kind::integer);
  EXPECT_EQ(choreo::host::to_arg(true).integer(), 1);
  croq::Arg half_scalar = choreo::host::to_arg(choreo::f32_to_f16(0.5f));
  EXPECT_EQ(half_scalar.kind(), croq::Arg::Kind::floating);
  EXPECT_EQ(half_scalar.floating(), 0.5);
  auto small = choreo::make_spandata<choreo::f4_e2m1>(4);
  EXPECT_EQ(choreo::host::to_arg(small).view().dtype, croq::DType::f4_e2m1);
}

// Upstream host programs' sub-byte types are libcroqjit's: they pass to
// kernels and come back from them a byte per element.
TEST(ChoreoCompat, SubByteTypesAsUpstreamProgramsUseThem) {
  static_assert(std::is_same_v<choreo::f6_e2m3, croq::f6_e2m3> && std::is_same_v<choreo::s4, croq::s4> &&
                std::is_same_v<choreo::bin1, croq::bin1>);
  static_assert(choreo::element_dtype<choreo::u6>::known && choreo::element_dtype<choreo::f6_e3m2>::known);
  auto a = choreo::make_spandata<choreo::f6_e2m3>(2, 8);
  a.fill_random(-2.0f, 2.0f);
  for (std::size_t j = 0; j < 8; ++j) {
    const float v = float(a[1][j]);
    EXPECT_TRUE(v >= -2.0f && v <= 2.0f) << v;
    EXPECT_EQ(float(choreo::f6_e2m3(v)), v);  // every stored value is representable
  }
  EXPECT_EQ(float(choreo::f4_e2m1(float(choreo::f4_e2m1(1.5f)) + float(choreo::f4_e2m1(1.5f)))), 3.0f);
  auto n = choreo::make_spandata<choreo::u4>(6, 4);
  n.fill_random(0, 10);
  choreo::u4 ref = static_cast<choreo::u4>(n[0][0] + n[0][1]);  // wraps as the device's u4 does
  EXPECT_EQ(static_cast<int>(ref), (static_cast<int>(n[0][0]) + static_cast<int>(n[0][1])) % 16);
  croq::Arg arg = choreo::host::to_arg(n);
  EXPECT_EQ(arg.view().dtype, croq::DType::u4);
  EXPECT_EQ(arg.view().bytes(), 24u);
  croq::Tensor t = croq::Tensor::empty(croq::DType::s2, croq::Shape{3}, croq::MemoryKind::host);
  const std::uint8_t bytes[3] = {0x3, 0x1, 0x2};  // -1, 1, -2
  std::memcpy(t.data(), bytes, 3);
  auto r = choreo::host::from_tensor<choreo::s2, 1>(t, "f");
  EXPECT_EQ(r[0], -1);
  EXPECT_EQ(r[2], -2);
  EXPECT_TRUE(r[1] != r[2]);
}

TEST(ChoreoCompat, ResultsFromTensors) {
  croq::Tensor t = croq::Tensor::empty(croq::DType::s32, croq::Shape{2, 3}, croq::MemoryKind::host);
  for (int i = 0; i < 6; ++i) static_cast<int*>(t.data())[i] = 10 * i;
  auto r = choreo::host::from_tensor<choreo::s32, 2>(t, "f");
  EXPECT_EQ(r.shape()[1], 3u);
  EXPECT_EQ(r[1][2], 50);
  try {
    choreo::host::from_tensor<choreo::s32, 3>(t, "f");
    FAIL();
  } catch (const croq::Error& e) {
    EXPECT_STREQ(e.what(), "`f` returned s32 [2, 3], not the rank-3 tensor its declaration gives");
  }
  EXPECT_THROW((choreo::host::from_tensor<choreo::f32, 2>(t, "f")), croq::Error);
  EXPECT_THROW((choreo::host::from_tensor<choreo::s32, 2>(croq::Tensor(), "f")), croq::Error);
}

TEST(ChoreoCompatDeathTest, AssertionsAbortWithTheirMessage) {
  choreo::choreo_assert(true, "never printed");
  choreo::abend_true(0);
  choreo::abend_false(true);
  EXPECT_DEATH(choreo::choreo_assert(false, "values are not equal."),
               "choreo_compat_test.cpp:[0-9]+: choreo assertion failed: values are not equal.");
  EXPECT_DEATH(choreo::abend_true(2), "failure");
  EXPECT_DEATH(choreo::runtime_check(false, "bad shape"), "choreo runtime check failed: bad shape");
}

// lhs [4, 3] x rhs [3, 5] (and rhs as [5, 3]) on the host.
struct Product {
  choreo::spanned_data<choreo::f32, 2> lhs = choreo::make_spandata<choreo::f32>(4, 3);
  choreo::spanned_data<choreo::f32, 2> rhs = choreo::make_spandata<choreo::f32>(3, 5);
  choreo::spanned_data<choreo::f32, 2> rhs_t = choreo::make_spandata<choreo::f32>(5, 3);
  choreo::spanned_data<choreo::f32, 2> res = choreo::make_spandata<choreo::f32>(4, 5);
  Product() {
    lhs.fill_random(-1.0f, 1.0f);
    rhs.fill_random(-1.0f, 1.0f);
    for (std::size_t k = 0; k < 3; ++k)
      for (std::size_t j = 0; j < 5; ++j) rhs_t[j][k] = rhs[k][j];
    for (std::size_t i = 0; i < 4; ++i)
      for (std::size_t j = 0; j < 5; ++j) {
        float sum = 0;
        for (std::size_t k = 0; k < 3; ++k) sum += lhs[i][k] * rhs[k][j];
        res[i][j] = sum;
      }
  }
};

TEST(ChoreoCompatDeathTest, MatmulVerifiers) {
  Product p;
  choreo::verify_matmul_row_col_subset(p.lhs, p.rhs, p.res, 1e-5f, 1e-5f, 8, 8);
  choreo::verify_matmul_row_row_subset(p.lhs, p.rhs_t, p.res, 1e-5f, 1e-5f);
  choreo::SampledVerifierConfig config;
  config.num_samples = 7;
  config.base_tol = 1e-5f;
  auto lhs_view = p.lhs.view();
  auto rhs_view = p.rhs_t.view();
  auto res_view = p.res.view();
  choreo::verify_matmul_row_row_sampled(lhs_view, rhs_view, res_view, config);
  choreo::verify_matmul_row_col_sampled(p.lhs, p.rhs, p.res, config);
  p.res[3][4] += 1.0f;
  EXPECT_DEATH(choreo::verify_matmul_row_col_subset(p.lhs, p.rhs, p.res, 1e-5f, 1e-5f, 8, 8),
               "choreo assertion failed: values are not equal");
  config.num_samples = 20;  // every position
  EXPECT_DEATH(choreo::verify_matmul_row_row_sampled(p.lhs, p.rhs_t, p.res, config),
               "sampled verification failed");
}

TEST(ChoreoCompat, TimingRunsWarmupAndRepeats) {
  int calls = 0;
  choreo::TimerOption options;
  options.warmup = 2;
  options.repeat = 5;
  options.sync = false;
  double ms = choreo::timing([&](int step) { calls += step; }, options, 1);
  EXPECT_EQ(calls, 7);
  EXPECT_GE(ms, 0.0);
}

}  // namespace
