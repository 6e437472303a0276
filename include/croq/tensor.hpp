// Tensor views (non-owning) and owning tensors on the host or a device.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "croq/dtype.hpp"
#include "croq/shape.hpp"

namespace croq {

enum class MemoryKind : std::uint8_t { host, device };

// A non-owning view of tensor memory: what a kernel argument is.
struct TensorView {
  void* data = nullptr;
  DType dtype = DType::f32;
  Shape shape;
  std::array<std::int64_t, kMaxRank> strides{};  // in elements, outermost first
  MemoryKind memory = MemoryKind::host;
  int device = 0;  // device ordinal when memory == device

  // A row-major (C order) view.
  static TensorView contiguous(void* data, DType dtype, Shape shape,
                               MemoryKind memory = MemoryKind::host, int device = 0);
  bool is_contiguous() const;
  std::size_t numel() const { return shape.numel(); }
  // Throws ArgumentError for an invalid dtype or a size past 2^63 - 1 bytes.
  std::size_t bytes() const;
  std::string str() const;  // "s32 [128, 256] (device 0)"
};

class Tensor;

// Indexes a host tensor one dimension at a time: t[i][j]. Converts to a
// number once every dimension has been indexed.
class ElementRef {
 public:
  ElementRef(const TensorView* view, std::int64_t offset, int dim)
      : view_(view), offset_(offset), dim_(dim) {}
  ElementRef operator[](std::size_t i) const;

  double as_double() const;
  std::int64_t as_int() const;
  template <typename T>
  T as() const {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(as_int());
    else return static_cast<T>(as_double());
  }
  operator double() const { return as_double(); }  // NOLINT: behaves like a number

  // Exact comparison against the element's own type (integers compare as
  // integers, so large s64 values are not rounded through double).
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  friend bool operator==(const ElementRef& e, T v) {
    if constexpr (std::is_integral_v<T>)
      return e.view_ != nullptr && is_floating(e.view_->dtype) ? e.as_double() == static_cast<double>(v)
                                         : e.as_int() == static_cast<std::int64_t>(v);
    else return e.as_double() == static_cast<double>(v);
  }
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  friend bool operator==(T v, const ElementRef& e) { return e == v; }
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  friend bool operator!=(const ElementRef& e, T v) { return !(e == v); }
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  friend bool operator!=(T v, const ElementRef& e) { return !(e == v); }

 private:
  void check_complete() const;
  const TensorView* view_;
  std::int64_t offset_;
  int dim_;
};

// An owning tensor in host or device memory; copies share the storage.
// Kernels return their output as a Tensor: on the host when the inputs were
// host data, on the device when they were device tensors.
class Tensor {
 public:
  Tensor() = default;
  // Uninitialised contiguous storage. Device memory needs a CUDA driver.
  static Tensor empty(DType dtype, Shape shape, MemoryKind memory = MemoryKind::device,
                      int device = 0);
  // Copies a view (host or device) into new memory of the given kind.
  static Tensor copy_of(const TensorView& src, MemoryKind memory = MemoryKind::device,
                        int device = 0);

  bool defined() const { return storage_ != nullptr; }
  DType dtype() const { return view_.dtype; }
  const Shape& shape() const { return view_.shape; }
  MemoryKind memory() const { return view_.memory; }
  void* data() const { return view_.data; }
  std::size_t numel() const { return view_.numel(); }
  std::size_t bytes() const { return view_.bytes(); }
  const TensorView& view() const { return view_; }
  operator const TensorView&() const { return view_; }  // NOLINT: pass as an argument

  Tensor to_host() const;               // a host copy (or *this when already on the host)
  Tensor to_device(int device = 0) const;
  void copy_from(const TensorView& src);  // same dtype and shape; host or device
  void copy_to(const TensorView& dst) const;

  // Host tensors only: t[i][j]...
  ElementRef operator[](std::size_t i) const;

  struct Storage;  // opaque: host buffer or device allocation

 private:
  std::shared_ptr<Storage> storage_;
  TensorView view_;
};

}  // namespace croq
