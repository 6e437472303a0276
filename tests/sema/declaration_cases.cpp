// Rule cases: declarations, parameters, picks and literals
// (src/sema/check_declarations.cpp).
#include "sema_test_util.hpp"

namespace croq::sema::test {

std::vector<RuleCase> declaration_cases() {
  return {
      {"MutableWithoutAValue", "declaration-type", fn("  mutable d;\n"), 2, "d;",
       "cannot tell the type of `d` without a value",
       "give it a type (`mutable int d = 0;`) or a value (`mutable d = 0;`)"},
      {"ShapeDefinedWithEquals", "named-value-init", fn("  mdspan sp = [7, 8];\n"), 2, "sp =",
       "a shape is defined with `:`, not `=` or `{}` (`sp`)", "write `sp : [7, 8];`"},
      {"TupleOfAnotherRank", "declaration-rank", fn("  ituple<3> t = {1, 2};\n"), 2, "{1",
       "`t` is declared with rank 3 but `{1, 2}` has 2 values"},
      {"PickFromAScalar", "pick-operand", fn("  u = n {(0)};\n"), 2, "n {",
       "`n` is a number; `{...}` after a name picks from an ituple"},
      {"PickOfAMissingDim", "pick-index", fn("  s : lhs.span [(2)];\n"), 2, "2)]",
       "`lhs.span` has 2 elements; `(2)` is not one of them", "elements count from 0"},
      {"ScalarByReference", "reference-parameter", "__co__ void f(int &n) { }\n", 1, "n)",
       "scalars are passed by value; `n` cannot take `&`", "remove the `&`"},
      {"WarpgroupFragmentOnSm80", "unsupported-fragment", blk("    frag f32 [64] row {0.0f};\n"), 3, "frag",
       "register fragments are held in WGMMA's register layout, which libcroqjit has on sm_90a only (compiling for sm_80)",
       "compile for sm_90a, or declare it inside a `: thread` level, which spreads it over its threads", "sm_80"},
      {"PartOfAnArrayOfArraysAsOneTile", "unsupported-array-of-arrays",
       blk("    shared f32 [32] s[4][2];\n    t = s[3].span_as([4, 8]);\n"), 4, "span_as",
       "a part of an array of arrays seen as one tile (`s[3].span_as(...)`) is not supported yet by libcroqjit",
       "select one buffer (`s[i][j]`) and give it the shape"},
      {"EventThreadCount", "unsupported-event-arrivals", blk("    shared event<256> e;\n"), 3, "256",
       "an explicit thread count (`event<256>`) is not supported yet by libcroqjit",
       "leave the count out: libcroqjit derives it from the triggers"},
      {"RankOnlyOfTooManyDims", "unsupported-parameter", "__co__ void f(f32 mdspan<9> x) { }\n", 1, "f32 mdspan",
       "parameters of a rank only (`f32 mdspan<9>`) are supported with a rank from 1 to 8 written as a number or a #define",
       "name the dims, e.g. `f32 [M, N]`"},
      {"TensorStartingAtARunTimeValue", "unsupported-runtime-value", fn("  global f32 [64] t{n};\n"), 2, "n}",
       "a tensor's initial value computed at run time (`n`) is not supported yet by libcroqjit",
       "fill it with a constant, or store the value in a parallel statement"},
      {"TensorStartingAtSeveralValues", "unsupported-expression", blk("    shared f32 [4] t{1.0f, 2.0f};\n"), 3, "2.0f",
       "a tensor initialized with several values (`t{..., 2.0f}`) is not supported yet by libcroqjit",
       "fill it with one value, e.g. `{0}`, and store the others in a parallel statement"},
      {"SharedTensorStartingAtAValueBelowTheBlocksThreads", "unsupported-expression",
       blk("    parallel g by 2 : group {\n      parallel t by 32 : thread {\n        shared f32 [4] s{1.0f};\n"
           "      }\n    }\n"),
       5, "1.0f",
       "an initial value of a shared tensor declared below the block's threads (in a group level, a region's thread "
       "level or a nested level) is not supported yet by libcroqjit",
       "declare `s` at block level, or store the value in the level"},
      {"UnsignedLiteralAboveInt64", "unsupported-literal", fn("  mutable int x = 18446744073709551615u;\n"), 2, "1844",
       "integer literals above 9223372036854775807 (`18446744073709551615u`) are not supported yet by libcroqjit"},
  };
}

}  // namespace croq::sema::test
