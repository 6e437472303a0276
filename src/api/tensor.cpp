// Shapes, views, and owning host/device tensors.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <sys/sysinfo.h>

#include "api/tensor_size.hpp"
#include "croq/error.hpp"
#include "croq/spandata.hpp"
#include "croq/subbyte.hpp"
#include "croq/tensor.hpp"
#include "jit/driver.hpp"
#include "support/checked_int.hpp"
#include "support/format.hpp"

namespace croq {

std::string detail::view_problem(const TensorView& view, bool needs_data) {
  if (std::string problem = dtype_problem(view.dtype); !problem.empty()) return problem;
  if (view.memory != MemoryKind::host && view.memory != MemoryKind::device)
    return "memory kind " + std::to_string(static_cast<int>(view.memory)) +
           " is neither MemoryKind::host nor MemoryKind::device";
  if (view.memory == MemoryKind::device && view.device < 0)
    return "device ordinal " + std::to_string(view.device) + " is negative";
  std::optional<std::int64_t> bytes = tensor_bytes(view.dtype, view.shape);
  if (!bytes)
    return std::string(dtype_name(view.dtype)) + " " + view.shape.str() +
           " holds more bytes than a 64-bit size can count (2^63 - 1)";
  if (needs_data && view.data == nullptr && *bytes > 0) return "null data pointer";
  return {};
}

void detail::check_view(const TensorView& view, const std::string& who, bool needs_data) {
  if (std::string problem = view_problem(view, needs_data); !problem.empty()) throw ArgumentError(who + ": " + problem);
}


TensorView TensorView::contiguous(void* data, DType dtype, Shape shape, MemoryKind memory, int device) {
  TensorView v;
  v.data = data;
  v.dtype = dtype;
  v.shape = shape;
  v.memory = memory;
  v.device = device;
  detail::tensor_bytes_or_throw(dtype, shape, "croq::TensorView");
  detail::check_view(v, "croq::TensorView::contiguous", false);
  // Each stride is then an int64, except past an extent of 0 (an empty
  // tensor, where no stride is ever used): those are 0.
  std::int64_t stride = 1;
  for (int i = shape.rank() - 1; i >= 0; --i) {
    v.strides[static_cast<std::size_t>(i)] = stride;
    support::CheckedInt next = support::checked_mul(stride, static_cast<std::int64_t>(shape[static_cast<std::size_t>(i)]));
    stride = next.ok() ? next.value : 0;
  }
  return v;
}

bool TensorView::is_contiguous() const {
  // A view without elements addresses no memory: any strides will do (NumPy
  // and DLPack give 0-size arrays strides that no row-major view has).
  for (std::size_t extent : shape)
    if (extent == 0) return true;
  std::int64_t stride = 1;
  for (int i = shape.rank() - 1; i >= 0; --i) {
    const std::size_t extent = shape[static_cast<std::size_t>(i)];
    if (extent != 1 && strides[static_cast<std::size_t>(i)] != stride) return false;
    // A stride past int64 matches no view; the shape is too large.
    support::CheckedInt next = support::checked_mul(stride, static_cast<std::int64_t>(std::min<std::size_t>(extent, INT64_MAX)));
    if (!next.ok()) return false;
    stride = next.value;
  }
  return true;
}

std::size_t TensorView::bytes() const { return detail::tensor_bytes_or_throw(dtype, shape, "croq::TensorView"); }

std::string TensorView::str() const {
  // Names whatever the fields hold: messages about invalid views use it.
  std::string out = dtype_valid(dtype) ? std::string(dtype_name(dtype))
                                       : "<dtype " + std::to_string(static_cast<int>(dtype)) + ">";
  out += " " + shape.str();
  switch (memory) {
    case MemoryKind::host: return out + " (host)";
    case MemoryKind::device: return out + " (device " + std::to_string(device) + ")";
  }
  return out + " (memory kind " + std::to_string(static_cast<int>(memory)) + ")";
}

// ---- element access -------------------------------------------------------

ElementRef ElementRef::operator[](std::size_t i) const {
  if (view_ == nullptr) throw Error("croq::Tensor: indexing a null view");
  if (dim_ >= view_->shape.rank())
    throw Error("croq::Tensor: too many indices for " + view_->str());
  if (i >= view_->shape[static_cast<std::size_t>(dim_)])
    throw Error("croq::Tensor: index " + std::to_string(i) + " is out of range for dimension " +
                std::to_string(dim_) + " of " + view_->str());
  return ElementRef(view_, offset_ + static_cast<std::int64_t>(i) * view_->strides[static_cast<std::size_t>(dim_)],
                    dim_ + 1);
}

void ElementRef::check_complete() const {
  if (view_ == nullptr) throw Error("croq::Tensor: reading an element of a null view");
  if (dim_ != view_->shape.rank())
    throw Error("croq::Tensor: element access needs " + std::to_string(view_->shape.rank()) +
                " indices, got " + std::to_string(dim_));
  detail::check_view(*view_, "croq::Tensor: reading an element of " + view_->str(), true);
  if (view_->memory != MemoryKind::host)
    throw Error("croq::Tensor: cannot read device memory on the host; call to_host() first");
}

namespace {

template <typename T>
T load(const void* base, std::int64_t offset) {
  T v;
  std::memcpy(&v, static_cast<const char*>(base) + offset * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return v;
}

}  // namespace

double ElementRef::as_double() const {
  check_complete();
  const void* p = view_->data;
  switch (view_->dtype) {
    case DType::s8: return load<std::int8_t>(p, offset_);
    case DType::u8: return load<std::uint8_t>(p, offset_);
    case DType::s16: return load<std::int16_t>(p, offset_);
    case DType::u16: return load<std::uint16_t>(p, offset_);
    case DType::s32: return load<std::int32_t>(p, offset_);
    case DType::u32: return load<std::uint32_t>(p, offset_);
    case DType::s64: return static_cast<double>(load<std::int64_t>(p, offset_));
    case DType::u64: return static_cast<double>(load<std::uint64_t>(p, offset_));
    case DType::f16: return load<f16>(p, offset_);
    case DType::bf16: return load<bf16>(p, offset_);
    case DType::f32: return load<float>(p, offset_);
    case DType::f64: return load<double>(p, offset_);
    case DType::f8_e4m3: return load<f8_e4m3>(p, offset_);
    case DType::f8_e5m2: return load<f8_e5m2>(p, offset_);
    case DType::f6_e2m3: case DType::f6_e3m2: case DType::f4_e2m1: case DType::u6: case DType::s6:
    case DType::u4: case DType::s4: case DType::u2: case DType::s2: case DType::u1: case DType::bin1:
      return subbyte_value(view_->dtype, load<std::uint8_t>(p, offset_));
    case DType::tf32: return load<tf32>(p, offset_);
    case DType::f8_ue8m0: return load<f8_ue8m0>(p, offset_);
    case DType::f8_ue4m3: return load<f8_ue4m3>(p, offset_);
  }
  return 0;
}

std::int64_t ElementRef::as_int() const {
  check_complete();
  const void* p = view_->data;
  switch (view_->dtype) {
    case DType::s8: return load<std::int8_t>(p, offset_);
    case DType::u8: return load<std::uint8_t>(p, offset_);
    case DType::s16: return load<std::int16_t>(p, offset_);
    case DType::u16: return load<std::uint16_t>(p, offset_);
    case DType::s32: return load<std::int32_t>(p, offset_);
    case DType::u32: return load<std::uint32_t>(p, offset_);
    case DType::s64: return load<std::int64_t>(p, offset_);
    case DType::u64: return static_cast<std::int64_t>(load<std::uint64_t>(p, offset_));
    default: return static_cast<std::int64_t>(as_double());
  }
}

// ---- owning tensors -------------------------------------------------------

struct Tensor::Storage {
  void* data = nullptr;
  MemoryKind memory = MemoryKind::host;
  int device = 0;
  ~Storage() {
    if (data == nullptr) return;
    if (memory == MemoryKind::host) {
      std::free(data);
    } else {
      // Never throw from a destructor: a failing free at exit is not actionable.
      jit::make_current(device);
      jit::driver().cuMemFree(reinterpret_cast<CUdeviceptr>(data));
    }
  }
};

Error detail::host_allocation_error(const char* what, DType dtype, const Shape& shape) {
  std::optional<std::int64_t> bytes = tensor_bytes(dtype, shape);
  return Error(std::string(what) + ": " + std::string(dtype_name(dtype)) + " " + shape.str() + " needs " +
               (bytes ? support::group_digits(static_cast<std::uint64_t>(*bytes)) + " bytes" : "more bytes than 2^63 - 1") +
               " of host memory, which could not be allocated");
}

bool detail::host_memory_holds(std::size_t bytes) {
  struct sysinfo info {};
  if (sysinfo(&info) != 0) return true;  // unknown: let the allocator decide
  const unsigned __int128 total =
      (static_cast<unsigned __int128>(info.totalram) + info.totalswap) * std::max<unsigned>(info.mem_unit, 1);
  return bytes <= total;
}

Tensor Tensor::empty(DType dtype, Shape shape, MemoryKind memory, int device) {
  std::size_t bytes = detail::tensor_bytes_or_throw(dtype, shape, "croq::Tensor::empty");
  detail::check_view(TensorView{nullptr, dtype, shape, {}, memory, device}, "croq::Tensor::empty", false);
  auto storage = std::make_shared<Storage>();
  storage->memory = memory;
  storage->device = device;
  std::size_t alloc = bytes == 0 ? 1 : bytes;
  if (memory == MemoryKind::host) {
    // 64-byte alignment keeps vector loads on copies and host kernels happy.
    const bool fits = alloc <= SIZE_MAX - 63 && detail::host_memory_holds(alloc);
    storage->data = fits ? std::aligned_alloc(64, (alloc + 63) / 64 * 64) : nullptr;
    if (storage->data == nullptr) throw detail::host_allocation_error("croq::Tensor::empty", dtype, shape);
  } else {
    jit::make_current(device);
    CUdeviceptr ptr = 0;
    CROQ_CU(cuMemAlloc, &ptr, alloc);
    storage->data = reinterpret_cast<void*>(ptr);
  }
  Tensor t;
  t.storage_ = std::move(storage);
  t.view_ = TensorView::contiguous(t.storage_->data, dtype, shape, memory, device);
  return t;
}

Tensor Tensor::copy_of(const TensorView& src, MemoryKind memory, int device) {
  detail::check_view(src, "croq::Tensor::copy_of: source " + src.str(), true);
  if (!src.is_contiguous()) throw ArgumentError("croq::Tensor::copy_of: only contiguous tensors can be copied");
  Tensor t = empty(src.dtype, src.shape, memory, device);
  t.copy_from(src);
  return t;
}

namespace {

// `a` is the destination, `b` the source.
void check_same_layout(const TensorView& a, const TensorView& b, const char* what) {
  const std::string who = std::string("croq::Tensor::") + what;
  detail::check_view(a, who + ": destination " + a.str(), true);
  detail::check_view(b, who + ": source " + b.str(), true);
  if (a.dtype != b.dtype || !(a.shape == b.shape))
    throw ArgumentError(std::string("croq::Tensor::") + what + ": " + a.str() + " and " + b.str() +
                        " differ in dtype or shape");
  if (!a.is_contiguous() || !b.is_contiguous())
    throw ArgumentError(std::string("croq::Tensor::") + what + ": only contiguous tensors can be copied");
}

// Copies between any combination of host and device memory (synchronous).
void copy_bytes(const TensorView& dst, const TensorView& src) {
  std::size_t bytes = detail::tensor_bytes_or_throw(src.dtype, src.shape, "croq::Tensor copy");
  if (bytes == 0) return;
  bool dst_dev = dst.memory == MemoryKind::device, src_dev = src.memory == MemoryKind::device;
  if (!dst_dev && !src_dev) { std::memcpy(dst.data, src.data, bytes); return; }
  jit::make_current(dst_dev ? dst.device : src.device);
  auto d = reinterpret_cast<CUdeviceptr>(dst.data);
  auto s = reinterpret_cast<CUdeviceptr>(src.data);
  if (dst_dev && src_dev) CROQ_CU(cuMemcpyDtoD, d, s, bytes);
  else if (dst_dev) CROQ_CU(cuMemcpyHtoD, d, src.data, bytes);
  else CROQ_CU(cuMemcpyDtoH, dst.data, s, bytes);
}

}  // namespace

void Tensor::copy_from(const TensorView& src) {
  check_same_layout(view_, src, "copy_from");
  copy_bytes(view_, src);
}

void Tensor::copy_to(const TensorView& dst) const {
  check_same_layout(dst, view_, "copy_to");
  copy_bytes(dst, view_);
}

Tensor Tensor::to_host() const {
  if (!defined() || memory() == MemoryKind::host) return *this;
  return copy_of(view_, MemoryKind::host);
}

Tensor Tensor::to_device(int device) const {
  if (!defined()) return *this;
  if (memory() == MemoryKind::device && view_.device == device) return *this;
  return copy_of(view_, MemoryKind::device, device);
}

ElementRef Tensor::operator[](std::size_t i) const {
  if (!defined()) throw Error("croq::Tensor: indexing an empty tensor");
  if (memory() != MemoryKind::host)
    throw Error("croq::Tensor: cannot index device memory on the host; call to_host() first");
  return ElementRef(&view_, 0, 0)[i];
}

}  // namespace croq
