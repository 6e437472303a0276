// Host compatibility layer for Croqtile test programs: the `choreo` names
// that a .co file's host code uses (make_spandata, spanned_data, views,
// element types and conversions, choreo_assert, verification and timing
// helpers), built on libcroqjit's public API. `croq host FILE.co` turns such
// a file into a C++ translation unit that includes this header (docs/how-to/upstream-host-programs.md).
//
// Element types: where the CUDA toolkit's headers are found (and
// CROQ_CHOREO_NO_CUDA is not defined), choreo::f16, bf16, f8_e4m3 and
// f8_e5m2 are CUDA's host types (__half, __nv_bfloat16, __nv_fp8_*), so
// host code written against them (__half2float, cudaMalloc) compiles as
// is; the program then links with -lcudart. Elsewhere they are libcroqjit's
// croq::f16 etc., with the CUDA conversion names as small shims.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iostream>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "croq/croq.hpp"

#if !defined(CROQ_CHOREO_NO_CUDA) && __has_include(<cuda_runtime.h>) && __has_include(<cuda_fp16.h>) && \
    __has_include(<cuda_bf16.h>) && __has_include(<cuda_fp8.h>)
#define CROQ_CHOREO_CUDA 1
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#else
#define CROQ_CHOREO_CUDA 0
#endif

namespace choreo {

// ------------------------------------------------------------ element types

using s8 = std::int8_t;
using u8 = std::uint8_t;
using s16 = std::int16_t;
using u16 = std::uint16_t;
using s32 = std::int32_t;
using u32 = std::uint32_t;
using s64 = std::int64_t;
using u64 = std::uint64_t;
using f32 = float;
using f64 = double;

#if CROQ_CHOREO_CUDA
using f16 = __half;
using bf16 = __nv_bfloat16;
using f8_e4m3 = __nv_fp8_e4m3;
using f8_e5m2 = __nv_fp8_e5m2;
#else
using f16 = croq::f16;
using bf16 = croq::bf16;
using f8_e4m3 = croq::f8_e4m3;
using f8_e5m2 = croq::f8_e5m2;
#endif
using half = f16;
using bfloat16 = bf16;
using f8 = f8_e4m3;

// The sub-byte types are libcroqjit's (croq/subbyte.hpp), as upstream's
// runtime has them: a byte per element. The small floats round to nearest
// even and saturate; the integers wrap into their range; bin1 converts as
// a bool.
using f6_e3m2 = croq::f6_e3m2;
using f6_e2m3 = croq::f6_e2m3;
using f4_e2m1 = croq::f4_e2m1;
using s6 = croq::s6;
using u6 = croq::u6;
using s4 = croq::s4;
using u4 = croq::u4;
using s2 = croq::s2;
using u2 = croq::u2;
using u1 = croq::u1;
using bin1 = croq::bin1;
// tf32 and the block-scale types are libcroqjit's too (croq/dtype.hpp):
// tf32 keeps f32 bits rounded to 10 mantissa bits; f8_ue8m0 is a power of
// two (converted as CUDA's __nv_fp8_e8m0 does); f8_ue4m3 an unsigned E4M3.
using tf32 = croq::tf32;
using f8_ue8m0 = croq::f8_ue8m0;
using f8_ue4m3 = croq::f8_ue4m3;
template <typename T>
struct is_subbyte_int : std::bool_constant<croq::is_subbyte_integer_v<T>> {};

// The libcroqjit dtype of a host element type; `known` is false for types
// it has none for.
template <typename T, typename = void>
struct element_dtype {
  static constexpr bool known = false;
};
template <typename T>
struct element_dtype<T, std::void_t<decltype(croq::dtype_of<T>::value)>> {
  static constexpr bool known = true;
  static constexpr croq::DType value = croq::dtype_of<T>::value;
};
#if CROQ_CHOREO_CUDA
template <> struct element_dtype<__half> { static constexpr bool known = true; static constexpr croq::DType value = croq::DType::f16; };
template <> struct element_dtype<__nv_bfloat16> { static constexpr bool known = true; static constexpr croq::DType value = croq::DType::bf16; };
template <> struct element_dtype<__nv_fp8_e4m3> { static constexpr bool known = true; static constexpr croq::DType value = croq::DType::f8_e4m3; };
template <> struct element_dtype<__nv_fp8_e5m2> { static constexpr bool known = true; static constexpr croq::DType value = croq::DType::f8_e5m2; };
#endif

// ------------------------------------------------------------- conversions

template <typename T>
inline float to_f32(T value) {
  return static_cast<float>(value);
}
template <typename T>
inline T from_f32(float value) {
  return static_cast<T>(value);
}
namespace detail {
// An element of type T from any number-like value (through float for the
// non-builtin element types).
template <typename T, typename U>
inline T convert(U value) {
  if constexpr (std::is_arithmetic_v<T> && std::is_arithmetic_v<U>) return static_cast<T>(value);
  else return from_f32<T>(to_f32(value));
}
}  // namespace detail
inline f16 f32_to_f16(f32 v) { return from_f32<f16>(v); }
inline f32 f16_to_f32(f16 v) { return to_f32(v); }
inline bf16 f32_to_bf16(f32 v) { return from_f32<bf16>(v); }
inline f32 bf16_to_f32(bf16 v) { return to_f32(v); }

namespace utils {
using choreo::from_f32;
using choreo::to_f32;
}  // namespace utils

// ---------------------------------------------------------------- failures

// Flushes what the program printed so far, so that a failure keeps it.
inline void flush_output() {
  std::cout.flush();
  std::fflush(stdout);
}

// The check of test programs: prints where and why, then aborts.
inline void choreo_assert(bool ok, const char* message, const char* file = __builtin_FILE(),
                          int line = __builtin_LINE()) {
  if (ok) return;
  flush_output();
  std::fprintf(stderr, "%s:%d: choreo assertion failed: %s\n", file, line, message);
  std::abort();
}
inline void runtime_check(bool ok, const std::string& message) {
  if (ok) return;
  flush_output();
  std::fprintf(stderr, "choreo runtime check failed: %s\n", message.c_str());
  std::abort();
}
// abend_true(status): aborts when a status code (a cudaError_t) is not 0.
inline void abend_true(long long status) {
  if (status == 0) return;
  flush_output();
#if CROQ_CHOREO_CUDA
  std::fprintf(stderr, "CUDA failure %lld: %s\n", status, cudaGetErrorString(static_cast<cudaError_t>(status)));
#else
  std::fprintf(stderr, "runtime failure: status %lld\n", status);
#endif
  std::abort();
}
inline void abend_false(bool ok) {
  if (ok) return;
  flush_output();
  std::fprintf(stderr, "runtime failure (abend_false)\n");
  std::abort();
}

// ----------------------------------------------------------------- shapes

// Extents of a tensor of rank R, outermost first.
template <std::size_t R>
struct mdspan {
  static_assert(R > 0, "a tensor has at least one dimension");
  std::size_t dims[R] = {};

