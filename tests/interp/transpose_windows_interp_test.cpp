// The benchmark's plain transpose (bench/harness/kernels/ew_transpose.co)
// in interpret mode at every class of shape the tile_transposes pass
// treats apart, for each element size: rows of x off a 16-byte chunk (N no
// multiple of the chunk), rows of y off one (M), both, and tails in M and N
// past the last whole tile; random inputs, the output poisoned, compared
// bit for bit with the host's transpose. Windows of chunks are dealt over
// the whole block (window_slots), so each shape also checks that every
// chunk of every row's window is moved once and nothing outside a piece is
// written.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "common/bench_kernel_text.hpp"
#include "common/elementwise_checks.hpp"
#include "common/scoped_env.hpp"
#include "croq/croq.hpp"

namespace croq {
namespace {

using test::check_transpose;
using test::interpreting;
using test::Shape2;

std::string transpose_of(const char* element) { return test::bench_kernel_text("ew_transpose.co", "f32", element); }

template <typename T>
void check_shapes(const char* element, std::initializer_list<Shape2> shapes) {
  for (Shape2 s : shapes) {
    SCOPED_TRACE(std::string(element) + " " + std::to_string(s.m) + " x " + std::to_string(s.n));
    check_transpose<T>(transpose_of(element), element, s.m, s.n, interpreting());
  }
}

// 4-byte elements: 64 x 64 tiles, chunks of 4.
TEST(InterpretTransposeWindows, FourByteRowsOffAChunk) {
  check_shapes<float>("f32", {Shape2{128, 130}, Shape2{130, 128}, Shape2{131, 133}, Shape2{66, 257}});
  check_shapes<std::int32_t>("s32", {Shape2{129, 131}});
}

// 2-byte elements: 128 x 128 tiles, chunks of 8.
TEST(InterpretTransposeWindows, TwoByteRowsOffAChunk) {
  check_shapes<f16>("f16", {Shape2{128, 259}, Shape2{259, 128}, Shape2{257, 261}});
  check_shapes<bf16>("bf16", {Shape2{131, 256}, Shape2{256, 133}, Shape2{130, 129}});
}

// 1-byte elements: 128 x 128 tiles, chunks of 16.
TEST(InterpretTransposeWindows, OneByteRowsOffAChunk) {
  check_shapes<std::int8_t>("s8", {Shape2{128, 256}, Shape2{128, 131}, Shape2{133, 256}, Shape2{135, 139}});
  check_shapes<std::uint8_t>("u8", {Shape2{257, 130}});
}

// 8-byte elements: 32 x 32 tiles, chunks of 2.
TEST(InterpretTransposeWindows, EightByteRowsOffAChunk) {
  check_shapes<double>("f64", {Shape2{64, 33}, Shape2{33, 64}, Shape2{35, 37}});
}

// CROQ_TRANSPOSE_STORE_WINDOWS=0: element stores where rows of y are off
// a chunk (the form the switch times the windows against).
TEST(InterpretTransposeWindows, ElementStoresBySwitch) {
  const croq::test::ScopedEnv element_stores(std::map<std::string, std::string>{{"CROQ_TRANSPOSE_STORE_WINDOWS", "0"}});
  check_shapes<f16>("f16", {Shape2{259, 261}});
  check_shapes<float>("f32", {Shape2{67, 129}});
}

}  // namespace
}  // namespace croq
