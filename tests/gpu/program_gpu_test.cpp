// Programs of several kernels on the GPU: the second kernel reads what the
// first wrote into a global buffer, reversed, so each element crosses blocks
// and only the kernel boundary orders the two.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "common/program_sources.hpp"
#include "croq/croq.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {


// tma.copy loads and stores a program buffer (its descriptor encoded at
// launch from the call's allocation), a partial last tile included.
TEST(GpuProgram, TmaMovesTilesThroughAProgramBuffer) {
  CROQ_REQUIRE_HOPPER("tma.copy");
  Kernel k = compile(croq::test::kProgramBufferTma);
  for (std::size_t m : {std::size_t{32}, std::size_t{1000}}) {
    auto a = make_spandata<float>(m, 64);
    a.fill_random(-10, 10, croq::test::next_seed());
    Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
    Tensor out = Tensor::empty(DType::f32, Shape{m, 64}, MemoryKind::device);
    CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out.data()), 0xff, out.bytes());  // poison (NaN)
    TensorView out_view = out.view();
    LaunchOptions options;
    options.output = &out_view;
    const std::vector<Arg> call{da};
    k.launch(call, options);
    Tensor host = out.to_host();
    const float* got = static_cast<const float*>(host.data());
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t c = 0; c < 64; ++c)
        ASSERT_EQ(got[i * 64 + c], static_cast<float>(a[i][c]) * 2.0f + static_cast<float>(a[i][c]))
            << "M " << m << " at " << i << ", " << c;
  }
}

TEST(GpuProgram, TwoKernelsThroughAGlobalBufferMatchTheHostReference) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(croq::test::kReverseTwice);
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{1} << 20}) {
    auto a = make_spandata<float>(n), b = make_spandata<float>(n);
    a.fill_random(-10, 10, croq::test::next_seed());
    b.fill_random(-10, 10, croq::test::next_seed());
    Tensor da = Tensor::copy_of(a.view(), MemoryKind::device), db = Tensor::copy_of(b.view(), MemoryKind::device);
    Tensor out = Tensor::empty(DType::f32, Shape{n}, MemoryKind::device);
    CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out.data()), 0xff, out.bytes());  // poison (NaN)
    LaunchOptions options;
    TensorView out_view = out.view();
    options.output = &out_view;
    const std::vector<Arg> call{da, db};
    k.launch(call, options);
    Tensor host = out.to_host();
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t r = n - 1 - j;
      const float want = (static_cast<float>(a[r]) + static_cast<float>(b[r])) * 2.0f + static_cast<float>(a[j]);
      ASSERT_NEAR(static_cast<float>(host[j]), want, 1e-4f * (1.0f + std::abs(want))) << "n " << n << " at " << j;
    }
    // Host arguments take the same path (staged, synchronous).
    Tensor again = k(a.view(), b.view());
    for (std::size_t j = 0; j < n; j += 997)
      ASSERT_EQ(static_cast<float>(again[j]), static_cast<float>(host[j])) << j;
  }
}

// The global buffers' memory is kept between calls: each call still starts
// from zeroed buffers (the first kernel accumulates into one), on the same
// stream back to back, on a second stream, and from several host threads.
TEST(GpuProgram, KeptGlobalBuffersStartZeroedOnEveryCallAndStream) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(
__co__ void accumulate(f32 [N] a, f32 [N] &out) {
  global f32 [N] sum;
  parallel i by N
    sum.at(i) += a.at(i) * 2.0;
  parallel j by N
    out.at(j) = sum.at(N - 1 - j) + 1.0;
}
)");
  const std::size_t n = 4099;
  CUstream second = nullptr;
  CROQ_CU(cuStreamCreate, &second, CU_STREAM_NON_BLOCKING);
  auto run = [&](std::uint64_t seed, CUstream stream) {
    auto a = make_spandata<float>(n);
    a.fill_random(-10, 10, seed);
    Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
    Tensor out = Tensor::empty(DType::f32, Shape{n}, MemoryKind::device);
    CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out.data()), 0xff, out.bytes());  // poison (NaN)
    LaunchOptions options;
    options.stream = stream;
    const std::vector<Arg> call{da, out};
    k.launch(call, options);
    CROQ_CU(cuStreamSynchronize, stream);
    Tensor host = out.to_host();
    for (std::size_t j = 0; j < n; ++j) {
      const float want = static_cast<float>(a[n - 1 - j]) * 2.0f + 1.0f;
      if (static_cast<float>(host[j]) != want) return ::testing::AssertionFailure() << "seed " << seed << " at " << j;
    }
    return ::testing::AssertionSuccess();
  };
  for (std::uint64_t seed = 1; seed <= 3; ++seed) EXPECT_TRUE(run(seed, nullptr));
  for (std::uint64_t seed = 4; seed <= 5; ++seed) EXPECT_TRUE(run(seed, second));
  EXPECT_TRUE(run(6, nullptr));
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] { ok[static_cast<std::size_t>(t)] = run(10 + static_cast<std::uint64_t>(t), t % 2 ? second : nullptr) ? 1 : 0; });
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, (std::vector<int>{1, 1, 1, 1}));
  CROQ_CU(cuStreamDestroy, second);
}

