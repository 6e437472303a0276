// Barriers, atomics and math builtins on a real device against host
// references: random inputs, outputs poisoned first (every element must be
// written with the right value).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

// Shared-memory histogram: bins cleared, a block barrier, atomic adds, a
// block barrier, the bins written out.
const char* kHistogram = R"(__co__ void histogram(s32 [1024] input, s32 [32] bins) {
  parallel p by 1024 : thread {
    shared s32 [32] counts;
    if (p < 32) { counts.at(p) = 0; }
    sync.barrier : block;
    __atomic_add(counts.at(input.at(p) % 32), 1);
    sync.barrier : block;
    if (p < 32) { bins.at(p) = counts.at(p); }
  }
}
)";

TEST(GpuBuiltins, SharedHistogramWithBlockBarriersAndAtomicAdd) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(kHistogram);
  for (int trial = 0; trial < 3; ++trial) {
    auto input = make_spandata<s32>(1024);
    input.fill_random(0, 100000, croq::test::next_seed());
    auto bins = make_spandata<s32>(32);
    bins.fill(-7);  // poison
    k(input.view(), bins.view());
    std::vector<int> want(32, 0);
    for (std::size_t i = 0; i < 1024; ++i) ++want[static_cast<std::size_t>(input[i]) % 32];
    for (std::size_t b = 0; b < 32; ++b) ASSERT_EQ(static_cast<int>(bins[b]), want[b]) << "bin " << b;
  }
}

// Each warp writes its lanes' values to shared memory, waits at a warp
// barrier, and reads its neighbour lane's value.
TEST(GpuBuiltins, WarpBarrierOrdersSharedMemoryWithinTheWarp) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(__co__ void rotate_lanes(f32 [8, 128] a, f32 [8, 128] b) {
  parallel r by 8 : block {
    shared f32 [128] s;
    parallel w by 4 : group {
      parallel l by 32 : thread {
        s.at(w # l) = a.at(r, w # l);
        sync.barrier : group;
        b.at(r, w # l) = s.at(w * 32 + (l + 1) % 32);
      }
    }
  }
}
)");
  auto a = make_spandata<float>(8, 128), b = make_spandata<float>(8, 128);
  a.fill_random(-10, 10, croq::test::next_seed());
  b.fill(std::nanf(""));
  k(a.view(), b.view());
  for (std::size_t r = 0; r < 8; ++r)
    for (std::size_t i = 0; i < 128; ++i) {
      const std::size_t from = i / 32 * 32 + (i % 32 + 1) % 32;
      ASSERT_EQ(static_cast<float>(b[r][i]), static_cast<float>(a[r][from])) << r << ", " << i;
    }
}

// One thread fills shared memory at block scope (a running sum), the
// block's threads read it back reversed; the lowering puts a block barrier
// between (no `sync` in the source). Many blocks, so a missing barrier shows.
TEST(GpuBuiltins, BlockScopeSharedWritesAreVisibleToTheThreadLevel) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(__co__ void prefix_reversed(f32 [64, 256] a, f32 [64, 256] b) {
  parallel r by 64 : block {
    shared f32 [256] s;
    s.at(0) = a.at(r, 0);
    foreach i in 255 { s.at(i + 1) = s.at(i) + a.at(r, i + 1); }
    parallel t by 256 : thread {
      b.at(r, t) = s.at(255 - t);
    }
  }
}
)");
  for (int trial = 0; trial < 3; ++trial) {
    auto a = make_spandata<float>(64, 256), b = make_spandata<float>(64, 256);
    a.fill_random(-1, 1, croq::test::next_seed());
    b.fill(std::nanf(""));
    k(a.view(), b.view());
    for (std::size_t r = 0; r < 64; ++r) {
      std::vector<float> sum(256);
      sum[0] = a[r][0];
      for (std::size_t i = 1; i < 256; ++i) sum[i] = sum[i - 1] + static_cast<float>(a[r][i]);
      for (std::size_t t = 0; t < 256; ++t)
        ASSERT_EQ(static_cast<float>(b[r][t]), sum[255 - t]) << "row " << r << ", column " << t;
    }
  }
}

