// f32 -> fp8 conversions in a kernel (`__to<f8_e5m2>`, `__to<f8_e4m3>`) at
// the inputs where rounding rules part: ties (to even), ties between
// subnormals, values past the largest finite and infinities (saturated to
// it, as cvt.rn.satfinite and cuda_fp8.h's constructors do), NaN. Shared by
// tests/interp/fp8_rounding_interp_test.cpp (the interpreter) and
// tests/gpu/fp8_rounding_gpu_test.cpp (the device), so both are held to the
// same table.
#pragma once

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "croq/croq.hpp"

namespace croq::test {

struct Fp8RoundingCase {
  float input, e5m2, e4m3;  // the input and what each conversion gives
};

inline std::vector<Fp8RoundingCase> fp8_rounding_cases() {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float e5_min = std::ldexp(1.0f, -16), e4_min = std::ldexp(1.0f, -9);  // the smallest subnormals
  return {
      {1.125f, 1.0f, 1.125f},       // e5m2 tie between 1 and 1.25: to the even 1
      {1.375f, 1.5f, 1.375f},       // e5m2 tie between 1.25 and 1.5: to the even 1.5
      {-1.125f, -1.0f, -1.125f},    // ties are symmetric
      {2.25f, 2.0f, 2.25f},         // e5m2 tie in [2, 4): to 2
      {2.75f, 3.0f, 2.75f},         // ... and to 3
      {1.0625f, 1.0f, 1.0f},        // e4m3 tie between 1 and 1.125: to 1
      {1.1875f, 1.25f, 1.25f},      // e4m3 tie between 1.125 and 1.25: to 1.25
      {1.5f * e5_min, 2 * e5_min, 0.0f},  // e5m2 tie between subnormals 1 and 2 (of 2^-16): to 2
      {0.5f * e5_min, 0.0f, 0.0f},        // e5m2 tie between 0 and the smallest subnormal: to 0
      {1.5f * e4_min, 1.5f * e4_min, 2 * e4_min},  // e4m3 tie between subnormals 1 and 2 (of 2^-9): to 2
      {464.0f, 448.0f, 448.0f},     // e4m3 tie between 448 and 480 (NaN's code): the largest finite
      {500.0f, 512.0f, 448.0f},     // past e4m3's largest finite: saturated
      {61440.0f, 57344.0f, 448.0f},  // e5m2 tie between 57344 and inf: saturated
      {1e9f, 57344.0f, 448.0f},
      {-1e9f, -57344.0f, -448.0f},
      {inf, 57344.0f, 448.0f},      // satfinite: infinities too
      {-inf, -57344.0f, -448.0f},
      {nan, nan, nan},
  };
}

// One thread a case: y5[i] = e5m2(x[i]), y4[i] = e4m3(x[i]).
inline std::string fp8_rounding_source(std::size_t n) {
  const std::string count = std::to_string(n);
  return "__co__ void to_fp8(f32 [" + count + "] x, f8_e5m2 [" + count + "] y5, f8_e4m3 [" + count + "] y4) {\n" +
         "  parallel b by 1 : block {\n"
         "    parallel t by " + count + " : thread {\n"
         "      y5.at(t) = __to<f8_e5m2>(x.at(t));\n"
         "      y4.at(t) = __to<f8_e4m3>(x.at(t));\n"
         "    }\n"
         "  }\n"
         "}\n";
}

// Runs fp8_rounding_source's kernel on the cases: one line per conversion
// that gave another value ("" when every one matched; NaN matches NaN).
inline std::string fp8_rounding_mismatches(croq::Kernel& kernel) {
  const std::vector<Fp8RoundingCase> cases = fp8_rounding_cases();
  auto x = croq::make_spandata<float>(cases.size());
  auto y5 = croq::make_spandata<croq::f8_e5m2>(cases.size());
  auto y4 = croq::make_spandata<croq::f8_e4m3>(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    x.data()[i] = cases[i].input;
    y5.data()[i] = croq::f8_e5m2(7.0f);  // poison: every element must be written
    y4.data()[i] = croq::f8_e4m3(7.0f);
  }
  kernel(x.view(), y5.view(), y4.view());
  std::ostringstream wrong;
  const auto same = [](float got, float want) { return std::isnan(want) ? std::isnan(got) : got == want; };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const float got5 = float(y5.data()[i]), got4 = float(y4.data()[i]);
    if (!same(got5, cases[i].e5m2)) wrong << "e5m2(" << cases[i].input << ") = " << got5 << ", want " << cases[i].e5m2 << "\n";
    if (!same(got4, cases[i].e4m3)) wrong << "e4m3(" << cases[i].input << ") = " << got4 << ", want " << cases[i].e4m3 << "\n";
  }
  return wrong.str();
}

}  // namespace croq::test
