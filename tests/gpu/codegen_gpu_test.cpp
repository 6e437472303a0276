// Codegen features on a real device: vectorized staging copies (aligned and
// misaligned pointers, several element sizes), dma.pad into shared and
// local memory, span_as and dynamic dims. Fresh random data, outputs
// poisoned before every launch, exact comparison with host references.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

template <typename T>
std::vector<T> random_values(std::size_t n, int lo, int hi) {
  std::mt19937 rng(croq::test::next_seed());
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(rng));
  return v;
}

// A device allocation with room for `pad_bytes` in front, so views can start
// at a chosen misalignment.
struct DeviceArray {
  DeviceArray(std::size_t bytes, std::size_t pad_bytes) : buffer(bytes + 64), offset(pad_bytes) {}
  test::DeviceBuffer buffer;
  std::size_t offset;
  void* data() const { return reinterpret_cast<void*>(buffer.ptr() + offset); }
  TensorView view(DType t, Shape shape) const { return TensorView::contiguous(data(), t, shape, MemoryKind::device); }
  template <typename T> void upload(const std::vector<T>& v) {
    CROQ_CU(cuMemcpyHtoD, buffer.ptr() + offset, v.data(), v.size() * sizeof(T));
  }
  template <typename T> std::vector<T> download(std::size_t n) const {
    std::vector<T> v(n);
    CROQ_CU(cuMemcpyDtoH, v.data(), buffer.ptr() + offset, n * sizeof(T));
    return v;
  }
};

std::string staging_kernel(const std::string& dtype) {
  return "__co__ void stage(" + dtype + " [M, N] a, " + dtype + " [M, N] b) {\n"
         "  parallel {p, q} by [M / 16, N / 32] : block {\n"
         "    t = dma.copy a.chunkat(p, q) => shared;\n"
         "    dma.copy t.data => b.chunkat(p, q);\n"
         "  }\n"
         "}\n";
}

template <typename T>
void check_staging_round_trip(DType dtype, const std::string& name) {
  Kernel stage = compile(staging_kernel(name));
  struct Case { std::size_t m, n, misalign_elems; };
  // Aligned tiles (vectorized), 1- and 2-element misaligned pointers
  // (narrower vectors or scalar), and shapes whose tiles do not divide
  // (guarded scalar copies).
  for (Case c : {Case{64, 128, 0}, Case{32, 96, 1}, Case{48, 64, 2}, Case{40, 100, 0}, Case{17, 33, 3}}) {
    std::size_t count = c.m * c.n, bytes = count * sizeof(T);
    DeviceArray a(bytes, c.misalign_elems * sizeof(T)), b(bytes, 0);
    std::vector<T> host = random_values<T>(count, -100, 100);
    a.upload(host);
    b.buffer.poison();
    stage.launch(std::array<Arg, 2>{Arg(a.view(dtype, Shape{c.m, c.n})), Arg(b.view(dtype, Shape{c.m, c.n}))});
    CROQ_CU(cuCtxSynchronize);
    std::vector<T> got = b.download<T>(count);
    for (std::size_t i = 0; i < count; ++i)
      ASSERT_EQ(got[i], host[i]) << name << " " << c.m << "x" << c.n << " misaligned by " << c.misalign_elems
                                 << " at element " << i;
  }
}

TEST(GpuCodegen, VectorizedStagingCopiesAnyAlignment) {
  CROQ_REQUIRE_GPU();
  check_staging_round_trip<float>(DType::f32, "f32");
  check_staging_round_trip<std::int16_t>(DType::s16, "s16");
  check_staging_round_trip<std::uint8_t>(DType::u8, "u8");
  check_staging_round_trip<double>(DType::f64, "f64");
}

// Padded extents: rows 2 + 3 + 8 = 13; columns 1 + 0 + 8 + 7 * 1 = 16.
const char* kPadShared = R"(__co__ void pad_tiles(s32 [M, N] a, s32 [P, Q] out) {
  parallel {p, q} by [M / 8, N / 8] : block {
    t = dma.pad<{2, 1}, {3, 0}, {0, 1}, -7> a.chunkat(p, q) => shared;
    dma.copy t.data => out.subspan(13, 16).at(p, q);
  }
}
)";