// The old value of an atomic exchange, and an atomic max across all blocks
// into global memory.
TEST(GpuBuiltins, AtomicOldValuesAndGlobalMaximum) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(__co__ void swap_and_max(s32 [N] a, s32 [N] old, s32 [1] top) {
  parallel p by cdiv(N, 128) : block {
    parallel t by 128 : thread {
      if ((p # t) < N) {
        mutable s32 was = __atomic_exch(a.at(p # t), -1);
        old.at(p # t) = was;
        __atomic_max(top.at(0), was);
      }
    }
  }
}
)");
  for (std::size_t n : {std::size_t{1}, std::size_t{300}, std::size_t{4096}}) {
    auto a = make_spandata<s32>(n), old = make_spandata<s32>(n), top = make_spandata<s32>(1);
    a.fill_random(-100000, 100000, croq::test::next_seed());
    std::vector<int> before(n);
    for (std::size_t i = 0; i < n; ++i) before[i] = a[i];
    old.fill(12345678);  // poison
    top.fill(-2147483647);
    k(a.view(), old.view(), top.view());
    int want_top = -2147483647;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(static_cast<int>(old[i]), before[i]) << i;
      ASSERT_EQ(static_cast<int>(a[i]), -1) << i;
      want_top = std::max(want_top, before[i]);
    }
    EXPECT_EQ(static_cast<int>(top[0]), want_top) << "n " << n;
  }
}

long double gelu(long double x) {
  return 0.5L * x * (1 + std::tanh(0.7978845608028654L * (x + 0.044715L * x * x * x)));
}

// Every unary math builtin and the binary ones, summed, in `dtype` (f32 or f64).
std::string math_source(const char* dtype) {
  return std::string("__co__ void math(") + dtype + " [N] x, " + dtype + " [N] y, " + dtype +
         " [N] out) {\n  parallel p by N {\n    a = x.at(p);\n    b = y.at(p);\n"
         "    out.at(p) = __sqrt(a + 2.0f) + __rsqrt(a + 2.0f) + __exp(a) + __exp2f(a) + __expm1(a) +\n"
         "      __log(a + 2.0f) + __log1p(a + 1.0f) + __sin(a) + __cos(a) + __tan(a) + __asin(a * 0.5f) +\n"
         "      __acos(a * 0.5f) + __atan(a) + __sinh(a) + __cosh(a) + __tanh(a) + __ceil(a) + __floor(a) +\n"
         "      __round(a) + __fabs(a) + __frcp_rn(a + 2.0f) + __sign(a) + __sigmoid(a) + __softplus(a) +\n"
         "      __gelu(a) + __pow(a + 2.0f, b) + __atan2(a, b) + __max(a, b) + __min(a, b) +\n"
         "      __fmaf(a, b, a) + __isfinite(a);\n  }\n}\n";
}

// The same sum on the host, in long double.
long double host_math(long double a, long double b) {
  const long double sign = a > 0 ? 1 : a < 0 ? -1 : 0;
  return std::sqrt(a + 2) + 1 / std::sqrt(a + 2) + std::exp(a) + std::exp2(a) + std::expm1(a) + std::log(a + 2) +
         std::log1p(a + 1) + std::sin(a) + std::cos(a) + std::tan(a) + std::asin(a / 2) + std::acos(a / 2) +
         std::atan(a) + std::sinh(a) + std::cosh(a) + std::tanh(a) + std::ceil(a) + std::floor(a) + std::round(a) +
         std::fabs(a) + 1 / (a + 2) + sign + 1 / (1 + std::exp(-a)) + std::log1p(std::exp(a)) + gelu(a) +
         std::pow(a + 2, b) + std::atan2(a, b) + std::fmax(a, b) + std::fmin(a, b) + std::fma(a, b, a) + 1;
}

// Tolerances relative to 1 + |want| (the sum is about 5 to 20). f32: the
// float functions (a few ulp each, __exp2f an approximation) over 31 terms.
// f64: CUDA's double functions are within 2 ulp, so the sum is within about
// 3e-13 of the host's; 1e-12 (1 + |want|) leaves a margin of 50x and is far
// below an f32 result's error (about 1e-7 relative: the former bound, 2e-4,
// passed a kernel that computed in float): MathToleranceInF64RejectsAnF32Path.
constexpr double kMathToleranceF32 = 2e-4, kMathToleranceF64 = 1e-12;

// The indices of `got` (for inputs x, y) outside `tolerance` (1 + |want|),
// the first few reported as failures when `report`.
std::vector<std::size_t> math_mismatches(const std::vector<double>& x, const std::vector<double>& y,
                                         const std::vector<double>& got, double tolerance, const char* what,
                                         bool report) {
  std::vector<std::size_t> bad;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const long double want = host_math(x[i], y[i]);
    if (!(std::fabs(got[i] - static_cast<double>(want)) <= tolerance * (1 + std::fabs(static_cast<double>(want))))) {
      if (report && bad.size() < 5)
        ADD_FAILURE() << what << ": x " << x[i] << " y " << y[i] << ": got " << got[i] << ", want "
                      << static_cast<double>(want);
      bad.push_back(i);
    }
  }
  return bad;
}

// Runs the math kernel in T on x, y (converted to T); returns its outputs.
template <typename T>
std::vector<double> device_math(const char* dtype, const std::vector<double>& x, const std::vector<double>& y) {
  Kernel k = compile(math_source(dtype));
  const std::size_t n = x.size();
  auto dx = make_spandata<T>(n), dy = make_spandata<T>(n), out = make_spandata<T>(n);
  for (std::size_t i = 0; i < n; ++i) {
    dx[i] = static_cast<T>(x[i]);
    dy[i] = static_cast<T>(y[i]);
  }
  out.fill(std::numeric_limits<T>::quiet_NaN());
  k(dx.view(), dy.view(), out.view());
  std::vector<double> got(n);
  for (std::size_t i = 0; i < n; ++i) got[i] = static_cast<T>(out[i]);
  return got;
}

// Inputs in (-0.9, 0.9) as doubles; for f32, their float values.
std::vector<double> math_inputs(bool as_float) {
  auto v = make_spandata<double>(1000);
  v.fill_random(-0.9, 0.9, croq::test::next_seed());
  std::vector<double> out(v.data(), v.data() + 1000);
  if (as_float)
    for (double& e : out) e = static_cast<float>(e);
  return out;
}

TEST(GpuBuiltins, MathBuiltinsMatchTheHostInF32) {
  CROQ_REQUIRE_GPU();
  const std::vector<double> x = math_inputs(true), y = math_inputs(true);
  EXPECT_TRUE(math_mismatches(x, y, device_math<float>("f32", x, y), kMathToleranceF32, "f32", true).empty());
}

TEST(GpuBuiltins, MathBuiltinsMatchTheHostInF64) {
  CROQ_REQUIRE_GPU();
  const std::vector<double> x = math_inputs(false), y = math_inputs(false);
  EXPECT_TRUE(math_mismatches(x, y, device_math<double>("f64", x, y), kMathToleranceF64, "f64", true).empty());
}

// The f64 bound against an f32 path (the same sum computed in float on the
// same inputs): it must reject nearly every element.
TEST(GpuBuiltins, MathToleranceInF64RejectsAnF32Path) {
  CROQ_REQUIRE_GPU();
  const std::vector<double> x = math_inputs(false), y = math_inputs(false);
  const std::vector<double> f32_path = device_math<float>("f32", x, y);
  EXPECT_GT(math_mismatches(x, y, f32_path, kMathToleranceF64, "f32 path", false).size(), x.size() * 9 / 10);
  EXPECT_TRUE(math_mismatches(x, y, f32_path, kMathToleranceF32, "f32 path", true).empty());
}

// Half-precision elements compute in float and round back once.
TEST(GpuBuiltins, MathOnF16ElementsRoundsTheFloatResult) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(__co__ void f(f16 [N] x, f16 [N] out) {
  parallel p by N
    out.at(p) = __exp(x.at(p));
}
)");
  auto x = make_spandata<f16>(777), out = make_spandata<f16>(777);
  x.fill_random(-2.0f, 2.0f, croq::test::next_seed());
  out.fill(f16(-1000.0f));
  k(x.view(), out.view());
  for (std::size_t i = 0; i < 777; ++i) {
    const f16 in = x[i], got = out[i];
    const float want = static_cast<float>(f16(std::exp(static_cast<float>(in))));
    ASSERT_EQ(static_cast<float>(got), want) << i;
  }
}

