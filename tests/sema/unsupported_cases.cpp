// Rule cases: constructs of the language that libcroqjit cannot run yet are
// refused at compile time, each named.
#include "sema_test_util.hpp"

namespace croq::sema::test {

namespace {
const char* const kFp8Hint =
    "fp8 data moves with copies and element-to-element assignments of the same type; compute in f16 or f32";
}  // namespace

std::vector<RuleCase> unsupported_cases() {
  const std::string tile = "lhs.subspan(64, 64).at(bm, 0)";
  return {
      {"Tf32Parameter", "unsupported-element-type", "__co__ void f(tf32 [8] x) { }\n", 1, "tf32",
       "element type `tf32` is not supported yet"},
      {"Tf32SharedTile", "unsupported-element-type", blk("    shared tf32 [8] x;\n"), 3, "shared",
       "element type `tf32` is not supported yet"},
      {"ItupleDeclaration", "unsupported-declaration", fn("  ituple<3> t = {1, 2, 3};\n"), 2, "ituple",
       "`ituple` declarations are not supported yet by libcroqjit"},
      {"MdspanDeclaration", "unsupported-declaration", fn("  mdspan<2> sp : [7, 8];\n"), 2, "mdspan",
       "`mdspan` (named shape) declarations are not supported yet by libcroqjit"},
      {"Break", "unsupported-statement", fn("  foreach i in [4] { break; }\n"), 2, "break",
       "`break` is not supported yet by libcroqjit"},
      {"CallStatement", "unsupported-statement", fn("  call helper(n);\n"), 2, "call", "`call` is not supported yet by libcroqjit"},
      {"Swap", "unsupported-statement", fn("  swap(lhs, rhs);\n"), 2, "swap", "`swap` is not supported yet by libcroqjit"},
      {"Asm", "unsupported-statement", fn("  __asm__ volatile(\"nop;\");\n"), 2, "__asm__",
       "`__asm__` is not supported yet by libcroqjit"},
      {"SyncGlobal", "unsupported-statement", blk("    sync.global;\n"), 3, "sync",
       "`sync.global` is not supported yet by libcroqjit", "`sync.shared` is the barrier libcroqjit lowers"},
      {"Conversion", "unsupported-expression", fn("  parallel i by 8\n    a.at(i, 0) = __to<s32>(n);\n"), 3, "__to",
       "conversions (`__to<s32>`) are not supported yet by libcroqjit"},
      {"StringValue", "unsupported-expression", fn("  parallel i by 8\n    a.at(i, 0) = \"one\";\n"), 3, "\"one\"",
       "string literals are not supported yet by libcroqjit", "strings appear only in `assert(cond, \"message\")`"},
      {"PostIncrement", "unsupported-operator", fn("  mutable int k = 0;\n  parallel i by 8\n    a.at(i, k++) = 1;\n"), 4,
       "++", "`++` is not supported yet by libcroqjit", "write the update as its own assignment, e.g. `x += 1;`"},
      {"CallInAnExpression", "unsupported-call", fn("  parallel i by max(2, 4)\n    a.at(i, 0) = 1;\n"), 2, "max",
       "calls are not supported yet by libcroqjit (`max`)", "`cdiv(a, b)` is the one function an expression can call"},
      {"UnknownMember", "unsupported-member", fn("  parallel i by lhs.rank\n    a.at(i, 0) = 1;\n"), 2, "rank",
       "`.rank` is not supported yet by libcroqjit"},
      {"WithLoop", "unsupported-loop", fn("  with i in [4] { }\n"), 2, "with",
       "`with` and `apply` loops are not supported yet by libcroqjit", "write the loop as `foreach`"},
      {"ForeachWithoutBounds", "unsupported-loop", fn("  foreach i { }\n"), 2, "foreach",
       "`foreach` without `in` bounds is not supported yet by libcroqjit"},
      {"RangeLoop", "unsupported-loop", fn("  foreach y(1::) in [4] { }\n"), 2, "y(",
       "range loops (`y(start:end:stride)`) are not supported yet by libcroqjit",
       "write `foreach y in [N]` and offset the index"},
      {"IndexTupleAsAValue", "unsupported-index-tuple",
       fn("  foreach idx = {i, j} in [4, 4]\n    a.at(idx) = 1;\n"), 3, "idx)",
       "`idx` names a tuple of indices, which is not supported yet by libcroqjit as a value",
       "use its indices (`i`, `j`) directly"},
      {"NameForAShape", "unsupported-binding", fn("  s = lhs.span;\n"), 2, "s =",
       "`s = lhs.span` names a shape, which is not supported yet by libcroqjit", "use the expression where it is needed"},
      {"DmaAny", "unsupported-copy", blk("    f = dma.any;\n"), 3, "any", "dma.any is not supported yet by libcroqjit"},
      {"TmaTranspose", "unsupported-copy", blk("    t = tma.transp<1, 0> " + tile + " => shared;\n"), 3, "transp",
       "tma.transp is not supported yet by libcroqjit"},
      {"TmaMulticast", "unsupported-modifier", blk("    t = tma.copy.multicast " + tile + " => shared;\n"), 3, "multicast",
       "`.multicast` on tma.copy is not supported yet by libcroqjit"},
      {"DmaMulticast", "unsupported-modifier", blk("    t = dma.copy.multicast " + tile + " => shared;\n"), 3,
       "multicast", "`.multicast` on dma.copy is not supported yet by libcroqjit"},
      {"MmaLoadTranspose", "unsupported-modifier", wg("      ma = mma.load.swiz<128>.trans ta.data;\n"), 7, "trans",
       "`.trans` on mma.load is not supported yet by libcroqjit"},
      {"SparseMma", "unsupported-modifier", wg("      mma.row.row.sp mc, ta.data, tb.data;\n"), 7, "sp ",
       "`.sp` on mma is not supported yet by libcroqjit"},
      {"CopyAfter", "unsupported-after",
       blk("    f = dma.copy.async " + tile + " => shared;\n    g = dma.copy.async " + tile + " => shared after f;\n"), 4,
       "g =", "`after` is not supported yet by libcroqjit", "wait for the future first: `wait f;`, then copy"},
      {"TriggerAfter", "unsupported-after", blk("    shared event full[4], empty[4];\n    trigger full[0] after empty[0];\n"),
       4, "trigger", "`trigger ... after` is not supported yet by libcroqjit",
       "trigger the event after the statement it waits for"},
      {"EventAtOrder", "unsupported-event-at", blk("    shared event full[4];\n    trigger full.at(0);\n"), 4, "at(",
       "`full.at(...)` (ordered event arrival) is not supported yet by libcroqjit", "index the event array instead: `full[i]`"},
      {"Fp8Arithmetic", "unsupported-fp8-arithmetic",
       "__co__ void f(f8_e4m3 [8] a, f8_e4m3 [8] b) {\n  parallel i by 8\n    a.at(i) = a.at(i) + b.at(i);\n}\n", 3,
       "at(i) +", "`a.at(i)` is an f8_e4m3 element; using one in arithmetic is not supported yet by libcroqjit", kFp8Hint},
      {"Fp8FromANumber", "unsupported-fp8-arithmetic",
       "__co__ void f(f8_e4m3 [8] a) {\n  parallel i by 8\n    a.at(i) = 0;\n}\n", 3, "at(i)",
       "`a.at(i)` is an f8_e4m3 element; using one in an assignment of a non-fp8 value is not supported yet by libcroqjit",
       kFp8Hint},
      {"Fp8IntoF32", "unsupported-fp8-arithmetic",
       "__co__ void f(f8_e5m2 [8] a, f32 [8] b) {\n  parallel i by 8\n    b.at(i) = a.at(i);\n}\n", 3, "at(i);",
       "`a.at(i)` is an f8_e5m2 element; using one in an assignment to another type is not supported yet by libcroqjit",
       kFp8Hint},
      {"Fp8ScalarOfAFloat", "unsupported-fp8-arithmetic", fn("  f8_e4m3 x = 1.0f;\n"), 2, "x =",
       "`x` is an f8_e4m3 scalar; initializing it from anything but an f8_e4m3 element is not supported yet by libcroqjit",
       kFp8Hint},
      {"MmaRowCol", "unsupported-mma-layout", wg("      mma.row.col mc, ta.data, tb.data;\n"), 7, "mma",
       "mma.row.col is not supported yet; libcroqjit lowers mma.row.row (lhs [M, K], rhs [N, K], both K contiguous)"},
  };
}

}  // namespace croq::sema::test