TEST(GpuCodegen, PadIntoSharedWithInteriorPadding) {
  CROQ_REQUIRE_GPU();
  Kernel pad = compile(kPadShared);
  for (auto [m, n] : {std::pair<std::size_t, std::size_t>{8, 8}, {24, 40}, {64, 16}}) {
    std::size_t tiles_m = m / 8, tiles_n = n / 8, p = tiles_m * 13, q = tiles_n * 16;
    auto a = make_spandata<s32>(m, n);
    a.fill_random(-1000, 1000, croq::test::next_seed());
    Tensor da = Tensor::copy_of(a.view());
    Tensor out = Tensor::empty(DType::s32, Shape{p, q});
    CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out.data()), 0xff, out.bytes());
    pad(da, out);
    CROQ_CU(cuCtxSynchronize);
    Tensor h = out.to_host();
    for (std::size_t i = 0; i < p; ++i)
      for (std::size_t j = 0; j < q; ++j) {
        std::size_t ti = i / 13, tj = j / 16;
        long r = static_cast<long>(i % 13) - 2, c = static_cast<long>(j % 16) - 1;
        bool inside = r >= 0 && r < 8 && c >= 0 && c % 2 == 0 && c / 2 < 8;
        int ref = inside ? static_cast<int>(a[ti * 8 + r][tj * 8 + c / 2]) : -7;
        ASSERT_EQ(h[i][j], ref) << m << "x" << n << " at " << i << ", " << j;
      }
  }
}

// A per-thread pad into local memory with a partial last chunk: 1 + 2 + 4 + 3 = 10.
const char* kPadLocal = R"(__co__ void pad_local(f32 [N] a, f32 [R] out) {
  parallel p by cdiv(N, 4) : block {
    parallel t by 1 : thread {
      l = dma.pad<{1}, {2}, {1}, 0.5f> a.subspan(4).at(p) => local;
      dma.copy l.data => out.subspan(10).at(p);
    }
  }
}
)";

TEST(GpuCodegen, PadIntoLocalMemory) {
  CROQ_REQUIRE_GPU();
  Kernel pad = compile(kPadLocal);
  for (std::size_t n : {4u, 64u, 38u}) {
    std::size_t chunks = (n + 3) / 4;
    auto a = make_spandata<float>(n);
    a.fill_random(-1, 1, croq::test::next_seed());
    auto out = make_spandata<float>(chunks * 10);
    out.fill(std::nanf(""));
    pad(a.view(), out.view());
    for (std::size_t i = 0; i < chunks * 10; ++i) {
      long r = static_cast<long>(i % 10) - 1;
      std::size_t src = (i / 10) * 4 + static_cast<std::size_t>(r / 2);
      // Past the end of `a` (the partial chunk) the copy reads zero.
      float ref = r >= 0 && r % 2 == 0 && r / 2 < 4 ? (src < n ? static_cast<float>(a[src]) : 0.0f) : 0.5f;
      ASSERT_EQ(static_cast<float>(out[i]), ref) << n << " at " << i;
    }
  }
}

// Each block stages a 128-element strip and reads it back as [8, 16].
const char* kSpanAs = R"(__co__ void strip_rows(s32 [N] a, s32 [R, 16] out) {
  parallel p by N / 128 : block {
    strip = dma.copy a.chunkat(p) => shared;
    tile = strip.data.span_as([8, 16]);
    parallel {i, j} by [8, 16] : thread
      out.at(p # i, j) = tile.at(i, j) * 2 + i;
  }
}
)";

TEST(GpuCodegen, SpanAsReinterpretsAStagedStripRowMajor) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(kSpanAs);
  for (std::size_t strips : {1u, 5u, 32u}) {
    std::size_t n = strips * 128, rows = strips * 8;
    auto a = make_spandata<s32>(n);
    a.fill_random(-500, 500, croq::test::next_seed());
    auto out = make_spandata<s32>(rows, 16);
    out.fill(std::numeric_limits<s32>::min());
    k(a.view(), out.view());
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t j = 0; j < 16; ++j)
        ASSERT_EQ(out[r][j], static_cast<int>(a[(r / 8) * 128 + (r % 8) * 16 + j]) * 2 + static_cast<int>(r % 8))
            << strips << " strips at " << r << ", " << j;
  }
}

