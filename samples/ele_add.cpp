// Element-wise addition (chapter 1): one parallel instance per element.
#include <croq/croq.hpp>

#include <iostream>

static const char* kSource = R"croq(
__co__ s32 [M, N] ele_add(s32 [M, N] lhs, s32 [M, N] rhs) {
  s32 [lhs.span] output;

  parallel {i, j} by [M, N]
    output.at(i, j) = lhs.at(i, j) + rhs.at(i, j);

  return output;
}
)croq";

int main() {
  auto ele_add = croq::compile(kSource);
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "ele_add: compiled `" << ele_add.name() << "`, but running it needs a CUDA GPU (" << why << ")\n";
    return 0;
  }

  auto lhs = croq::make_spandata<croq::s32>(100, 300);
  auto rhs = croq::make_spandata<croq::s32>(100, 300);
  lhs.fill_random(-1000, 1000);
  rhs.fill_random(-1000, 1000);

  auto res = ele_add(lhs.view(), rhs.view());

  for (size_t i = 0; i < res.shape()[0]; ++i)
    for (size_t j = 0; j < res.shape()[1]; ++j)
      croq::croq_assert(lhs[i][j] + rhs[i][j] == res[i][j], "values are not equal.");

  std::cout << "ele_add: [100, 300] + [100, 300] matches the host reference\nTest Passed\n";
}
