"""croqjit.gemm without a GPU: the configuration model through the package,
and the GEMM for every shape run by the interpreter (interpret=True) at
small shapes, one kernel and split K, against NumPy in float64."""

import pytest

import croqjit
import croqjit.gemm


def reference(np, a, b):
    return a.astype(np.float64) @ b.astype(np.float64).T


def close(np, got, want):
    err = np.linalg.norm(got.astype(np.float64) - want) / np.linalg.norm(want)
    return err <= 1e-2 and not np.isnan(got.astype(np.float64)).any()


def test_small_m_fills_the_device_and_large_m_takes_the_largest_tile():
    gemm = croqjit.gemm.Gemm(interpret=True)  # an H100's figures
    small = gemm.config(16, 4096, 4096)
    assert small["CONSUMERS"] == 1 and 4096 // small["BN"] * small["SPLITS"] >= 120
    assert gemm.config(16, 1024, 8192)["SPLITS"] > 1
    assert gemm.config(4096, 4096, 4096) == {"CONSUMERS": 2, "BN": 256, "STAGES": 3, "SPLITS": 1, "BLOCKS": 132,
                                              "CLUSTER": 1}
    ranked = gemm.candidates(16, 4096, 4096, top=3)
    assert len(ranked) == 3 and ranked[0] == small


@pytest.mark.parametrize("m, n, k", [(1, 128, 2048), (70, 136, 136), (3, 72, 520)])
def test_the_chosen_configuration_matches_numpy_in_the_interpreter(np, m, n, k):
    gemm = croqjit.gemm.Gemm(interpret=True, arch="sm_90a")
    rng = np.random.default_rng(m)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (n, k)).astype(np.float16)
    out = gemm(a, b)
    assert out.shape == (m, n) and out.dtype == np.float16
    assert close(np, out, reference(np, a, b)), gemm.config(m, n, k)


def test_refusals_name_the_problem(np):
    gemm = croqjit.gemm.Gemm(interpret=True)
    f32 = np.zeros((16, 64), dtype=np.float32)
    with pytest.raises(croqjit.ArgumentError, match="croqjit.gemm: f16 or bf16 matrices, got float32"):
        gemm(f32, f32)
    vec = np.zeros(64, dtype=np.float16)
    with pytest.raises(croqjit.ArgumentError, match=r"croqjit.gemm: a and b must be matrices, got shapes \(64,\)"):
        gemm(vec, vec)
    with pytest.raises(croqjit.ArgumentError, match="croqjit.gemm: M, N, K and top must be positive, got 0, 8, 8 and 1"):
        gemm.candidates(0, 8, 8, top=1)
