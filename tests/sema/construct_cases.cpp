// Rule cases for the language's constructs listed in
// tests/frontend/CONSTRUCTS.md: rank-only return types, arrays of mma
// accumulators (`frag mc[2][3] {0.0f}`), and misuses of the other forms.
#include "sema_test_util.hpp"

namespace croq::sema::test {

std::vector<RuleCase> construct_cases() {
  return {
      // `__co__ s32 mdspan<2> f(...)`: a rank; the returned declaration gives the shape.
      {"RankOnlyReturnWithoutAReturn", "missing-return", "__co__ s32 mdspan<2> f(s32 [64, 64] a) {\n}\n", 1,
       "s32 mdspan", "the function returns a tensor but has no `return NAME;`",
       "declare the result, e.g. `s32 [...] output;`, and end with `return output;`"},
      {"RankOnlyReturnOfAnotherRank", "returned-declaration",
       "__co__ s32 mdspan<3> f(s32 [64, 64] a) {\n  s32 [64, 64] out;\n  return out;\n}\n", 2, "out;",
       "`out` is declared of rank 2 but the function returns a tensor of rank 3 (`s32 mdspan<3>`)",
       "declare the returned tensor with 3 dims"},
      {"RankOnlyReturnOfANumber", "return-value", "__co__ s32 mdspan<1> f(int a) {\n  return a;\n}\n", 2, "a;",
       "`a` is a number; the function returns a tensor (`s32 mdspan<1>`)", "return a tensor declared at function scope"},
      {"RankOnlyReturnOfAParameter", "unsupported-return", "__co__ s32 mdspan<2> f(s32 [64, 64] a) {\n  return a;\n}\n", 2,
       "a;", "returning `a` is not supported yet by libcroqjit",
       "return a tensor declared at function scope, e.g. `s32 [x.span] out; ... return out;`"},
  };
}

}  // namespace croq::sema::test
