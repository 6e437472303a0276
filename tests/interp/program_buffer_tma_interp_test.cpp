// Interpret mode: tma.copy loads and stores a program buffer (a `global`
// tensor of the function's body) as it does the arguments, across the
// kernels of one program, a partial last tile included; host reference.
#include <gtest/gtest.h>

#include "common/program_sources.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretProgramBufferTma, TilesCrossKernelsThroughAProgramBuffer) {
  croq::Kernel k = croq::test::interpreted(croq::test::kProgramBufferTma);
  for (std::size_t m : {std::size_t{32}, std::size_t{100}}) {
    auto a = croq::make_spandata<float>(m, 64);
    a.fill_random(-10, 10, 11 + m);
    croq::Tensor out = k(a.view());
    const float* got = static_cast<const float*>(out.data());
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t c = 0; c < 64; ++c)
        ASSERT_EQ(got[i * 64 + c], static_cast<float>(a[i][c]) * 2.0f + static_cast<float>(a[i][c]))
            << "M " << m << " at " << i << ", " << c;
  }
}

}  // namespace