// Named shapes and tuples size the levels and tiles; `with` binds a
// tuple of indices that `foreach` walks (a run-time bound included).
TEST(GpuBuiltins, NamedShapesAndWithLoopsMatchTheHost) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(__co__ void f(s32 [M, 32] a, s32 [M, 32] out, int reps) {
  tile : [4, 32];
  ituple<2> threads = {4, 8};
  parallel p by a.span(0) / tile(0) : block {
    shared s32 [tile] s;
    t = dma.copy a.subspan(tile(0), tile(1)).at(p, 0) => s;
    parallel {i, j} by threads : thread {
      with q = {c} in [tile(1) / threads(1)], r in [reps] {
        foreach r, q {
          out.at(p # i, j # c) = s.at(i, j # c) * 2 + r;
        }
      }
    }
  }
}
)");
  for (int reps : {1, 3}) {
    auto a = make_spandata<s32>(64, 32), out = make_spandata<s32>(64, 32);
    a.fill_random(-1000, 1000, croq::test::next_seed());
    out.fill(-123456789);  // poison
    k(a.view(), out.view(), reps);
    for (std::size_t i = 0; i < 64; ++i)
      for (std::size_t j = 0; j < 32; ++j)
        ASSERT_EQ(static_cast<int>(out[i][j]), static_cast<int>(a[i][j]) * 2 + reps - 1) << i << ", " << j;
  }
}