// Tensors declared with an initial value start with it on every call: the
// returned tensor (0.5, updated in place), program buffers of f16 and f64
// (an 8-byte pattern of two different halves), zero for atomics' counts;
// shared tiles, a ring of them and local arrays (filled in the kernel).
TEST(GpuProgram, TensorsStartWithTheirDeclaredValues) {
  CROQ_REQUIRE_GPU();
  Kernel starts = compile(croq::test::kInitialValues);
  for (std::size_t n : {std::size_t{1}, std::size_t{4099}}) {
    for (int call = 0; call < 2; ++call) {
      auto a = make_spandata<float>(n);
      a.fill_random(-10, 10, croq::test::next_seed());
      Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
      Tensor out = Tensor::empty(DType::f32, Shape{n}, MemoryKind::device);
      CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out.data()), 0xff, out.bytes());  // poison (NaN)
      LaunchOptions options;
      TensorView out_view = out.view();
      options.output = &out_view;
      const std::vector<Arg> call_args{da};
      starts.launch(call_args, options);
      Tensor host = out.to_host();
      for (std::size_t j = 0; j < n; ++j) {
        const float want = 0.5f + static_cast<float>(a[n - 1 - j]) * 3.0f + 2.0f - 2.0f + 1.25f;
        ASSERT_NEAR(static_cast<float>(host[j]), want, 1e-5f * (1.0f + std::abs(want))) << "n " << n << " at " << j;
      }
    }
  }
  Kernel tiles = compile(croq::test::kInitialTiles);
  auto a = make_spandata<float>(5, 64);
  a.fill_random(-10, 10, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor out = Tensor::empty(DType::f32, Shape{5, 64}, MemoryKind::device);
  CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out.data()), 0xff, out.bytes());  // poison (NaN)
  tiles(da.view(), out.view());
  Tensor host = out.to_host();
  for (std::size_t b = 0; b < 5; ++b)
    for (std::size_t t = 0; t < 64; ++t)
      ASSERT_EQ(static_cast<const float*>(host.data())[b * 64 + t], static_cast<float>(a[b][t]) + 1.5f + 6.0f - 2.0f)
          << b << ", " << t;
}

TEST(GpuProgram, SharedAndLocalValuesComputedAtRunTime) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(croq::test::kComputedInitialTiles);
  auto a = make_spandata<std::int32_t>(7, 32);
  auto out = make_spandata<std::int32_t>(7, 32);
  a.fill_random(-100, 100, croq::test::next_seed());
  out.fill(-1);
  k(a.view(), out.view(), -7.75f, std::int64_t{5});
  for (std::size_t b = 0; b < 7; ++b)
    for (std::size_t t = 0; t < 32; ++t)
      ASSERT_EQ(static_cast<std::int32_t>(out[b][t]), croq::test::computed_initial_reference(a[b][t], b, -7.75f, 5))
          << b << ", " << t;
}

