// croq::Kernel on a real device: host and device arguments, odd shapes with
// tails, and concurrent callers. Fresh random data, poisoned outputs.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <thread>

#include "croq/croq.hpp"
#include "gpu_test_util.hpp"
#include "jit/jit_compiler.hpp"

namespace croq {
namespace {

const char* kAdd = R"(__co__ f32 [M, N] add(f32 [M, N] lhs, f32 [M, N] rhs) {
  f32 [lhs.span] output;
  parallel {i, j} by [M, N]
    output.at(i, j) = lhs.at(i, j) + rhs.at(i, j);
  return output;
}
)";

// 16 x 16 tiles through shared memory; M and N need not be multiples of 16.
const char* kTiledAdd = R"(__co__ s32 [M, N] tiled_add(s32 [M, N] lhs, s32 [M, N] rhs) {
  s32 [lhs.span] output;
  parallel {tr, tc} by [cdiv(M, 16), cdiv(N, 16)] : block {
    l = dma.copy lhs.subspan(16, 16).at(tr, tc) => shared;
    r = dma.copy rhs.subspan(16, 16).at(tr, tc) => shared;
    parallel {i, j} by [16, 16] : thread
      output.at(tr # i, tc # j) = l.data.at(i, j) + r.data.at(i, j);
  }
  return output;
}
)";

// A void kernel writing into a caller-provided output.
const char* kScale = R"(__co__ void scale(f32 [N] x, f32 [N] y) {
  parallel i by N
    y.at(i) = x.at(i) * 3.0f;
}
)";

TEST(GpuKernel, HostArgumentsRandomShapes) {
  CROQ_REQUIRE_GPU();
  Kernel add = compile(kAdd);
  std::mt19937 rng(croq::test::next_seed());
  for (int trial = 0; trial < 6; ++trial) {
    std::size_t m = 1 + rng() % 300, n = 1 + rng() % 300;
    auto lhs = make_spandata<float>(m, n), rhs = make_spandata<float>(m, n);
    lhs.fill_random(-100, 100, croq::test::next_seed());
    rhs.fill_random(-100, 100, croq::test::next_seed());
    Tensor res = add(lhs.view(), rhs.view());
    ASSERT_EQ(res.memory(), MemoryKind::host);
    ASSERT_EQ(res.shape(), (Shape{m, n}));
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j)
        ASSERT_EQ(res[i][j], static_cast<float>(lhs[i][j]) + static_cast<float>(rhs[i][j])) << m << "x" << n;
  }
}

TEST(GpuKernel, TailsAreGuardedForNonMultipleShapes) {
  CROQ_REQUIRE_GPU();
  Kernel add = compile(kTiledAdd);
  for (auto [m, n] : {std::pair<std::size_t, std::size_t>{64, 64}, {100, 37}, {17, 250}, {1, 1}, {31, 33}}) {
    auto lhs = make_spandata<s32>(m, n), rhs = make_spandata<s32>(m, n);
    lhs.fill_random(-1000, 1000, croq::test::next_seed());
    rhs.fill_random(-1000, 1000, croq::test::next_seed());
    Tensor res = add(lhs, rhs);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) ASSERT_EQ(res[i][j], lhs[i][j] + rhs[i][j]) << m << "x" << n;
  }
}

// `auto` returning a tensor declared at function scope, as upstream writes it.
TEST(GpuKernel, AutoReturnOfADeclaredTensor) {
  CROQ_REQUIRE_GPU();
  Kernel add = compile(R"(__co__ auto add(s32 [M, N] lhs, s32 [M, N] rhs) {
  s32 [lhs.span] output;
  parallel {i, j} by [M, N]
    output.at(i, j) = lhs.at(i, j) - rhs.at(i, j);
  return output;
}
)");
  ASSERT_TRUE(add.returns_tensor());
  auto lhs = make_spandata<s32>(37, 70), rhs = make_spandata<s32>(37, 70);
  lhs.fill_random(-1000, 1000, croq::test::next_seed());
  rhs.fill_random(-1000, 1000, croq::test::next_seed());
  Tensor res = add(lhs, rhs);
  ASSERT_EQ(res.shape(), (Shape{37, 70}));
  for (std::size_t i = 0; i < 37; ++i)
    for (std::size_t j = 0; j < 70; ++j) ASSERT_EQ(res[i][j], lhs[i][j] - rhs[i][j]) << i << "," << j;
}