  mdspan() = default;
  mdspan(std::initializer_list<std::size_t> list) {
    // One value fills every dim; otherwise they are taken in order.
    if (list.size() == 1) std::fill(dims, dims + R, *list.begin());
    else std::copy_n(list.begin(), std::min(list.size(), R), dims);
  }
  std::size_t& operator[](std::size_t i) { return dims[i]; }
  const std::size_t& operator[](std::size_t i) const { return dims[i]; }
  static constexpr std::size_t size() { return R; }
  std::size_t* begin() { return dims; }
  std::size_t* end() { return dims + R; }
  const std::size_t* begin() const { return dims; }
  const std::size_t* end() const { return dims + R; }
  friend bool operator==(const mdspan& a, const mdspan& b) { return std::equal(a.dims, a.dims + R, b.dims); }
  friend bool operator!=(const mdspan& a, const mdspan& b) { return !(a == b); }
  friend std::ostream& operator<<(std::ostream& os, const mdspan& s) {
    for (std::size_t d : s.dims) os << d << " ";
    return os;
  }
};

template <std::size_t R>
inline std::size_t span_size(const mdspan<R>& s) {
  std::size_t n = 1;
  for (std::size_t d : s.dims) n *= d;
  return n;
}
template <std::size_t R>
inline mdspan<R> make_mdspan(std::initializer_list<std::size_t> dims) {
  return mdspan<R>(dims);
}

namespace detail {

[[noreturn]] inline void index_out_of_range(std::size_t index, std::size_t extent) {
  flush_output();
  std::fprintf(stderr, "choreo: index %zu out of range for a dimension of extent %zu\n", index, extent);
  std::abort();
}

// t[i][j]...: N dims left below `base`; the last index gives the element.
template <typename T, std::size_t N>
class Indexer {
 public:
  Indexer(T* base, const std::size_t* dims) : base_(base), dims_(dims) {}
  decltype(auto) operator[](std::size_t i) const {
    if (i >= dims_[0]) index_out_of_range(i, dims_[0]);
    if constexpr (N == 1) {
      return static_cast<T&>(base_[i]);
    } else {
      std::size_t stride = 1;
      for (std::size_t d = 1; d < N; ++d) stride *= dims_[d];
      return Indexer<T, N - 1>(base_ + i * stride, dims_ + 1);
    }
  }

