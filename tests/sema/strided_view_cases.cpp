// Rule cases: strided views, `x.view(extents : strides).from(offsets)`.
#include "sema_test_util.hpp"

namespace croq::sema::test {

std::vector<RuleCase> strided_view_cases() {
  return {
      {"StridedViewWithFewerStrides", "view-strides", blk("    t = dma.copy a.view(16, 4 : 8).from(0, 0) => shared;\n"), 3,
       "view(16, 4 : 8)", "this strided `.view` has 2 extents and 1 stride; it takes one stride per extent"},
      {"StridedViewOfTwoColons", "view-strides", blk("    t = dma.copy a.view(16, 4 : 8, 2 : 1).from(0, 0) => shared;\n"),
       3, "2 : 1", "`.view` takes its extents, one `:`, then one stride per extent (`x.view(16, 8 : 64, 2)`), got `2 : 1`"},
      {"StridedViewOfZeroStride", "view-strides", blk("    t = dma.copy a.view(16, 4 : 0, 1).from(0, 0) => shared;\n"), 3,
       "0, 1)", "stride 0 of dimension 0 of a strided view is not positive",
       "a stride counts the elements of the tensor between neighbours of that dimension"},
      {"StridedViewOfAWindow", "strided-view-use",
       blk("    t = dma.copy a.chunkat(bm, bn).view(4, 4 : 8, 2).from(0, 0) => shared;\n"), 3, "view(4",
       "a strided `.view` of a window (`a.chunkat(bm, bn)`) is not supported yet by libcroqjit",
       "take the strided view of the whole tensor; its strides count that tensor's elements"},
      {"StridedViewAsTmaBox", "strided-view-use",
       blk("    t = tma.copy lhs.view(64, 64 : K, 1).from(0, 0) => shared;\n"), 3, "from(0, 0)",
       "a strided view as a TMA box is not supported yet by libcroqjit", "copy it with dma.copy"},
  };
}

}  // namespace croq::sema::test
