// Rule cases for messages that named the wrong thing: a strided extent in a
// view reported as a string literal, and explicit buffer mapping read as
// comparisons (`src.map < local > (0, n)`) and refused as a syntax error.
#include "sema_test_util.hpp"

namespace croq::sema::test {

std::vector<RuleCase> message_cases() {
  return {
      {"StridedSubspanExtent", "unsupported-expression", blk("    t = a.subspan(17, 3 : 7, 2);\n"), 3, "3 : 7",
       "ranges and strided extents (`3 : 7`) are not supported yet by libcroqjit",
       "a strided view writes its extents, one `:`, then its strides: `x.view(16, 8 : 64, 2)`"},
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