// A window of `valid` rows copied into a larger shared buffer with .zfill:
// the uncovered rows must read as zero.
const char* kZfillLarger = R"(__co__ void partial_rows(f32 [M, 32] a, f32 [R, 32] out) {
  parallel p by R / 16 : block {
    shared f32 [16, 32] buf;
    dma.copy.zfill a.view(10, 32).from(p * 10, 0) => buf;
    dma.copy buf => out.subspan(16, 32).at(p, 0);
  }
}
)";

TEST(GpuCodegen, ZfillFillsTheUncoveredPartOfALargerDestination) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(kZfillLarger);
  for (std::size_t m : {40u, 37u}) {
    std::size_t blocks = (m + 9) / 10;
    auto a = make_spandata<float>(m, 32);
    a.fill_random(-1, 1, croq::test::next_seed());
    auto out = make_spandata<float>(blocks * 16, 32);
    out.fill(std::nanf(""));
    k(a.view(), out.view());
    for (std::size_t p = 0; p < blocks; ++p)
      for (std::size_t i = 0; i < 16; ++i)
        for (std::size_t j = 0; j < 32; ++j) {
          std::size_t row = p * 10 + i;
          float ref = i < 10 && row < m ? static_cast<float>(a[row][j]) : 0.0f;
          ASSERT_EQ(static_cast<float>(out[p * 16 + i][j]), ref) << m << ": block " << p << " at " << i << ", " << j;
        }
  }
}

// fp8 elements compute as f32: sums into f16, products rounded back to fp8,
// a compound assignment into fp8, a comparison between the two formats and
// a conversion from e5m2 to e4m3. Host reference through croq's own fp8
// conversions (round to nearest even, both sides).
const char* kFp8Arithmetic = R"(__co__ void fp8_math(f8_e4m3 [M, 64] a, f8_e5m2 [M, 64] b, f16 [M, 64] sum,
                         f8_e4m3 [M, 64] mixed, f8_e4m3 [M, 64] larger) {
  parallel p by M, q by 64 {
    sum.at(p, q) = a.at(p, q) + b.at(p, q);
    f8_e4m3 half = a.at(p, q) * 0.5f;
    mixed.at(p, q) = half;
    mixed.at(p, q) += b.at(p, q);
    larger.at(p, q) = b.at(p, q);
    if (a.at(p, q) > b.at(p, q)) larger.at(p, q) = a.at(p, q);
  }
}
)";

TEST(GpuCodegen, Fp8ArithmeticComputesInF32) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(kFp8Arithmetic);
  std::mt19937 rng(croq::test::next_seed());
  std::uniform_real_distribution<float> dist(-12.0f, 12.0f);
  for (std::size_t m : {1u, 7u, 32u}) {
    auto a = make_spandata<f8_e4m3>(m, 64);
    auto b = make_spandata<f8_e5m2>(m, 64);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < 64; ++j) {
        a[i][j] = f8_e4m3(dist(rng));
        b[i][j] = f8_e5m2(dist(rng));
      }
    auto sum = make_spandata<f16>(m, 64);
    auto mixed = make_spandata<f8_e4m3>(m, 64);
    auto larger = make_spandata<f8_e4m3>(m, 64);
    sum.fill(f16(std::nanf("")));
    mixed.fill(f8_e4m3(std::nanf("")));
    larger.fill(f8_e4m3(std::nanf("")));
    k(a.view(), b.view(), sum.view(), mixed.view(), larger.view());
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < 64; ++j) {
        const float x = a[i][j].get(), y = b[i][j].get();
        const float half = f8_e4m3(x * 0.5f);
        ASSERT_EQ(static_cast<float>(sum[i][j].get()), static_cast<float>(f16(x + y))) << m << " rows, at " << i << ", " << j;
        ASSERT_EQ(static_cast<float>(mixed[i][j].get()), static_cast<float>(f8_e4m3(half + y))) << "at " << i << ", " << j;
        ASSERT_EQ(static_cast<float>(larger[i][j].get()), static_cast<float>(f8_e4m3(x > y ? x : y))) << "at " << i << ", " << j;
      }
  }
}

}  // namespace
}  // namespace croq
