// The benchmark's transposes (bench/harness/kernels/ew_transpose.co for f32,
// ew_transpose_2byte.co for f16 and bf16) through the whole pipeline, no
// GPU: each thread's loads are all issued before its shared-memory stores
// (unrolled), so a thread keeps 16 bytes (f32, 32 x 32 tiles) or 32 bytes
// (2-byte elements, 64 x 64 tiles) of loads in flight, in blocks of 256.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "common/bench_kernel_text.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "specialize/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::count;
using test::generate;
using test::tensor;

// The PTX's global loads of one element each, and whether every one comes
// before the first shared store (all of a thread's loads in flight at once).
struct Loads {
  std::size_t count = 0;
  bool before_first_store = false;
};

Loads scalar_loads(const std::string& ptx, const std::string& width) {
  const std::regex load("ld\\.global(\\.nc)?\\." + width + "\\b");
  Loads out;
  const std::size_t first_store = ptx.find("st.shared");
  std::size_t last_load = 0;
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), load); it != std::sregex_iterator(); ++it) {
    ++out.count;
    last_load = static_cast<std::size_t>(it->position());
  }
  out.before_first_store = first_store != std::string::npos && last_load < first_store;
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
  EXPECT_TRUE(loads.before_first_store) << out.ptx;
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
