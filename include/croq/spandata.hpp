// Host-side tensors for test and sample programs: the tutorial's
// croq::make_spandata<T>(dims...), fill_random, view(), t[i][j].
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <random>
#include <type_traits>
#include <vector>

#include "croq/error.hpp"
#include "croq/subbyte.hpp"
#include "croq/tensor.hpp"

namespace croq {

// t[i][j]... over a row-major host array; the last index yields a T&.
template <typename T>
class SpanRef {
 public:
  SpanRef(T* base, const Shape* shape, int dim) : base_(base), shape_(shape), dim_(dim) {}
  SpanRef operator[](std::size_t i) const {
    if (dim_ >= shape_->rank()) throw Error("croq::spandata: too many indices for a rank-" +
                                            std::to_string(shape_->rank()) + " tensor");
    if (i >= (*shape_)[dim_]) throw Error("croq::spandata: index " + std::to_string(i) +
                                          " out of range for dimension " + std::to_string(dim_) +
                                          " of extent " + std::to_string((*shape_)[dim_]));
    std::size_t stride = 1;
    for (int d = dim_ + 1; d < shape_->rank(); ++d) stride *= (*shape_)[d];
    return SpanRef(base_ + i * stride, shape_, dim_ + 1);
  }
  T& get() const {
    if (dim_ != shape_->rank()) throw Error("croq::spandata: element access needs " +
                                            std::to_string(shape_->rank()) + " indices, got " +
                                            std::to_string(dim_));
    return *base_;
  }
  operator T&() const { return get(); }  // NOLINT: behaves like the element
  const SpanRef& operator=(const T& v) const { get() = v; return *this; }

 private:
  T* base_;
  const Shape* shape_;
  int dim_;
};

namespace detail {

// "WHAT: f32 [1099511627776] needs 4,398,046,511,104 bytes of host memory,
// which could not be allocated".
Error host_allocation_error(const char* what, DType dtype, const Shape& shape);

// Whether `bytes` fit in this machine's memory and swap. A system that
// overcommits grants a larger allocation and kills the process when its
// pages are touched (zero-filled), so sizes past it are refused up front.
bool host_memory_holds(std::size_t bytes);

// Zeroed host storage for a tensor of `shape`; a croq::Error naming the
// size, rather than std::bad_alloc, when it cannot be had.
template <typename T>
std::vector<T> allocate_elements(const Shape& shape) {
  const std::size_t count = shape.numel();  // ArgumentError past 64 bits
  std::vector<T> data;
  if (count > data.max_size() || !host_memory_holds(count * sizeof(T)))
    throw host_allocation_error("croq::spandata", dtype_of_v<T>, shape);
  try {
    data.resize(count);
  } catch (const std::bad_alloc&) {
    throw host_allocation_error("croq::spandata", dtype_of_v<T>, shape);
  }
  return data;
}

}  // namespace detail

template <typename T>
class spandata {
 public:
  explicit spandata(Shape shape) : shape_(shape), data_(detail::allocate_elements<T>(shape)) {}

  const Shape& shape() const { return shape_; }
  std::size_t size() const { return data_.size(); }
  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  DType dtype() const { return dtype_of_v<T>; }

  // Uniform random values in [lo, hi] (integers) or [lo, hi) (floats),
  // freshly seeded unless a seed is given.
  void fill_random(double lo, double hi) { fill_random(lo, hi, std::random_device{}()); }
  // Throws croq::Error unless lo <= hi, both finite (and, for integer
  // types, within the range of long long).
  void fill_random(double lo, double hi, std::uint64_t seed) {
    constexpr double kLongLongBound = 9223372036854775808.0;  // 2^63
    const bool integral = std::is_integral_v<T> || is_subbyte_integer_v<T>;
    if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi) ||
        (integral && (lo < -kLongLongBound || hi >= kLongLongBound)))
      throw Error("croq::spandata::fill_random: [" + std::to_string(lo) + ", " + std::to_string(hi) +
                  "] is not a range of " + (integral ? "integers" : "finite numbers") + " from low to high");
    std::mt19937_64 rng(seed);
    if constexpr (std::is_integral_v<T> || is_subbyte_integer_v<T>) {
      std::uniform_int_distribution<long long> dist(static_cast<long long>(lo),
                                                    static_cast<long long>(hi));
      for (auto& v : data_) v = static_cast<T>(dist(rng));
    } else {
      std::uniform_real_distribution<double> dist(lo, hi);
      for (auto& v : data_) v = T(static_cast<float>(dist(rng)));
    }
  }
  void fill(T value) { for (auto& v : data_) v = value; }

  TensorView view() { return TensorView::contiguous(data_.data(), dtype(), shape_); }
  operator TensorView() { return view(); }  // NOLINT: pass as a kernel argument

  SpanRef<T> operator[](std::size_t i) { return SpanRef<T>(data_.data(), &shape_, 0)[i]; }

 private:
  Shape shape_;
  std::vector<T> data_;
};

template <typename T, typename... Dims>
spandata<T> make_spandata(Dims... dims) {
  static_assert(sizeof...(Dims) >= 1 && sizeof...(Dims) <= kMaxRank, "rank 1..8");
  return spandata<T>(Shape{static_cast<std::size_t>(dims)...});
}

// The tutorial's check: prints the message and exits with failure.
inline void croq_assert(bool cond, const char* message) {
  if (!cond) {
    std::fprintf(stderr, "croq_assert failed: %s\n", message);
    std::exit(EXIT_FAILURE);
  }
}

}  // namespace croq
