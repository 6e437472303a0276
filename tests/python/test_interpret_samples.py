"""The Python samples' kernels in interpret mode (interpret=True: on the CPU,
NumPy arrays, no GPU), on small shapes with fresh random data, checked as
the samples check them on the GPU:

- samples/python/row_norms.py: softmax, RMSNorm and LayerNorm (the text of
  samples/row_norm_source.hpp through the build's kernel_sources tool), in
  place, every element within two units in the last place of f16
  (relative) plus 1e-6 for softmax or 1e-3, against the float64 reference;
- samples/python/tp_mlp.py: the tensor-parallel MLP block
  Y = sum over ranks of gelu(X W1_r^T) W2_r^T with its persistent GEMM and
  its gelu kernel, the two ranks played one after the other on the host,
  against the block computed at once (relative Frobenius error <= 1e-2,
  every element within 0.05 rms + 1e-2 |ref|).
"""
import math
import os
import sys

import pytest

import croqjit

SAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "samples",
                       "python")
sys.path.insert(0, SAMPLES)
import tp_mlp  # noqa: E402  (puts bench/harness on the path: kernel_text)
import kernel_text  # noqa: E402


def kernel_source(*args):
    try:
        return kernel_text.tool_source(*args)
    except FileNotFoundError as exc:
        pytest.skip(str(exc))


def interpreted(source, **options):
    return croqjit.compile(source, interpret=True, arch="sm_90a", **options)


def reference_row_norm(np, kind, x, w, b):
    if kind == "softmax":
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    if kind == "rmsnorm":
        return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-6) * w
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * w + b


@pytest.mark.parametrize("kind,tokens,hidden", [("softmax", 3, 512), ("rmsnorm", 2, 1024), ("layernorm", 2, 1024)])
def test_row_norms_sample_kernels(np, kind, tokens, hidden):
    kernel = interpreted(kernel_source("rows", kind, "f16", str(hidden)), source_name=f"{kind}.co")
    rng = np.random.default_rng()
    x = (rng.standard_normal((tokens, hidden)) * 2).astype(np.float16)
    w = (rng.random(hidden) + 0.5).astype(np.float16)
    b = (rng.standard_normal(hidden) * 0.5).astype(np.float16)
    y = np.full_like(x, np.nan)
    if kind == "softmax":
        kernel(x, y)
    elif kind == "rmsnorm":
        kernel(x, w, y)
    else:
        kernel(x, w, b, y)
    want = reference_row_norm(np, kind, x.astype(np.float64), w.astype(np.float64), b.astype(np.float64))
    floor = 1e-6 if kind == "softmax" else 1e-3
    ratio = np.abs(y.astype(np.float64) - want) / (2 * 2.0 ** -10 * np.abs(want) + floor)
    assert np.all(ratio <= 1), f"worst element at {np.nanmax(ratio):.2f} of its tolerance"


def gelu_tanh(np, v):
    return 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))


def test_tp_mlp_sample_block_over_two_ranks(np):
    gemm = interpreted(kernel_source("gemm", "f16"), source_name="gemm f16.co")
    gelu = interpreted(tp_mlp.GELU_SOURCE, source_name="gelu.co")
    t, h, f, ranks = 64, 64, 256, 2
    shard = f // ranks
    rng = np.random.default_rng()
    x = rng.standard_normal((t, h)).astype(np.float16)
    w1 = (rng.standard_normal((f, h)) / h ** 0.5).astype(np.float16)
    w2 = (rng.standard_normal((h, f)) / f ** 0.5).astype(np.float16)
    y = np.zeros((t, h), dtype=np.float32)  # the all-reduce's sum
    for rank in range(ranks):
        w1_r = np.ascontiguousarray(w1[rank * shard:(rank + 1) * shard])
        w2_r = np.ascontiguousarray(w2[:, rank * shard:(rank + 1) * shard])
        hidden = np.full((t, shard), np.nan, dtype=np.float16)
        part = np.full((t, h), np.nan, dtype=np.float16)
        gemm(x, w1_r, hidden)             # hidden = X W1_r^T
        gelu(hidden.reshape(-1))          # in place
        gemm(hidden, w2_r, part)          # partial Y = gelu(.) W2_r^T
        y += part.astype(np.float32)
    x64, w1_64, w2_64 = x.astype(np.float64), w1.astype(np.float64), w2.astype(np.float64)
    ref = gelu_tanh(np, x64 @ w1_64.T) @ w2_64.T
    diff = y.astype(np.float64) - ref
    rel = np.linalg.norm(diff) / np.linalg.norm(ref)
    rms = np.linalg.norm(ref) / math.sqrt(ref.size)
    ratio = np.max(np.abs(diff) / (0.05 * rms + 1e-2 * np.abs(ref)))
    assert rel <= 1e-2 and ratio <= 1, f"relative Frobenius error {rel:.2e}, worst element {ratio:.2f} of its tolerance"