 private:
  T* base_;
  const std::size_t* dims_;
};

template <std::size_t R>
croq::Shape to_shape(const mdspan<R>& s) {
  croq::Shape shape;
  for (std::size_t d : s.dims) shape.push_back(d);
  return shape;
}

template <typename T>
void fill_random(T* data, std::size_t n, double lo, double hi);

}  // namespace detail

enum class memory : std::uint8_t { unknown, host, device };

// ------------------------------------------------------------- containers

// A view of tensor memory of rank R (host or device); it owns nothing.
template <typename T, std::size_t R>
class spanned_view {
 public:
  spanned_view(T* data, const mdspan<R>& dims, memory where = memory::unknown)
      : data_(data), dims_(dims), where_(where) {}

  static constexpr std::size_t rank() { return R; }
  const mdspan<R>& shape() const { return dims_; }
  std::size_t element_count() const { return span_size(dims_); }
  std::size_t bytes() const { return element_count() * sizeof(T); }
  T* data() const { return data_; }
  memory where() const { return where_; }

  decltype(auto) operator[](std::size_t i) const { return detail::Indexer<T, R>(data_, dims_.dims)[i]; }

  template <typename U>
  void fill(U value) {
    std::fill_n(data_, element_count(), detail::convert<T>(value));
  }
  void fill_fp8(float value) { fill(value); }
  template <typename U>
  void fill_random(U lo, U hi) {
    detail::fill_random(data_, element_count(), static_cast<double>(to_f32(lo)), static_cast<double>(to_f32(hi)));
  }
  void fill_random_fp8(float lo, float hi) { fill_random(lo, hi); }

 private:
  T* data_;
  mdspan<R> dims_;
  memory where_;
};

// An owning host tensor of rank R (what make_spandata and __co__ calls give).
template <typename T, std::size_t R>
class spanned_data {
 public:
  explicit spanned_data(const mdspan<R>& dims) : dims_(dims), data_(span_size(dims)) {}

  static constexpr std::size_t rank() { return R; }
  const mdspan<R>& shape() const { return dims_; }
  std::size_t element_count() const { return data_.size(); }
  std::size_t bytes() const { return data_.size() * sizeof(T); }
  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }

  decltype(auto) operator[](std::size_t i) { return detail::Indexer<T, R>(data_.data(), dims_.dims)[i]; }
  decltype(auto) operator[](std::size_t i) const {
    return detail::Indexer<const T, R>(data_.data(), dims_.dims)[i];
  }

  template <typename U>
  void fill(U value) {
    std::fill(data_.begin(), data_.end(), detail::convert<T>(value));
  }
  void fill_fp8(float value) { fill(value); }
  template <typename U>
  void fill_random(U lo, U hi) {
    detail::fill_random(data_.data(), data_.size(), static_cast<double>(to_f32(lo)), static_cast<double>(to_f32(hi)));
  }
  void fill_random_fp8(float lo, float hi) { fill_random(lo, hi); }

  spanned_view<T, R> view() { return spanned_view<T, R>(data_.data(), dims_, memory::host); }

  friend bool operator==(const spanned_data& a, const spanned_data& b) {
    return a.dims_ == b.dims_ && std::memcmp(a.data(), b.data(), a.bytes()) == 0;
  }

 private:
  mdspan<R> dims_;
  std::vector<T> data_;
};

template <typename T, std::size_t R>
spanned_data<T, R> make_spandata(std::initializer_list<std::size_t> dims) {
  mdspan<R> shape(dims);
  choreo_assert(dims.size() == R && span_size(shape) > 0, "make_spandata: dims must be R positive extents");
  return spanned_data<T, R>(shape);
}
template <typename T, typename... Dims,
          typename = std::enable_if_t<(sizeof...(Dims) > 0) && (std::is_convertible_v<Dims, std::size_t> && ...)>>
spanned_data<T, sizeof...(Dims)> make_spandata(Dims... dims) {
  return make_spandata<T, sizeof...(Dims)>({static_cast<std::size_t>(dims)...});
}

