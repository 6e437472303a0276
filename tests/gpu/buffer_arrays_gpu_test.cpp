// Arrays of local and of global buffers on a real device, against the host
// references (the interpreter runs the same kernels in
// tests/interp/buffer_arrays_interp_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "common/buffer_arrays_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

// `source` on a random [4, columns] input; what its output misses of `reference`.
template <typename Reference>
std::string run_on_device(const char* source, int columns, Reference reference) {
  Kernel k = compile(source);
  auto a = make_spandata<s32>(4, columns);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = make_spandata<s32>(4, 64);
  out.fill(-7);
  k(a.view(), out.view());
  return test::buffer_arrays_mismatch(a.data(), out.data(), reference);
}

TEST(GpuLocalArrays, SlotsOfLocalArraysMatchTheHost) {
  CROQ_REQUIRE_GPU();
  EXPECT_EQ(run_on_device(test::kLocalArraysKernel, 512, test::local_arrays_reference), "");
}

TEST(GpuGlobalArrays, BuffersOfAGlobalArrayMatchTheHostAcrossKernels) {
  CROQ_REQUIRE_GPU();
  EXPECT_EQ(run_on_device(test::kGlobalArraysKernel, 64, test::global_arrays_reference), "");
}

}  // namespace
}  // namespace croq
