// Rule cases for messages that named the wrong thing: a strided extent in a
// view reported as a string literal, and explicit buffer mapping read as
// comparisons (`src.map < local > (0, n)`) and refused as a syntax error.
#include "sema_test_util.hpp"

namespace croq::sema::test {

std::vector<RuleCase> message_cases() {
  return {
      {"StridedViewExtent", "unsupported-expression", blk("    t = a.view(17, 3 : 7, 2);\n"), 3, "3 : 7",
       "ranges and strided extents (`3 : 7`) are not supported yet by libcroqjit",
       "a strided view (`x.view(extent : stride)`) is not supported yet: take a dense view, or copy the window and "
       "index it with the stride"},
      {"BufferMapOnCuda", "buffer-map-target", blk("    m = a.map<local>(0, 32);\n"), 3, "map<local>",
       "explicit buffer mapping (`.map<local>`) is not supported by CUDA targets: a GPU has no hardware that maps "
       "global memory into a thread's local memory",
       "copy the window instead, e.g. `dma.copy a.view(size).from(offset) => local;`"},
      {"BufferRemapOnCuda", "buffer-map-target", blk("    m = a.remap<local>(32, 64);\n"), 3, "remap<local>",
       "explicit buffer mapping (`.remap<local>`) is not supported by CUDA targets: a GPU has no hardware that maps "
       "global memory into a thread's local memory",
       "copy the window instead, e.g. `dma.copy a.view(size).from(offset) => local;`"},
  };
}

}  // namespace croq::sema::test
