// The benchmark's transposes (bench/harness/kernels/ew_transpose.co for f32,
// ew_transpose_2byte.co for f16 and bf16) through the whole pipeline, no
// GPU: the tile loop unrolled into straight-line global loads of one element
// each, 4 a thread for f32 (32 x 32 tiles) and 16 for 2-byte elements
// (64 x 64 tiles), none waiting on another, so ptxas can issue them all
// before the shared stores (the sm_90a SASS does: 16 or 32 bytes a thread in
// flight); blocks of 256 threads, one barrier.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>

#include "common/bench_kernel_text.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::count;
using test::generate;
using test::tensor;

// The PTX's global loads of one element each (`width`: the PTX type), and
// whether they all lie in one basic block (no label between the first and
// the last: the loop unrolled).
struct Loads {
  std::size_t count = 0;
  bool straight_line = false;
};

Loads scalar_loads(const std::string& ptx, const std::string& width) {
  const std::regex load("ld\\.global(\\.nc)?\\." + width + "\\b");
  Loads out;
  std::size_t first = std::string::npos, last = 0;
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), load); it != std::sregex_iterator(); ++it) {
    ++out.count;
    first = std::min(first, static_cast<std::size_t>(it->position()));
    last = static_cast<std::size_t>(it->position());
  }
  out.straight_line = out.count > 0 && ptx.substr(first, last - first).find("$L__") == std::string::npos;
  return out;
}

void check(const std::string& source, DType type, std::int64_t m, std::int64_t n, const std::string& width,
           std::size_t loads_per_thread, unsigned shared_bytes) {
  GeneratedKernel k = generate(source, {tensor(type, {m, n}), tensor(type, {n, m})});
  EXPECT_EQ(k.launch.block[0], 256u);
  EXPECT_EQ(k.launch.shared_bytes, shared_bytes);
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "transpose.cu", k.entry, {"sm_90a", false, {}});
  ASSERT_FALSE(out.cubin.empty()) << k.cuda_source;
  const Loads loads = scalar_loads(out.ptx, width);
  EXPECT_EQ(loads.count, loads_per_thread) << out.ptx;
  EXPECT_TRUE(loads.straight_line) << out.ptx;
  EXPECT_EQ(count(out.ptx, "bar.sync"), 1u) << out.ptx;
}

TEST(BenchTranspose, F32ThirtyTwoSquareTiles) {
  const std::string source = croq::test::bench_kernel_text("ew_transpose.co", "f32", "f32");
  check(source, DType::f32, 256, 512, "(f32|b32|u32)", 4, 32 * 33 * 4);
}

TEST(BenchTranspose, TwoByteElementsSixtyFourSquareTiles) {
  for (const char* element : {"f16", "bf16"}) {
    SCOPED_TRACE(element);
    const std::string source = croq::test::bench_kernel_text("ew_transpose_2byte.co", "f16", element);
    check(source, test::dtype_of(element), 256, 512, "(b16|u16)", 16, 64 * 66 * 2);
  }
}

}  // namespace
}  // namespace croq::pipeline
