// Names bound to tuples and shapes (`tile = {4, 16}`, `whole = x.span`) pass
// sema: the kernel the interpret and GPU tests run
// (tests/common/tuple_binding_kernel.hpp) and each use on its own; a tuple
// bound again in an inner scope is recorded for lowering.
#include "common/index_pick_kernel.hpp"
#include "common/tuple_binding_kernel.hpp"
#include "sema_test_util.hpp"

namespace croq::sema::test {
namespace {

using sm90a::expect_clean;

TEST(TupleBinding, KernelOfTheInterpretAndGpuTestsPasses) { expect_clean(croq::test::kTupleBindingKernel); }

TEST(TupleBinding, EachUsePasses) {
  // As the shape of a declaration, the extents of a subspan, a parallel count.
  expect_clean(blk("    tile = {8, 16};\n    shared s32 [tile] t;\n"
                   "    f = dma.copy a.subspan(tile).at(bm, bn) => shared;\n"));
  expect_clean(fn("  tile = {16, 32};\n  parallel {p, q} by a.span / tile : block\n"
                  "    f = dma.copy a.chunkat(p, q) => shared;\n"));
  // A shape bound to a name, and arithmetic on it.
  expect_clean(fn("  whole = a.span;\n  half = whole / {2, 1};\n  parallel p by half(0) : block\n"
                  "    f = dma.copy a.subspan(half).at(0, 0) => local;\n"));
  // cdiv of a whole shape, dim by dim: [22, 13].
  expect_clean(fn("  global f32 [cdiv(a.span, {3, 5})] t;\n  ituple c = cdiv(a.span, 8);\n"));
  // Concatenation, element access, printing.
  expect_clean(fn("  t = {4, 5};\n  u = {t, n};\n  println!(\"u: \", u);\n"
                  "  parallel p by 1 : block\n    a.at(u(0), u(1)) = u(2);\n"));
  // Picks from a tuple: `(i)` is element i, anything else a value of its own.
  expect_clean(fn("  t = {4, n, 6};\n  u = t {(2), (1), 3};\n  parallel p by 1 : block\n    a.at(u(0), u(2)) = u(1);\n"));
  // The whole tuple of an index in `.at`.
  expect_clean(blk("    at = {bm, bn};\n    a.at(at) = 1;\n"));
}

// A pick of a pick: `index(1)` is the index `y`, `index(1)(-1)` its last value.
TEST(TupleBinding, PickOfAPickPasses) {
  expect_clean(croq::test::kIndexPickKernel);
}

// `t = {...};` inside a level over an outer `t = {...};` binds a new `t` there.
TEST(TupleBinding, RebindingInAnInnerScopeIsRecorded) {
  CheckedSource c = check_source(fn("  t = {1, 2};\n  parallel p by 4 {\n    t = {3, 4};\n    a.at(p, t(1)) = t(0);\n  }\n"));
  ASSERT_EQ(c.checked.functions.size(), 1u);
  EXPECT_EQ(c.checked.functions[0]->rebindings.size(), 1u);
  EXPECT_TRUE(c.checked.limitations.empty());
}

// cdiv of a shape by a tuple holding 0 divides by zero.
TEST(TupleBinding, CdivOfAShapeByZeroIsAnError) {
  auto e = sema_error(fn("  global f32 [cdiv(a.span, {0, 2})] t;\n"));
  ASSERT_TRUE(e.has_value());
  ASSERT_EQ(e->diagnostics().size(), 1u) << e->what();
  EXPECT_EQ(e->diagnostics()[0].rule, "constant-arithmetic");
  EXPECT_EQ(e->diagnostics()[0].message, "division by zero");
  EXPECT_EQ(e->diagnostics()[0].line, 2);
  EXPECT_EQ(e->diagnostics()[0].column, 15);  // `cdiv`
}

// A tuple's values are fixed: binding the same name again in its scope is an error.
TEST(TupleBinding, AssigningItAgainInItsScopeIsAnError) {
  auto e = sema_error(fn("  t = {1, 2};\n  t = {3, 4};\n"));
  ASSERT_TRUE(e.has_value());
  ASSERT_EQ(e->diagnostics().size(), 1u) << e->what();
  EXPECT_EQ(e->diagnostics()[0].rule, "assign-target");
  EXPECT_EQ(e->diagnostics()[0].line, 3);
}

}  // namespace
}  // namespace croq::sema::test

namespace croq::sema::test {
namespace {

// A tuple of indices is no shape (Croqtile rejects it too).
TEST(TupleBinding, ATupleOfIndicesAsAnExtentIsAnError) {
  auto e = sema_error(blk("    foreach idx = {i, j} in [2, 2]\n      shared f32 [idx] t;\n"));
  ASSERT_TRUE(e.has_value());
  ASSERT_EQ(e->diagnostics().size(), 1u) << e->what();
  EXPECT_EQ(e->diagnostics()[0].rule, "shape-expected");
  EXPECT_EQ(e->diagnostics()[0].line, 4);
  EXPECT_EQ(e->diagnostics()[0].column, 19);
  EXPECT_EQ(e->diagnostics()[0].message, "expected a shape such as `[M, N]` or `x.span`, got `idx`");
}

// `#idx` of a tuple of indices is the extent error alone, not also a limitation.
TEST(TupleBinding, ExtentOfATupleOfIndicesIsOneError) {
  auto e = sema_error(blk("    foreach idx = {i, j} in [2, 2]\n      shared f32 [64 / #idx] t;\n"));
  ASSERT_TRUE(e.has_value());
  ASSERT_EQ(e->diagnostics().size(), 1u) << e->what();
  EXPECT_EQ(e->diagnostics()[0].rule, "extent-needs-index");
}

}  // namespace
}  // namespace croq::sema::test