// kAsyncRegions: a = a * 3 (one thread), b = b - 1 (a block each), then
// c = a reversed + b. Host arguments come back written, the reference
// parameters and the plain one alike; device arguments are written in place.
TEST(GpuProgram, AsyncRegionsRunInOrderAndWriteTheirArguments) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(croq::test::kAsyncRegions);
  for (std::size_t n : {std::size_t{1}, std::size_t{777}}) {
    auto a = make_spandata<float>(n), b = make_spandata<float>(n), c = make_spandata<float>(n);
    a.fill_random(-10, 10, croq::test::next_seed());
    b.fill_random(-10, 10, croq::test::next_seed());
    std::vector<float> want_a(n), want_b(n), want_c(n);
    for (std::size_t i = 0; i < n; ++i) {
      want_a[i] = static_cast<float>(a[i]) * 3.0f;
      want_b[i] = static_cast<float>(b[i]) - 1.0f;
    }
    for (std::size_t i = 0; i < n; ++i) want_c[i] = want_a[n - 1 - i] + want_b[i];
    Tensor da = Tensor::copy_of(a.view(), MemoryKind::device), db = Tensor::copy_of(b.view(), MemoryKind::device);
    Tensor dc = Tensor::empty(DType::f32, Shape{n}, MemoryKind::device);
    CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(dc.data()), 0xff, dc.bytes());  // poison (NaN)
    k(da, db, dc);
    Tensor ha = da.to_host(), hb = db.to_host(), hc = dc.to_host();
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(static_cast<float>(ha[i]), want_a[i]) << "n " << n << " a at " << i;
      ASSERT_EQ(static_cast<float>(hb[i]), want_b[i]) << "n " << n << " b at " << i;
      ASSERT_NEAR(static_cast<float>(hc[i]), want_c[i], 1e-4f * (1.0f + std::abs(want_c[i]))) << "n " << n << " c at " << i;
    }
    // Host arguments: staged, and every written one copied back.
    for (std::size_t i = 0; i < n; ++i) c[i] = std::nanf("");
    k(a.view(), b.view(), c.view());
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(static_cast<float>(a[i]), want_a[i]) << "host n " << n << " a at " << i;
      ASSERT_EQ(static_cast<float>(b[i]), want_b[i]) << "host n " << n << " b at " << i;
      ASSERT_NEAR(static_cast<float>(c[i]), want_c[i], 1e-4f * (1.0f + std::abs(want_c[i]))) << "host n " << n << " c at " << i;
    }
  }
}

// kCooperativeExchange: rows cross blocks through two grid barriers; the
// grid (up to 128 blocks) fits on the device at once.
TEST(GpuProgram, CooperativeBlocksExchangeRowsAcrossGridBarriers) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(croq::test::kCooperativeExchange);
  for (std::size_t blocks : {std::size_t{2}, std::size_t{128}}) {
    const std::size_t threads = 96;
    auto x = make_spandata<std::int32_t>(blocks, threads);
    x.fill_random(-1000, 1000, croq::test::next_seed());
    Tensor dx = Tensor::copy_of(x.view(), MemoryKind::device);
    Tensor out = Tensor::empty(DType::s32, Shape{blocks, threads}, MemoryKind::device);
    CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out.data()), 0xa5, out.bytes());  // poison
    LaunchOptions options;
    TensorView out_view = out.view();
    options.output = &out_view;
    // Twice: the counter of each call starts at zero again.
    for (int call = 0; call < 2; ++call) {
      const std::vector<Arg> args{dx};
      k.launch(args, options);
      Tensor host = out.to_host();
      for (std::size_t b = 0; b < blocks; ++b)
        for (std::size_t t = 0; t < threads; ++t) {
          const std::int32_t want = 2 * x[(blocks - b) % blocks][t] + 1 + 2 * x[b][t];
          ASSERT_EQ(host[b][t].as<std::int32_t>(), want) << blocks << " blocks, at " << b << ", " << t;
        }
    }
  }
}

// kTwoStreams on two non-blocking streams (no implicit order with each
// other or the legacy stream): only the call's event joins order the reads
// of `tmp` after its writes, and the result after both.
TEST(GpuProgram, KernelsOnTwoStreamArgumentsKeepTheirOrder) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(croq::test::kTwoStreams);
  CUstream s0 = nullptr, s1 = nullptr;
  CROQ_CU(cuStreamCreate, &s0, CU_STREAM_NON_BLOCKING);
  CROQ_CU(cuStreamCreate, &s1, CU_STREAM_NON_BLOCKING);
  for (std::size_t n : {std::size_t{5}, std::size_t{1} << 22}) {
    auto a = make_spandata<float>(n);
    a.fill_random(-10, 10, croq::test::next_seed());
    Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
    Tensor out = Tensor::empty(DType::f32, Shape{n}, MemoryKind::device);
    CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out.data()), 0xff, out.bytes());  // poison (NaN)
    const std::vector<Arg> args{da, out, Arg(s0), Arg(s1)};
    k.launch(args);
    Tensor host = out.to_host();  // on the legacy stream, which the call joined back
    for (std::size_t j = 0; j < n; ++j)
      ASSERT_EQ(static_cast<float>(host[j]), static_cast<float>(a[n - 1 - j]) * 2.0f + 1.0f) << "n " << n << " at " << j;
  }
  CROQ_CU(cuStreamDestroy, s0);
  CROQ_CU(cuStreamDestroy, s1);
}

}  // namespace
}  // namespace croq
