// `auto` functions, and functions of a rank-only return type (`s32
// mdspan<2>`), that return a tensor declared at function scope: the
// declaration gives the output's element type and shape, as a shaped
// return type would. (Returning values is a limitation: tests/sema.)
#include <gtest/gtest.h>

#include <string>

#include "pipeline/specialize.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::generate;
using test::tensor;

const std::string kDoubleBody = R"( twice(s32 [R, 48] x) {
  s32 [x.span] y;
  parallel r by R : block {
    parallel c by 48 : thread
      y.at(r, c) = x.at(r, c) * 2;
  }
  return y;
}
)";
const std::string kDoubleAuto = "__co__ auto" + kDoubleBody;
const std::string kDoubleShaped = "__co__ s32 [R, 48]" + kDoubleBody;
const std::string kDoubleRanked = "__co__ s32 mdspan<2>" + kDoubleBody;

TEST(AutoReturn, TheReturnedDeclarationIsTheOutput) {
  GeneratedKernel k = generate(kDoubleAuto, {tensor(DType::s32, {5, 48})});
  EXPECT_EQ(k.output_dtype, DType::s32);
  EXPECT_EQ(k.output_shape, (std::vector<std::int64_t>{5, 48}));
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[1].kind, KernelParam::Kind::output);
  // The same kernel as with the type written out.
  GeneratedKernel shaped = generate(kDoubleShaped, {tensor(DType::s32, {5, 48})});
  EXPECT_EQ(k.cuda_source, shaped.cuda_source);
}

TEST(AutoReturn, ARankOnlyReturnTypeTakesTheDeclarationToo) {
  GeneratedKernel k = generate(kDoubleRanked, {tensor(DType::s32, {5, 48})});
  EXPECT_EQ(k.output_dtype, DType::s32);
  EXPECT_EQ(k.output_shape, (std::vector<std::int64_t>{5, 48}));
  GeneratedKernel shaped = generate(kDoubleShaped, {tensor(DType::s32, {5, 48})});
  EXPECT_EQ(k.cuda_source, shaped.cuda_source);
}

}  // namespace
}  // namespace croq::pipeline
