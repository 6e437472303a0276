// Binding parameters whose dims the call gives: each `?` dim and each dim of
// a rank only (`f32 mdspan<2>`) takes its argument's extent on its own,
// while the rank and the dims with a value or a name are still checked.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bind/bind.hpp"
#include "common/arg_signature.hpp"
#include "common/error_text.hpp"
#include "frontend/frontend.hpp"

namespace croq::bind {
namespace {

using test::tensor;

const char* kSource =
    "__co__ void f(f32 mdspan<2> x, f32 [?, 4] y, f32 [?, N] z) {\n"
    "  parallel p by 1 { }\n"
    "}\n";

std::map<std::string, std::int64_t> bind(const std::vector<abi::ArgSignature>& args) {
  auto program = frontend::parse_program(kSource, {});
  return bind_dims(*program, program->functions.at(0), args);
}

TEST(ParamFormsBind, EachUnnamedDimTakesItsOwnExtent) {
  const auto dims = bind({tensor(DType::f32, {3, 9}), tensor(DType::f32, {5, 4}), tensor(DType::f32, {7, 2})});
  // Only the named dim is bound; `?` and rank-only dims have no name to bind.
  EXPECT_EQ(dims, (std::map<std::string, std::int64_t>{{"N", 2}}));
}

TEST(ParamFormsBind, TheRankOfARankOnlyParameterIsChecked) {
  EXPECT_EQ(test::error_of([] {
              bind({tensor(DType::f32, {3, 9, 2}), tensor(DType::f32, {5, 4}), tensor(DType::f32, {7, 2})});
            }),
            "argument 1 'x': expected f32 [?, ?], got f32 [3, 9, 2]");
}

TEST(ParamFormsBind, AValueBesideAnUnnamedDimIsChecked) {
  EXPECT_EQ(test::error_of([] {
              bind({tensor(DType::f32, {3, 9}), tensor(DType::f32, {5, 3}), tensor(DType::f32, {7, 2})});
            }),
            "argument 2 'y': expected f32 [?, 4], got f32 [5, 3]");
}

}  // namespace
}  // namespace croq::bind
