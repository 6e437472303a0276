// Device work in host code (frontend/host_code.hpp): element stores and
// copies between and around kernels, each a kernel of its own launched in
// order with the others. Shared by the interpret-mode and GPU tests, with
// what the program prints and computes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace croq::test {

// a doubled by a kernel; a copied whole into b; per host iteration i, an
// element store into b and a copy of b's row i back into a; then a kernel
// adds a into b.
inline const char* kHostDeviceWorkSource = R"(
__co__ void staged(f32 [R, 64] a, f32 [R, 64] b, int rows) {
  parallel p by R : block
    parallel t by 64 : thread
      a.at(p, t) = a.at(p, t) * 2.0f;
  dma.copy a => b;
  foreach i in [rows] {
    b.at(i, 0) = i + 0.5f;
    dma.copy b.subspan(1, 64).at(i, 0) => a.subspan(1, 64).at(i, 0);
  }
  parallel q by R : block
    parallel t by 64 : thread
      b.at(q, t) = b.at(q, t) + a.at(q, t);
  println("rows ", rows);
}
)";

// a and b (row-major [rows_total, 64]) after kHostDeviceWorkSource.
inline void host_device_work_reference(std::vector<float>& a, std::vector<float>& b, std::int64_t rows) {
  for (float& x : a) x *= 2.0f;
  b = a;
  for (std::int64_t i = 0; i < rows; ++i) {
    b[static_cast<std::size_t>(i) * 64] = static_cast<float>(i) + 0.5f;
    for (std::size_t t = 0; t < 64; ++t) a[static_cast<std::size_t>(i) * 64 + t] = b[static_cast<std::size_t>(i) * 64 + t];
  }
  for (std::size_t k = 0; k < b.size(); ++k) b[k] += a[k];
}

inline std::string host_device_work_output(std::int64_t rows) { return "rows " + std::to_string(rows) + "\n"; }

}  // namespace croq::test
