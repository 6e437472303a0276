"""Croqtile sources shared by the Python tests."""

import pathlib
import re


def sample_source(name):
    """The Croqtile source of samples/NAME.cpp (its R"croq(...)croq" string)."""
    text = (pathlib.Path(__file__).resolve().parents[2] / "samples" / f"{name}.cpp").read_text()
    return re.search(r'R"croq\((.*?)\)croq"', text, re.S).group(1)


ADD = """__co__ f32 [M, N] add(f32 [M, N] lhs, f32 [M, N] rhs) {
  f32 [lhs.span] output;
  parallel {i, j} by [M, N]
    output.at(i, j) = lhs.at(i, j) + rhs.at(i, j);
  return output;
}
"""

# `T` is replaced by an element type.
ADD_TYPED = """__co__ T [N] add_typed(T [N] lhs, T [N] rhs) {
  T [lhs.span] output;
  parallel i by N
    output.at(i) = lhs.at(i) + rhs.at(i);
  return output;
}
"""

# Writes its second argument in place; three tensors, no result.
ADD_INTO = """__co__ void add_into(f32 [N] lhs, f32 [N] rhs, f32 [N] out) {
  parallel i by N
    out.at(i) = lhs.at(i) + rhs.at(i);
}
"""

SCALE = """__co__ void scale(f32 [N] x, f32 [N] y, float factor) {
  parallel i by N
    y.at(i) = x.at(i) * factor;
}
"""

# 16 x 16 tiles through shared memory; M and N need not be multiples of 16.
TILED_ADD = """__co__ s32 [M, N] tiled_add(s32 [M, N] lhs, s32 [M, N] rhs) {
  s32 [lhs.span] output;
  parallel {tr, tc} by [cdiv(M, 16), cdiv(N, 16)] : block {
    l = dma.copy lhs.subspan(16, 16).at(tr, tc) => shared;
    r = dma.copy rhs.subspan(16, 16).at(tr, tc) => shared;
    parallel {i, j} by [16, 16] : thread
      output.at(tr # i, tc # j) = l.data.at(i, j) + r.data.at(i, j);
  }
  return output;
}
"""

# The tutorial's DMA matmul, read from its sample program.
MATMUL = sample_source("matmul_dma")

TWO_FUNCTIONS = """#define WIDTH 64
__co__ f32 [WIDTH] first(f32 [WIDTH] x) {
  f32 [x.span] output;
  parallel i by WIDTH
    output.at(i) = x.at(i);
  return output;
}
__co__ f32 [2, WIDTH] second(f32 [WIDTH] x) {
  f32 [2, WIDTH] output;
  parallel i by WIDTH {
    output.at(0, i) = x.at(i);
    output.at(1, i) = x.at(i);
  }
  return output;
}
"""

SYNTAX_ERROR = "__co__ void f(s32 [8] x) {\n  f = dma.copy x shared;\n}\n"

# Valid syntax; specializing it for N <= 70 fails (index past the extent).
OUT_OF_RANGE = "__co__ void f(s32 [M, N] a) {\n  parallel i by 64\n    a.at(i, 70) = 1;\n}\n"
