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
      // frag: register tiles (`frag f32 [64] x {0.0f}`) and accumulators (`frag mc[2][3] {0.0f}`)
      {"FragmentWithoutAShape", "declaration-type",
       blk("    parallel t by 128 : thread {\n      frag f32 row {0.0f};\n    }\n"), 4, "frag",
       "a fragment is a tile and needs a shape, e.g. `frag f32 [64] x;`"},
      {"ArrayOfAccumulators", "unsupported-fragment", wg("      frag md[2] {0.0f};\n"), 7, "md[",
       "arrays of mma accumulators (`frag md[..]`) are not supported yet by libcroqjit",
       "fill one accumulator per name: `md0 = mma.fill.f32 0.0f;`"},
      {"WholeAccumulatorArrayInAnMma", "accumulator-array-unselected",
       wg("      frag md[2][2] {0.0f};\n      mma.row.row md, ta.data, tb.data;\n"), 8, "md,",
       "`md` is an array of accumulators; name one, e.g. `md[i][j]`", "an mma operation takes one accumulator", "", true},
      {"HalfSelectedAccumulatorArray", "accumulator-array-unselected",
       wg("      frag md[2][2] {0.0f};\n      mma.row.row md[1], ta.data, tb.data;\n"), 8, "md[1]",
       "`md[1]` is an array of accumulators; name one, e.g. `md[1][j]`", "an mma operation takes one accumulator", "",
       true},
      {"AccumulatorSelectedTooOften", "not-an-array",
       wg("      frag md[2] {0.0f};\n      mma.row.row md[0][1], ta.data, tb.data;\n"), 8, "md[0][1]",
       "`md[0]` is one accumulator, not an array of them", "", "", true},
      {"AccumulatorIndexOutOfRange", "array-index-range",
       wg("      frag md[2] {0.0f};\n      mma.row.row md[2], ta.data, tb.data;\n"), 8, "2]",
       "index 2 is out of range for 2 elements", "", "", true},
      // Register fragments: a warpgroup's lhs of RS-mode WGMMA, never rhs.
      {"FragmentAsRhs", "mma-operand-kind",
       wg("      frag f16 [128, 64] fb {1.0f};\n      mma.row.row mc, ta.data, fb;\n"), 8, "fb;",
       "an mma's rhs is read from shared memory, so it cannot be the register fragment `fb`",
       "copy it to a shared tile, or multiply with the fragment as lhs"},
      {"LoadedFragmentAsRhs", "mma-operand-kind",
       wg("      fb = mma.load.frag tb.data;\n      mma.row.row mc, ta.data, fb;\n"), 8, "fb;",
       "an mma's rhs is read from shared memory, so it cannot be the register fragment `fb`",
       "copy it to a shared tile, or multiply with the fragment as lhs"},
      // A warpgroup's mma.load of a global tile is a register fragment too.
      {"GlobalLoadAsRhs", "mma-operand-kind",
       wg("      gb = mma.load rhs.subspan(128, 64).at(bn, 0);\n      mma.row.row mc, ta.data, gb;\n"), 8, "gb;",
       "an mma's rhs is read from shared memory, so it cannot be the register fragment `gb`",
       "copy it to a shared tile, or multiply with the fragment as lhs"},
      {"EmptyAccumulatorArray", "buffer-array-empty", wg("      frag md[0] {0.0f};\n"), 7, "0]",
       "an array of accumulators holds at least one, got 0"},
      {"FragAccumulatorOfBf16", "mma-fill-type", wg("      frag.bf16 md {0.0f};\n"), 7, "bf16",
       "frag takes `.f32` or `.f16` (the accumulator type), got `.bf16`"},
      {"EventArrayWithAnEmptyDim", "event-count", blk("    shared event e[2][0];\n"), 3, "0]",
       "an array size is at least 1, got 0"},
      {"ArrayOfArraysOfTooManyEvents", "event-count", blk("    shared event e[4][16];\n"), 3, "e[4]",
       "an event array holds 1 to 32 events, got 64"},
      {"EventOfAnArrayOfArraysPastItsRow", "array-index-range", blk("    shared event e[2][3];\n    trigger e[1][3];\n"), 4,
       "3]", "index 3 is out of range for 3 elements"},
      // Math builtins
      {"SqrtOfTwoOperands", "builtin-arity", blk("    out.at(bm, bn) = __sqrt(out.at(bm, bn), 2.0f);\n"), 3, "__sqrt",
       "`__sqrt` takes 1 operand, got 2", "", "", true},
      {"PowOfATensor", "arithmetic-operand", blk("    out.at(bm, bn) = __pow(out, 2.0f);\n"), 3, "out,",
       "`out` is a tensor; `__pow` takes numbers", "", "", true},
      // `?` dims belong to parameters
      {"UnnamedDimInALocalBuffer", "unknown-name", blk("    shared f32 [?, 4] s;\n"), 3, "?",
       "`?` stands for a dim only in the shape of a parameter",
       "name the dim of the parameter, e.g. `f32 [M, 4] x`, and use `M` here"},
      // mma.scale
      {"MmaScaleOfTwoOperands", "mma-operand-count", wg("      mma.scale mc, ta;\n"), 7, "mma",
       "mma.scale takes 3 operands (the accumulator and the scales of both sides), got 2"},
      // f8 element types keep their kind across a copy
      {"CopyBetweenFp8Kinds", "copy-element-type",
       "__co__ void f(f8_e4m3 [64, 64] a) {\n  parallel b by 1 : block {\n    shared f8_e5m2 [64, 64] s;\n"
       "    dma.copy a => s;\n  }\n}\n",
       4, "=> ^s", "copy between different element types (f8_e4m3 to f8_e5m2)"},
  };
}

}  // namespace croq::sema::test
