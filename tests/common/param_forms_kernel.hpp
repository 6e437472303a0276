// A function whose parameters leave their dims to the call: a rank only
// (`f32 mdspan<2> x`) and dims without a name (`f32 [?] factor`), with its
// host reference; shared by tests/interp/param_forms_interp_test.cpp and
// tests/gpu/param_forms_gpu_test.cpp.
#pragma once

#include <cstddef>
#include <vector>

namespace croq::test {

inline const char* kParamFormsKernel = R"(__co__ void scale_rows(f32 mdspan<2> x, f32 [?] factor, f32 [?, ?] bias, f32 mdspan<2> out) {
  parallel r by x.span(0) {
    foreach c in [x.span(1)]
      out.at(r, c) = x.at(r, c) * factor.at(r) + bias.at(r, c);
  }
}
)";

// out[r][c] = x[r][c] * factor[r] + bias[r][c], for `rows` rows of `cols`.
inline std::vector<float> param_forms_reference(const std::vector<float>& x, const std::vector<float>& factor,
                                                const std::vector<float>& bias, std::size_t rows, std::size_t cols) {
  std::vector<float> out(rows * cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) out[r * cols + c] = x[r * cols + c] * factor[r] + bias[r * cols + c];
  return out;
}

}  // namespace croq::test
