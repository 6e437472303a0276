// An array of arrays of shared buffers on a real device, against the host
// reference (the interpreter runs the same kernel in
// tests/interp/array_of_arrays_interp_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "common/array_of_arrays_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuArrayOfArrays, EachSelectedBufferIsItsOwn) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kArrayOfArraysKernel);
  for (int rows : {1, 7, 200}) {
    auto x = make_spandata<f32>(rows, 8);
    x.fill_random(-8, 8, test::next_seed());
    auto out = make_spandata<f32>(rows, 8);
    out.fill(-1);
    k(x.view(), out.view());
    const std::vector<float> want =
        test::array_of_arrays_reference(std::vector<float>(x.data(), x.data() + rows * 8), static_cast<std::size_t>(rows));
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(out.data()[i], want[i]) << rows << " rows, element " << i;
  }
}

}  // namespace
}  // namespace croq