// make_spanview<R, T>(ptr, {dims}) and make_spanview<T, R>(ptr, {dims}):
// a view of memory the program owns (host arrays, cudaMalloc'd pointers).
template <std::size_t R, typename T>
spanned_view<std::remove_const_t<T>, R> make_spanview(T* ptr, std::initializer_list<std::size_t> dims) {
  return spanned_view<std::remove_const_t<T>, R>(const_cast<std::remove_const_t<T>*>(ptr), mdspan<R>(dims));
}
template <typename T, std::size_t R>
spanned_view<std::remove_const_t<T>, R> make_spanview(const void* ptr, std::initializer_list<std::size_t> dims) {
  using U = std::remove_const_t<T>;
  return spanned_view<U, R>(static_cast<U*>(const_cast<void*>(ptr)), mdspan<R>(dims));
}
template <typename T, std::size_t N>
spanned_view<T, 1> make_spanview(T (&array)[N]) {
  return spanned_view<T, 1>(array, mdspan<1>{N}, memory::host);
}
template <typename T, std::size_t N, std::size_t M>
spanned_view<T, 2> make_spanview(T (&array)[N][M]) {
  return spanned_view<T, 2>(&array[0][0], mdspan<2>{N, M}, memory::host);
}

// A new spanned_data holding a copy of `data`.
template <std::size_t R, typename T>
spanned_data<T, R> copy_as_spanned(const T* data, std::initializer_list<std::size_t> dims) {
  auto out = make_spandata<T, R>(dims);
  std::copy_n(data, out.element_count(), out.data());
  return out;
}

// ---------------------------------------------------------- random filling

namespace detail {

// Random values for test inputs. Seeded with 2026, or CHOREO_SEED, so runs
// repeat.
inline std::mt19937_64& rng() {
  static std::mt19937_64 engine([] {
    const char* seed = std::getenv("CHOREO_SEED");
    return seed ? std::strtoull(seed, nullptr, 10) : 2026ull;
  }());
  return engine;
}

template <typename T>
void fill_random(T* data, std::size_t n, double lo, double hi) {
  if (hi < lo) std::swap(lo, hi);
  if constexpr (std::is_integral_v<T> || is_subbyte_int<T>::value) {
    std::uniform_int_distribution<long long> dist(static_cast<long long>(lo), static_cast<long long>(hi));
    for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<T>(dist(rng()));
  } else {
    std::uniform_real_distribution<double> dist(lo, hi);
    for (std::size_t i = 0; i < n; ++i) data[i] = from_f32<T>(static_cast<float>(dist(rng())));
  }
}

}  // namespace detail

namespace utils {
template <typename T, typename L, typename H>
void fill_random(T* data, std::size_t n, L lo, H hi) {
  detail::fill_random(data, n, static_cast<double>(to_f32(lo)), static_cast<double>(to_f32(hi)));
}
}  // namespace utils

}  // namespace choreo

#if !CROQ_CHOREO_CUDA
// Without CUDA's headers: the conversion names host code uses on f16/bf16.
using __half = choreo::f16;          // NOLINT(bugprone-reserved-identifier)
using __nv_bfloat16 = choreo::bf16;  // NOLINT(bugprone-reserved-identifier)
using __nv_fp8_e4m3 = choreo::f8_e4m3;  // NOLINT(bugprone-reserved-identifier)
using __nv_fp8_e5m2 = choreo::f8_e5m2;  // NOLINT(bugprone-reserved-identifier)
using half = choreo::f16;
inline float __half2float(choreo::f16 v) { return static_cast<float>(v); }  // NOLINT
inline choreo::f16 __float2half(float v) { return choreo::f16(v); }  // NOLINT
inline float __bfloat162float(choreo::bf16 v) { return static_cast<float>(v); }  // NOLINT
inline choreo::bf16 __float2bfloat16(float v) { return choreo::bf16(v); }  // NOLINT
namespace croq {
// Arithmetic on the host element types computes in float; these store back.
inline f16& operator+=(f16& a, float b) { return a = f16(static_cast<float>(a) + b); }
inline f16& operator-=(f16& a, float b) { return a = f16(static_cast<float>(a) - b); }
inline f16& operator*=(f16& a, float b) { return a = f16(static_cast<float>(a) * b); }
inline bf16& operator+=(bf16& a, float b) { return a = bf16(static_cast<float>(a) + b); }
inline bf16& operator-=(bf16& a, float b) { return a = bf16(static_cast<float>(a) - b); }
inline bf16& operator*=(bf16& a, float b) { return a = bf16(static_cast<float>(a) * b); }
}  // namespace croq
#endif

#include "croq/choreo_host.hpp"    // IWYU pragma: export
#include "croq/choreo_sparse.hpp"  // IWYU pragma: export
#include "croq/choreo_cuda_runtime.hpp"  // IWYU pragma: export (last: it renames the runtime's calls for the program's code)
