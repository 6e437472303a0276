"""interpret=True: kernels run on the CPU through the tile IR interpreter,
with NumPy arrays, no GPU or driver needed."""

import pytest

import croqjit
from kernels import ADD

SHIFTED = """__co__ s32 [M, N] shifted(s32 [M, N] lhs, int off) {
  s32 [lhs.span] output;
  parallel {i, j} by [M, N]
    output.at(i, j) = lhs.at(i, j + off);
  return output;
}
"""

TILED_MATMUL = """__co__ s32 [32, 64] matmul(s32 [32, 64] lhs, s32 [64, 64] rhs) {
  s32 [lhs.span(0), rhs.span(1)] output;
  parallel {px, py} by [2, 4] : block {
    foreach {tile_k} in [4] {
      lhs_load = dma.copy lhs.chunkat(px, tile_k) => shared;
      rhs_load = dma.copy rhs.chunkat(tile_k, py) => shared;
      parallel {qx, qy} by [16, 16] : thread {
        foreach k in [64 / #tile_k]
          output.at(px#qx, py#qy) += lhs_load.data.at(qx, k) * rhs_load.data.at(k, qy);
      }
    }
  }
  return output;
}
"""


def test_add_runs_on_the_cpu(np):
    k = croqjit.compile(ADD, interpret=True, arch="sm_90a")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 7)).astype(np.float32)
    b = rng.standard_normal((5, 7)).astype(np.float32)
    assert np.array_equal(np.asarray(k(a, b)), a + b)


def test_tiled_matmul_through_shared_memory(np):
    k = croqjit.compile(TILED_MATMUL, interpret=True, arch="sm_90a")
    rng = np.random.default_rng(4)
    a = rng.integers(-9, 9, (32, 64)).astype(np.int32)
    b = rng.integers(-9, 9, (64, 64)).astype(np.int32)
    assert np.array_equal(np.asarray(k(a, b)), a @ b)


def test_an_out_of_bounds_read_is_an_interpret_error_with_its_line(np):
    k = croqjit.compile(SHIFTED, interpret=True, arch="sm_90a")
    a = np.arange(32, dtype=np.int32).reshape(4, 8)
    with pytest.raises(croqjit.InterpretError, match=r"out-of-bounds read of `lhs` at \[0, -1\]") as caught:
        k(a, -1)
    assert caught.value.line == 4


COUNTED = """__co__ auto counted(f32 [N] a, int rounds) {
  mutable int total = 0;
  foreach i in [rounds] {
    parallel p by N : block
      a.at(p) = a.at(p) + i;
    total += i * N;
  }
  return total + 1;
}
"""

HALVED = """__co__ auto halved(float s) {
  return s * 0.5f;
}
"""


def test_a_returned_number_is_a_python_number(np):
    k = croqjit.compile(COUNTED, interpret=True, arch="sm_90a")
    assert k.returns_tensor
    a = np.zeros(6, dtype=np.float32)
    r = k(a, 3)
    assert type(r) is int and r == 6 * 3 + 1
    assert np.array_equal(a, np.full(6, 3.0, dtype=np.float32))
    h = croqjit.compile(HALVED, interpret=True, arch="sm_90a")(3.0)
    assert type(h) is float and h == 1.5


def test_interpret_must_be_a_bool():
    with pytest.raises(croqjit.ArgumentError, match="interpret must be a bool, got int"):
        croqjit.compile(ADD, interpret=1)
