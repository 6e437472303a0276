// Shapes whose element count or byte size has no 64-bit value are
// ArgumentErrors wherever they enter the API (Shape::numel, TensorView,
// Tensor::empty, kernel arguments), never a wrapped size; and a grid sized
// by dynamic dims is computed with checked arithmetic at launch.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "api/launch_args.hpp"
#include "croq/croq.hpp"

namespace croq {
namespace {

constexpr std::size_t k2To62 = std::size_t{1} << 62;
constexpr std::size_t k2To32 = std::size_t{1} << 32;

// A view of `shape` as a caller may build one by hand (strides of a
// row-major layout, no size checks).
TensorView raw_view(DType dtype, Shape shape) {
  TensorView v;
  v.data = reinterpret_cast<void*>(std::uintptr_t{4096});
  v.dtype = dtype;
  v.shape = shape;
  std::int64_t stride = 1;
  for (int i = shape.rank() - 1; i >= 0; --i) {
    v.strides[static_cast<std::size_t>(i)] = stride;
    stride = static_cast<std::int64_t>(static_cast<std::uint64_t>(stride) * shape[static_cast<std::size_t>(i)]);
  }
  return v;
}

TEST(LargeShape, SizesWithoutA64BitValueAreArgumentErrors) {
  EXPECT_THROW(Shape({k2To62, 8}).numel(), ArgumentError);
  EXPECT_THROW(Shape({k2To32, k2To32}).numel(), ArgumentError);
  EXPECT_EQ(Shape({k2To62, 0, 8}).numel(), 0u);  // empty, however large the rest
  EXPECT_EQ(Shape({k2To62, 1}).numel(), k2To62);
  EXPECT_THROW(TensorView::contiguous(nullptr, DType::f32, {k2To62}), ArgumentError);  // 2^64 bytes
  EXPECT_THROW(Tensor::empty(DType::u8, {k2To62, 8}, MemoryKind::host), ArgumentError);
  EXPECT_THROW(Tensor::empty(DType::f64, {std::size_t{1} << 61}, MemoryKind::host), ArgumentError);
}

// The kernel refuses such arguments before specializing or touching a
// device (so this runs without one).
TEST(LargeShape, KernelArgumentsPast64BitSizesAreArgumentErrors) {
  Kernel k = compile(R"(__co__ void add(u8 [M, N] a, u8 [M, N] out) {
  parallel {i, j} by [M, N]
    out.at(i, j) = a.at(i, j) + 1;
}
)");
  const std::vector<Shape> shapes = {{k2To62, 8}, {k2To32, k2To32}, {std::size_t{1} << 63, 1}, {SIZE_MAX, 1}};
  for (const Shape& shape : shapes) {
    const TensorView v = raw_view(DType::u8, shape);
    try {
      k(v, v);
      ADD_FAILURE() << shape.str() << " was accepted";
    } catch (const ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("argument 1 'a'"), std::string::npos) << e.what();
    }
  }
}

TEST(LargeShape, RuntimeGridIsChecked) {
  abi::RuntimeGrid grid;
  grid.factor = 256;
  grid.per_block = 256;
  grid.terms.push_back({abi::DimSource{0, 0}, 1, false});
  grid.terms.push_back({abi::DimSource{1, 0}, 64, true});
  auto dims = [](std::int64_t m, std::int64_t n) {
    return [=](const abi::DimSource& d) { return d.argument == 0 ? m : n; };
  };
  // 256 * M * cdiv(N, 64) / 256 blocks.
  EXPECT_EQ(detail::runtime_grid_blocks(grid, dims(1000, 65), "k"), 2000u);
  EXPECT_EQ(detail::runtime_grid_blocks(grid, dims(0, 65), "k"), 0u);
  // Past the grid: an error naming the count, or (a kernel that loops over
  // block indices) the largest grid.
  try {
    detail::runtime_grid_blocks(grid, dims(std::int64_t{1} << 31, 64), "k");
    ADD_FAILURE() << "2^31 blocks were accepted";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("ask for 2147483648 blocks"), std::string::npos) << e.what();
  }
  EXPECT_THROW(detail::runtime_grid_blocks(grid, dims(INT64_MAX, INT64_MAX), "k"), ArgumentError);
  grid.grid_stride = true;
  EXPECT_EQ(detail::runtime_grid_blocks(grid, dims(std::int64_t{1} << 31, 64), "k"), 0x7fffffffu);
  EXPECT_EQ(detail::runtime_grid_blocks(grid, dims(INT64_MAX, INT64_MAX), "k"), 0x7fffffffu);
}

// A count computed at launch (abi::LaunchCount: postfix over the kernel's
// integer parameters) multiplies the grid, with C++'s integer arithmetic;
// a fault or a negative count is an ArgumentError naming the count.
TEST(LargeShape, LaunchCountsAreCheckedAtLaunch) {
  using Op = abi::LaunchCount::Op;
  abi::LaunchCount count;  // (p0 > 5 ? p0 : 5) - p1 / 3
  count.text = "(a > 5 ? a : 5) - b / 3";
  count.ops = {{Op::Kind::constant, 5},  {Op::Kind::param, 0}, {Op::Kind::less}, {Op::Kind::param, 0},
               {Op::Kind::constant, 5},  {Op::Kind::select},   {Op::Kind::param, 1}, {Op::Kind::constant, 3},
               {Op::Kind::div},          {Op::Kind::sub}};
  auto params = [](std::int64_t a, std::int64_t b) {
    return [a, b](int p) { return p == 0 ? a : b; };
  };
  EXPECT_EQ(detail::launch_count_value(count, params(9, 7), "k"), 7);
  EXPECT_EQ(detail::launch_count_value(count, params(2, -7), "k"), 7);  // division truncates toward zero
  EXPECT_EQ(detail::launch_count_value(count, params(2, 15), "k"), 0);
  try {
    detail::launch_count_value(count, params(2, 18), "k");
    ADD_FAILURE() << "a negative count was accepted";
  } catch (const ArgumentError& e) {
    EXPECT_STREQ(e.what(), "`k`: the parallel count `(a > 5 ? a : 5) - b / 3` is -1 at this call; a count is at least 0");
  }
  abi::LaunchCount ratio;
  ratio.text = "a / b";
  ratio.ops = {{Op::Kind::param, 0}, {Op::Kind::param, 1}, {Op::Kind::div}};
  EXPECT_THROW(detail::launch_count_value(ratio, params(4, 0), "k"), ArgumentError);
  abi::RuntimeGrid grid;
  grid.factor = 3;
  grid.per_block = 2;
  grid.counts.push_back(ratio);
  auto no_dims = [](const abi::DimSource&) -> std::int64_t { return 0; };
  EXPECT_EQ(detail::runtime_grid_blocks(grid, no_dims, "k", params(40, 4)), 15u);  // cdiv(3 * 10, 2)
  EXPECT_THROW(detail::runtime_grid_blocks(grid, no_dims, "k", params(std::int64_t{1} << 61, 1)), ArgumentError);
}

}  // namespace
}  // namespace croq
