#include "api/tune_compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace croq::detail {
namespace {

double default_rtol(DType dtype) {
  switch (dtype) {
    case DType::f64: return 1e-9;
    case DType::f32: return 1e-4;
    case DType::f16: return 1e-2;
    case DType::bf16: return 2e-2;
    case DType::tf32: return 2e-3;
    case DType::f8_e4m3: case DType::f8_e5m2: case DType::f8_ue4m3: return 0.25;
    case DType::f8_ue8m0: return 1;  // a power of two off
    default: return 0;
  }
}

std::string index_text(const Shape& shape, std::size_t flat) {
  std::string text;
  for (int d = shape.rank() - 1; d >= 0; --d) {
    std::size_t extent = std::max<std::size_t>(shape[d], 1);
    text = std::to_string(flat % extent) + (text.empty() ? "" : ", ") + text;
    flat /= extent;
  }
  return "[" + text + "]";
}

}  // namespace

std::string compare_tensors(const Tensor& got, const Tensor& want, double rtol, double atol, const std::string& what) {
  if (got.defined() != want.defined()) return what + " is missing";
  if (!got.defined()) return {};
  if (got.dtype() != want.dtype() || !(got.shape() == want.shape()))
    return what + " is " + got.view().str() + ", the reference's " + want.view().str();
  const std::size_t n = got.numel();
  const TensorView g = TensorView::contiguous(got.data(), got.dtype(), Shape{n});
  const TensorView w = TensorView::contiguous(want.data(), want.dtype(), Shape{n});
  auto at = [](const TensorView& v, std::size_t i) { return ElementRef(&v, static_cast<std::int64_t>(i), 1); };
  std::size_t bad = 0, first = 0;
  double first_got = 0, first_want = 0;
  if (!is_floating(got.dtype())) {
    for (std::size_t i = 0; i < n; ++i)
      if (at(g, i).as_int() != at(w, i).as_int() && bad++ == 0) first = i;
    if (bad > 0) {
      first_got = static_cast<double>(at(g, first).as_int());
      first_want = static_cast<double>(at(w, first).as_int());
    }
  } else {
    if (rtol < 0) rtol = default_rtol(got.dtype());
    if (atol < 0) {
      double largest = 0;
      for (std::size_t i = 0; i < n; ++i)
        if (double v = std::fabs(at(w, i).as_double()); std::isfinite(v)) largest = std::max(largest, v);
      atol = rtol * largest;
    }
    for (std::size_t i = 0; i < n; ++i) {
      double a = at(g, i).as_double(), b = at(w, i).as_double();
      // Written so that NaN fails: an unwritten poisoned element reads as NaN.
      bool close = std::fabs(a - b) <= atol + rtol * std::fabs(b) || (a == b && std::isinf(a));
      if (!close && bad++ == 0) {
        first = i;
        first_got = a;
        first_want = b;
      }
    }
  }
  if (bad == 0) return {};
  char values[96];
  std::snprintf(values, sizeof values, "%.9g, the reference %.9g", first_got, first_want);
  return what + " differs in " + std::to_string(bad) + " of " + std::to_string(n) + " elements; first at " +
         index_text(got.shape(), first) + ": " + values;
}

std::string compare_outputs(const TuneOutputs& got, const TuneOutputs& want, double rtol, double atol) {
  if (std::string why = compare_tensors(got.result, want.result, rtol, atol, "the result"); !why.empty()) return why;
  for (std::size_t i = 0; i < got.arguments.size() && i < want.arguments.size(); ++i)
    if (std::string why = compare_tensors(got.arguments[i], want.arguments[i], rtol, atol,
                                          "argument " + std::to_string(i + 1));
        !why.empty())
      return why;
  return {};
}

}  // namespace croq::detail
