// Rule cases: constructs of the language that libcroqjit cannot run yet are
// refused at compile time, each named.
#include "sema_test_util.hpp"

namespace croq::sema::test {

std::vector<RuleCase> unsupported_cases() {
  const std::string tile = "lhs.subspan(64, 64).at(bm, 0)";
  return {
      // Every Croqtile element type is supported; `float` and `double` name
      // scalars, not tensor elements, in libcroqjit.
      {"FloatTensorParameter", "unsupported-element-type", "__co__ void f(float [8] x) { }\n", 1, "float",
       "element type `float` is not supported yet"},
      {"DoubleSharedTile", "unsupported-element-type", blk("    shared double [8] x;\n"), 3, "shared",
       "element type `double` is not supported yet"},
      {"BufferOfARankOnly", "unsupported-declaration", fn("  f32 mdspan<2> x;\n"), 2, "f32 mdspan",
       "buffers of a rank only (`f32 mdspan<2>`) are not supported yet by libcroqjit", "give the shape, e.g. `f32 [M, N] x;`"},
      {"BreakOutOfSeveralIndices", "unsupported-statement", blk("    foreach {i, j} in [2, 2] { break; }\n"), 3, "break",
       "`break` out of a `foreach` of several indices is not supported yet by libcroqjit",
       "nest one `foreach` per index and break out of each, or use `continue`"},
      {"NamedBarrierOfLibcroqjit", "unsupported-call", blk("    __bar_sync(9, 64);\n"), 3, "9,",
       "named barrier 9 is libcroqjit's own in a kernel that calls __bar_arrive or __bar_sync (its inthreads.async "
       "regions and warpgroups take 8..15)",
       "use barrier ids 0..7"},
      {"AsmOutsideParallel", "unsupported-asm", fn("  __asm__ volatile(\"nop;\");\n"), 2, "__asm__",
       "`__asm__` outside a parallel statement is not supported yet by libcroqjit",
       "libcroqjit runs inline assembly in kernels, as PTX: put it inside the parallel body"},
      {"CpuAssembly", "unsupported-asm", blk("    __asm__ volatile(\"nop\" : : : \"memory\");\n"), 3, "__asm__",
       "libcroqjit runs inline assembly on the GPU as PTX; `nop` does not end with `;`, so it is not PTX",
       "libcroqjit runs every kernel on the GPU, where CPU assembly cannot run: write PTX instructions, each ending "
       "with `;`"},
      {"AsmMemoryOperand", "unsupported-asm", blk("    __asm__(\"ld.u32 %0, %1;\" : \"=r\"(a.at(0, 0)) : \"m\"(n));\n"), 3,
       "\"m\"", "the constraint \"m\" is not supported yet by libcroqjit",
       "libcroqjit binds PTX registers: h, r, l (16, 32, 64-bit integers), f, d (f32, f64) and n (a constant)"},
      {"AsmSubByteOperand", "unsupported-asm",
       "__co__ void f(s4 [8] q, s32 [8] o) {\n  parallel p by 8 : thread {\n"
       "    __asm__(\"mov.b32 %0, %1;\" : \"=r\"(o.at(p)) : \"r\"(q.at(p)));\n  }\n}\n",
       3, "at(p)));", "`q.at(p)` is an element of type s4; binding one to an assembly operand is not supported yet by libcroqjit",
       "convert it first: `s32 x = q.at(p);` and bind `x` with \"r\""},
      {"AsmFp6Operand", "unsupported-asm",
       "__co__ void f(f6_e3m2 [8] q, f32 [8] o) {\n  parallel p by 8 : thread {\n"
       "    __asm__(\"mov.b32 %0, %1;\" : \"=f\"(o.at(p)) : \"f\"(q.at(p)));\n  }\n}\n",
       3, "at(p)));", "`q.at(p)` is an element of type f6_e3m2; binding one to an assembly operand is not supported yet by "
       "libcroqjit", "convert it first: `f32 x = q.at(p);` and bind `x` with \"f\""},
      // tf32 elements are storage structs on the device too.
      {"AsmTf32Operand", "unsupported-asm",
       "__co__ void f(tf32 [8] q, f32 [8] o) {\n  parallel p by 8 : thread {\n"
       "    __asm__(\"mov.b32 %0, %1;\" : \"=f\"(o.at(p)) : \"f\"(q.at(p)));\n  }\n}\n",
       3, "at(p)));", "`q.at(p)` is an element of type tf32; binding one to an assembly operand is not supported yet by "
       "libcroqjit", "convert it first: `f32 x = q.at(p);` and bind `x` with \"f\""},
      {"AsmConditionCodeClobber", "unsupported-asm", blk("    __asm__(\"membar.gl;\" : : : \"cc\");\n"), 3, "__asm__",
       "the clobber \"cc\" is not supported yet by libcroqjit", "\"memory\" is the clobber PTX assembly takes"},
      {"SyncGlobal", "unsupported-statement", blk("    sync.global;\n"), 3, "sync",
       "`sync.global` is not supported yet by libcroqjit", "libcroqjit lowers `sync.shared`, `sync.barrier : block|group|thread` and `sync.fence`"},
      {"AtomicInsideAnExpression", "unsupported-call",
       blk("    shared s32 [64] s;\n    mutable s32 x = __atomic_add(s.at(bm), 1) + 1;\n"), 4, "__atomic_add",
       "`__atomic_add` inside a larger expression is not supported yet by libcroqjit",
       "make it a statement of its own, or the whole value of a declaration or an assignment"},
      {"ConversionOfATensor", "unsupported-expression", fn("  parallel i by 8\n    a.at(i, 0) = __to<s32>(a);\n"), 3,
       "__to", "`__to<s32>` converts a number, got `a`"},
      // `apply` over registers (an accumulator's or a fragment's) runs; over a bound it stays a limitation.
      {"ApplyOverAFragmentOutsideAWarpgroup", "unsupported-loop",
       blk("    frag f32 [64] m {0.0f};\n    apply {i} in m.span { }\n"), 4, "apply",
       "`apply` loops are not supported yet by libcroqjit", "write the loop as `foreach`"},
      {"StringValue", "unsupported-expression", fn("  parallel i by 8\n    a.at(i, 0) = n + \"one\";\n"), 3, "\"one\"",
       "string literals are not supported yet by libcroqjit", "strings appear only in `assert(cond, \"message\")`"},
      // `++` inside an expression runs once, before its statement: not where the expression runs again.
      {"PostIncrementInAWhileCondition", "unsupported-operator",
       blk("    mutable int k = 0;\n    while (k++ < 4) {\n    }\n"), 4, "++ <",
       "`++` in a `while` condition is not supported yet by libcroqjit", "update `k` in a statement of its own"},
      {"CallInAnExpression", "unsupported-call", fn("  parallel i by max(2, 4)\n    a.at(i, 0) = 1;\n"), 2, "max",
       "calls are not supported yet by libcroqjit (`max`)", "an expression can call `cdiv(a, b)`, the math builtins (`__sqrt`, `__pow`, ...) and the atomics (`__atomic_add`, ...)"},
      {"UnknownMember", "unsupported-member", fn("  parallel i by lhs.rank\n    a.at(i, 0) = 1;\n"), 2, "rank",
       "`.rank` is not supported yet by libcroqjit"},
      {"ModspanStepComputedInTheKernel", "unsupported-expression",
       blk("    t = dma.copy lhs.modspan(64, bn).at(0, 0) => shared;\n"), 3, "bn)",
       "a `.modspan` step computed in the kernel (`bn`) is not supported yet by libcroqjit",
       "use a constant or an expression of the parameters' dims"},
      {"ApplyLoop", "unsupported-loop", fn("  apply i in [4] { }\n"), 2, "apply",
       "`apply` loops are not supported yet by libcroqjit", "write the loop as `foreach`"},
      {"AccumulatorArithmetic", "unsupported-fragment-arithmetic", wg("      mc += 1.0f;\n"), 7, "mc +=",
       "element-wise arithmetic on an mma accumulator (`mc`) is not supported yet by libcroqjit",
       "store it first (`mma.store`) and compute on the stored tile"},
      {"S32Accumulator", "unsupported-mma-type", wg("      mi = mma.fill.s32 0;\n"), 7, "s32",
       "`mma.fill.s32` accumulators are not supported yet by libcroqjit",
       "libcroqjit accumulates in f32 or f16 (and in s32 at warp level: fill it in or above a `: group` level)"},
      {"WarpStoreOfF32AccumulatorToS32", "unsupported-mma-type",
       blk("    parallel g by 4 : group {\n      mc = mma.fill.f32 0.0f;\n      x = mma.load lhs.chunkat(bm, _);\n"
           "      y = mma.load rhs.chunkat(bn, _);\n      mma.row.row mc, x, y;\n      mma.store mc, a.chunkat(g, _);\n    }\n"),
       8, "chunkat", "storing an f32 accumulator to s32 tiles is not supported yet by libcroqjit",
       "accumulate s8 or u8 tiles in s32 (mma.fill.s32) at warp level"},
      {"WhereClause", "unsupported-loop", fn("  with i in [4], j in [4] where i <-> j { }\n"), 2, "i <->",
       "`where` clauses are not supported yet by libcroqjit"},
      {"IndexTupleAsAValue", "unsupported-index-tuple",
       blk("    foreach idx = {i, j} in [4, 4]\n      t = dma.copy a.subspan(idx) => shared;\n"), 4, "idx)",
       "`idx` names a tuple of indices, which is not supported yet by libcroqjit as a value",
       "use its indices (`i`, `j`) directly"},
      {"NameForAnEvent", "unsupported-binding", blk("    shared event e;\n    g = e;\n"), 4, "g =",
       "`g = e` names an event, which is not supported yet by libcroqjit", "use the expression where it is needed"},
      {"TmaTranspose", "unsupported-copy", blk("    t = tma.transp<1, 0> " + tile + " => shared;\n"), 3, "transp",
       "tma.transp is not supported yet by libcroqjit"},
      {"TmaMulticastWithoutACluster", "multicast-scope", blk("    t = tma.copy.multicast " + tile + " => shared;\n"), 3,
       "multicast", "`.multicast` loads a tile into every block of a cluster, but this kernel has no `: cluster` level",
       "put the block level in a cluster: `parallel c by 2 : cluster, {bm, bn} by [BM, BN] : block`"},
      {"TmaMulticastStore", "multicast-scope",
       fn("  parallel c by 2 : cluster, {bm, bn} by [2, 4] : block {\n    t = tma.copy " + tile +
          " => shared;\n    tma.copy.multicast t.data => lhs.subspan(64, 64).at(bm, 1);\n  }\n"),
       4, "multicast", "`.multicast` loads a global tile into every block of a cluster; this tma.copy stores a shared tile"},
      {"DmaMulticast", "unsupported-modifier", blk("    t = dma.copy.multicast " + tile + " => shared;\n"), 3,
       "multicast", "`.multicast` on dma.copy is not supported yet by libcroqjit"},
      {"MmaLoadTranspose", "unsupported-modifier", wg("      ma = mma.load.swiz<128>.trans ta.data;\n"), 7, "trans",
       "`.trans` on mma.load is not supported yet by libcroqjit"},
      // `after` a dma copy's future runs; after a TMA copy's (an mbarrier phase) it stays a limitation.
      {"CopyAfterATmaFuture", "unsupported-after",
       blk("    f = tma.copy " + tile + " => shared;\n    g = dma.copy.async " + tile + " => shared after f;\n"
           "    wait g;\n"),
       4, "g =", "`after f` is not supported yet by libcroqjit: `after` takes the future of a dma copy",
       "wait for the future first: `wait f;`, then copy", "sm_90a"},
      // mma.row.col is WGMMA with imm-trans-b (and mma.sync at warp level);
      // col.* is WGMMA with imm-trans-a, a warpgroup's only.
      {"MmaColRowOnWarps", "unsupported-mma-layout",
       blk("    mc = mma.fill.f32 0.0f;\n    parallel g by 4 : group {\n      b = mma.load lhs.chunkat(bm, _);\n"
           "      mma.col.row mc, b, b;\n    }\n"),
       6, "mma",
       "mma.col.row (lhs [K, M], M contiguous) is not supported yet here: libcroqjit lowers it to WGMMA (sm_90a) with "
       "the lhs a shared tile, in a group-4 level"},
  };
}

}  // namespace croq::sema::test
