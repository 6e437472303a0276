// Rule cases of values computed inside statements: `++` / `--` inside an
// expression (on a mutable scalar, where the expression runs once) and
// `select` (among whole tiles and dma futures); what stays out is named.
#include "sema_test_util.hpp"

namespace croq::sema::test {

std::vector<RuleCase> value_cases() {
  const std::string tile = "lhs.subspan(64, 64).at(bm, 0)";
  return {
      {"DecrementAfterLogicalAnd", "unsupported-operator",
       blk("    mutable int k = 0;\n    mutable int m = n > 0 && --k > 2;\n"), 4, "--k",
       "`--` in the right operand of `&&` or `||` is not supported yet by libcroqjit",
       "update `k` in a statement of its own"},
      {"IncrementOfAnElementInAnExpression", "unsupported-operator",
       blk("    shared s32 [4] s;\n    mutable s32 x = ++s.at(0) + 1;\n"), 4, "++s",
       "`++` of `s.at(0)` inside an expression is not supported yet by libcroqjit",
       "update it in a statement of its own, e.g. `s.at(0) += 1;`"},
      {"IncrementOfAnImmutableName", "assign-target", blk("    int k = n;\n    mutable int x = k++ + 1;\n"), 4,
       "k++", "`++` changes `k`, which cannot be assigned to", "declare it `mutable`, e.g. `mutable int k = 0;`"},
      {"SelectAmongPartsOfTensors", "unsupported-call",
       blk("    shared s32 [64, 64] s, t;\n    v = select(bn % 2, s.chunkat(bm, _), t.chunkat(bm, _));\n"), 4,
       "chunkat(bm, _), t", "`select` among parts of tensors (`s.chunkat(bm, _)`) is not supported yet by libcroqjit",
       "copy the part into a tile of its own first, or select the whole tensors"},
      {"SelectAmongTmaFutures", "unsupported-call",
       blk("    t = tma.copy " + tile + " => shared;\n    u = tma.copy " + tile + " => shared;\n"
           "    v = select(bn % 2, t, u);\n"),
       5, "t, u", "`select` among TMA futures (`t`) is not supported yet by libcroqjit",
       "wait for each future, then select their tiles: `select(i, a.data, b.data)`", "sm_90a"},
  };
}

}  // namespace croq::sema::test