// PTX inline assembly: written outputs, read-written outputs, named
// operands and an immediate, on integers and floats.
TEST(GpuBuiltins, InlinePtxComputesIntoElementsAndScalars) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(__co__ void f(s32 [N] a, f32 [N] x, s32 [N] sum, f32 [N] scaled, int k) {
  parallel p by N {
    mutable s32 t = 0;
    __asm__ volatile("add.s32 %[d], %[s], %2;" : [d] "=r"(t) : [s] "r"(a.at(p)), "n"(5) : "memory");
    __asm__("add.s32 %0, %0, %1;" : "+r"(t) : "r"(k));
    sum.at(p) = t;
    scaled.at(p) = x.at(p);
    __asm__("mul.rn.f32 %0, %0, %1;" : "+f"(scaled.at(p)) : "f"(0.5f));
  }
}
)");
  const std::size_t n = 1000;
  auto a = make_spandata<s32>(n), sum = make_spandata<s32>(n);
  auto x = make_spandata<float>(n), scaled = make_spandata<float>(n);
  a.fill_random(-100000, 100000, croq::test::next_seed());
  x.fill_random(-10, 10, croq::test::next_seed());
  sum.fill(-1);
  scaled.fill(std::nanf(""));
  k(a.view(), x.view(), sum.view(), scaled.view(), 11);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(static_cast<int>(sum[i]), static_cast<int>(a[i]) + 5 + 11) << i;
    ASSERT_EQ(static_cast<float>(scaled[i]), static_cast<float>(x[i]) * 0.5f) << i;
  }
}

}  // namespace
}  // namespace croq
