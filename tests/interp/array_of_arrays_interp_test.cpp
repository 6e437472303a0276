// Interpret mode: an array of arrays of shared buffers, against the host
// reference (tests/common/array_of_arrays_kernel.hpp; the GPU runs the same
// kernel in tests/gpu/array_of_arrays_gpu_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "common/array_of_arrays_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretArrayOfArrays, EachSelectedBufferIsItsOwn) {
  croq::Kernel k = croq::test::interpreted(croq::test::kArrayOfArraysKernel);
  auto x = croq::make_spandata<croq::f32>(3, 8);
  x.fill_random(-8, 8, 41);
  auto out = croq::make_spandata<croq::f32>(3, 8);
  out.fill(-1);
  k(x.view(), out.view());
  const std::vector<float> want =
      croq::test::array_of_arrays_reference(std::vector<float>(x.data(), x.data() + 3 * 8), 3);
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(out.data()[i], want[i]) << "element " << i;
}

TEST(InterpretArrayOfArrays, AnIndexPastItsDimIsAnErrorAtTheLine) {
  croq::CompileOptions options;
  options.interpret = true;
  options.arch = "sm_90a";
  try {
    croq::compile("__co__ void f(f32 [4] x) {\n"
                  "  parallel p by 1 : block {\n"
                  "    shared f32 [4] s[2][3];\n"
                  "    parallel t by 4 : thread\n"
                  "      s[1][3].at(t) = x.at(t);\n"
                  "  }\n"
                  "}\n",
                  options);
    FAIL() << "compiled";
  } catch (const croq::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(":5:"), std::string::npos) << e.what();
  }
}

}  // namespace
