// Shapes and their sizes in bytes: vocabulary every stage uses (croq/tensor.hpp
// declares Shape), kept below the API so that no stage depends on it.
#include <string>

#include "core/tensor_size.hpp"
#include "croq/error.hpp"
#include "croq/shape.hpp"
#include "support/checked_int.hpp"

namespace croq {

Shape::Shape(std::initializer_list<std::size_t> dims) {
  for (std::size_t d : dims) push_back(d);
}

void Shape::push_back(std::size_t d) {
  if (rank_ >= kMaxRank)
    throw Error("croq::Shape: rank above " + std::to_string(kMaxRank) + " is not supported");
  dims_[static_cast<std::size_t>(rank_++)] = d;
}

std::optional<std::int64_t> detail::tensor_bytes(DType dtype, const Shape& shape) {
  for (std::size_t d : shape)
    if (d == 0) return 0;
  std::int64_t n = static_cast<std::int64_t>(dtype_size(dtype));
  for (std::size_t d : shape) {
    if (d > static_cast<std::size_t>(INT64_MAX)) return std::nullopt;
    support::CheckedInt next = support::checked_mul(n, static_cast<std::int64_t>(d));
    if (!next.ok()) return std::nullopt;
    n = next.value;
  }
  return n;
}

std::string detail::dtype_problem(DType dtype) {
  if (dtype_valid(dtype)) return {};
  return "dtype value " + std::to_string(static_cast<int>(dtype)) + " is not a croq::DType (0 to " +
         std::to_string(kDTypeCount - 1) + ")";
}

std::size_t detail::tensor_bytes_or_throw(DType dtype, const Shape& shape, const std::string& what) {
  if (std::string problem = dtype_problem(dtype); !problem.empty()) throw ArgumentError(what + ": " + problem);
  std::optional<std::int64_t> n = tensor_bytes(dtype, shape);
  if (!n)
    throw ArgumentError(what + ": " + std::string(dtype_name(dtype)) + " " + shape.str() +
                        " holds more bytes than a 64-bit size can count (2^63 - 1)");
  return static_cast<std::size_t>(*n);
}

void Shape::throw_index_out_of_range(std::size_t i) const {
  throw Error("croq::Shape: index " + std::to_string(i) + " is out of range for " + str() + " (rank " +
              std::to_string(rank_) + ")");
}

// Element counts must have int64 values (kernels index with them).
std::size_t Shape::numel() const {
  std::optional<std::int64_t> n = detail::tensor_bytes(DType::u8, *this);
  if (!n) throw ArgumentError("croq::Shape " + str() + ": the element count does not fit in 64 bits");
  return static_cast<std::size_t>(*n);
}

std::string Shape::str() const {
  std::string out = "[";
  for (int i = 0; i < rank_; ++i) out += (i ? ", " : "") + std::to_string(dims_[static_cast<std::size_t>(i)]);
  return out + "]";
}

bool operator==(const Shape& a, const Shape& b) {
  if (a.rank_ != b.rank_) return false;
  for (int i = 0; i < a.rank_; ++i)
    if (a.dims_[static_cast<std::size_t>(i)] != b.dims_[static_cast<std::size_t>(i)]) return false;
  return true;
}

}  // namespace croq