TEST(GpuKernel, DeviceTensorsAreUsedZeroCopy) {
  CROQ_REQUIRE_GPU();
  Kernel scale = compile(kScale);
  auto host = make_spandata<float>(10007);
  host.fill_random(-1, 1, croq::test::next_seed());
  Tensor x = Tensor::copy_of(host.view(), MemoryKind::device);
  Tensor y = Tensor::empty(DType::f32, Shape{10007}, MemoryKind::device);
  CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(y.data()), 0xff, y.bytes());  // poison
  Tensor none = scale(x, y);
  EXPECT_FALSE(none.defined());
  Tensor back = y.to_host();
  for (std::size_t i = 0; i < 10007; ++i) ASSERT_EQ(back[i], static_cast<float>(host[i]) * 3.0f);
  // Host arguments that the kernel writes are copied back.
  auto out = make_spandata<float>(10007);
  out.fill(-7.0f);
  scale(host.view(), out.view());
  for (std::size_t i = 0; i < 10007; ++i) ASSERT_EQ(static_cast<float>(out[i]), static_cast<float>(host[i]) * 3.0f);
}

TEST(GpuKernel, DeviceOutputOnCallerStream) {
  CROQ_REQUIRE_GPU();
  Kernel add = compile(kAdd);
  auto a = make_spandata<float>(129, 65), b = make_spandata<float>(129, 65);
  a.fill_random(-5, 5, croq::test::next_seed());
  b.fill_random(-5, 5, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view()), db = Tensor::copy_of(b.view());
  CUstream stream;
  CROQ_CU(cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING);
  std::array<Arg, 2> args{Arg(da), Arg(db)};
  LaunchOptions opts;
  opts.stream = stream;
  Tensor res = add.launch(args, opts);
  EXPECT_EQ(res.memory(), MemoryKind::device);
  CROQ_CU(cuStreamSynchronize, stream);
  Tensor h = res.to_host();
  for (std::size_t i = 0; i < 129; ++i)
    for (std::size_t j = 0; j < 65; ++j) ASSERT_EQ(h[i][j], static_cast<float>(a[i][j]) + static_cast<float>(b[i][j]));
  CROQ_CU(cuStreamDestroy, stream);
}

TEST(GpuKernel, EightThreadsMixNewAndSeenShapesCompileOnce) {
  CROQ_REQUIRE_GPU();
  Kernel add = compile(kTiledAdd);
  // Shapes unlikely to be cached already (random odd sizes), each used by several threads.
  std::mt19937 rng(croq::test::next_seed());
  std::vector<std::pair<std::size_t, std::size_t>> shapes;
  std::set<std::pair<std::size_t, std::size_t>> distinct;
  while (shapes.size() < 4) {
    std::pair<std::size_t, std::size_t> s{200 + rng() % 900, 200 + rng() % 900};
    if (distinct.insert(s).second) shapes.push_back(s);
  }
  auto before = jit::JitCompiler::global().stats();
  std::vector<std::string> errors(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int iter = 0; iter < 6; ++iter) {
          auto [m, n] = shapes[(t + iter) % shapes.size()];
          auto lhs = make_spandata<s32>(m, n), rhs = make_spandata<s32>(m, n);
          lhs.fill_random(-100, 100, croq::test::next_seed());
          rhs.fill_random(-100, 100, croq::test::next_seed());
          Tensor res = add(lhs, rhs);
          for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j)
              if (res[i][j] != lhs[i][j] + rhs[i][j]) throw std::runtime_error("wrong value");
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_TRUE(errors[t].empty()) << "thread " << t << ": " << errors[t];
  auto after = jit::JitCompiler::global().stats();
  EXPECT_EQ((after.nvrtc_compiles + after.disk_hits) - (before.nvrtc_compiles + before.disk_hits), 4u)
      << "each new signature must be specialized exactly once";
}

}  // namespace
}  // namespace croq
