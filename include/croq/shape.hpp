// The extents of a tensor (implemented in src/core, below every stage).
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <string>

namespace croq {

inline constexpr int kMaxRank = 8;

// Extents of a tensor, outermost first.
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<std::size_t> dims);
  template <typename It>
  Shape(It first, It last) {
    for (; first != last; ++first) push_back(static_cast<std::size_t>(*first));
  }

  int rank() const { return rank_; }
  std::size_t size() const { return static_cast<std::size_t>(rank_); }
  // Throws croq::Error for i >= rank().
  std::size_t operator[](std::size_t i) const { return dims_[checked_index(i)]; }
  std::size_t& operator[](std::size_t i) { return dims_[checked_index(i)]; }
  const std::size_t* begin() const { return dims_.data(); }
  const std::size_t* end() const { return dims_.data() + rank_; }
  void push_back(std::size_t d);  // throws croq::Error past kMaxRank
  std::size_t numel() const;
  std::string str() const;  // "[128, 256]"
  friend bool operator==(const Shape& a, const Shape& b);

 private:
  std::size_t checked_index(std::size_t i) const {
    if (i >= static_cast<std::size_t>(rank_)) throw_index_out_of_range(i);
    return i;
  }
  [[noreturn]] void throw_index_out_of_range(std::size_t i) const;

  std::array<std::size_t, kMaxRank> dims_{};
  int rank_ = 0;
};

}  // namespace croq
