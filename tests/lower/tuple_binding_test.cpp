// Lowering of names bound to tuples and shapes (`tile = {4, 16}`,
// `counts = x.span / tile`, `more {(2), (1)}`) and of cdiv on a whole shape:
// each use is lowered as if its value were written there.
#include <gtest/gtest.h>

#include <string>

#include "common/specialize_test_util.hpp"
#include "pipeline/specialize.hpp"

namespace croq::pipeline {
namespace {

using test::generate;
using test::tensor;

const char* kNamed = R"(__co__ void tiles(f32 [M, 48] x, f32 [M, 48] out) {
  tile = {4, 16};
  counts = x.span / tile;
  more = {tile, 9};
  picked = more {(2), (1)};
  parallel {pm, pn} by counts : block {
    f = dma.copy x.subspan(tile).at(pm, pn) => shared;
    shared f32 [tile] t;
    parallel {i, j} by tile : thread
      t.at(i, j) = f.data.at(i, j) * picked(0) + picked(1);
    sync.barrier : block;
    dma.copy t => out.chunkat(pm, pn);
  }
}
)";

// The same kernel with each value written out (M = 8), line for line.
const char* kWritten = R"(__co__ void tiles(f32 [M, 48] x, f32 [M, 48] out) {




  parallel {pm, pn} by [2, 3] : block {
    f = dma.copy x.subspan(4, 16).at(pm, pn) => shared;
    shared f32 [4, 16] t;
    parallel {i, j} by [4, 16] : thread
      t.at(i, j) = f.data.at(i, j) * 9 + 16;
    sync.barrier : block;
    dma.copy t => out.chunkat(pm, pn);
  }
}
)";

TEST(TupleBindingLowering, ANamedTupleOrShapeIsItsValueWrittenOut) {
  const std::vector<abi::ArgSignature> args = {tensor(DType::f32, {8, 48}), tensor(DType::f32, {8, 48})};
  GeneratedKernel named = generate(kNamed, args);
  GeneratedKernel written = generate(kWritten, args);
  EXPECT_EQ(named.cuda_source, written.cuda_source);
}

// cdiv of a whole shape, dim by dim, rounded up: cdiv([8, 48], {3, 16}) = [3, 3].
TEST(TupleBindingLowering, CdivOfAShapeIsTheCdivOfEachDim) {
  const std::string body = R"( : block
    out.at(pm, pn) = x.at(pm, pn);
}
)";
  const std::string head = "__co__ void f(f32 [M, 48] x, f32 [M, 48] out) {\n  parallel {pm, pn} by ";
  const std::vector<abi::ArgSignature> args = {tensor(DType::f32, {8, 48}), tensor(DType::f32, {8, 48})};
  GeneratedKernel whole = generate(head + "cdiv(x.span, {3, 16})" + body, args);
  GeneratedKernel written = generate(head + "[3, 3]" + body, args);
  EXPECT_EQ(whole.cuda_source, written.cuda_source);
}

}  // namespace
}  // namespace croq::pipeline
