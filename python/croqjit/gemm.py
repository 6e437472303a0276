"""croqjit.gemm: one GEMM for every shape.

    import croqjit.gemm, torch
    c = croqjit.gemm.matmul(a, b)          # c = a @ b.T: a [M, K], b [N, K], f16 or bf16
    croqjit.gemm.matmul(a, b, out=c)       # into an existing [M, N] tensor

The kernel is samples/gemm_any_source.hpp's persistent warp-specialized
GEMM (TMA, WGMMA, sm_90a), its sizes chosen per shape and device by that
file's model: tile shape, pipeline stages, persistent blocks, and for small
M a split of the K loop (a program of two kernels: f32 partial products,
then their sum rounded to the output type). ``Gemm(...).tune(a, b, out)``
times the model's best candidates on the device (croqjit.tune) and keeps
the fastest for that shape. N and K must be multiples of 8 (TMA's 16-byte
row strides); M is any size. See docs/how-to/gemm-shapes.md.
"""

from __future__ import annotations

import threading
from typing import Any, Dict, Optional, Tuple

from . import _croqjit
from ._tune import tune as _tune

Config = Dict[str, int]


def _element(array: Any) -> str:
    """"f16" or "bf16" for a torch, CuPy or NumPy array (ml_dtypes' bfloat16)."""
    name = str(getattr(array, "dtype", "")).replace("torch.", "")
    element = {"float16": "f16", "bfloat16": "bf16"}.get(name)
    if element is None:
        raise _croqjit.ArgumentError(f"croqjit.gemm: f16 or bf16 matrices, got {name or type(array).__name__}")
    return element


def _shape(array: Any) -> Tuple[int, ...]:
    return tuple(int(d) for d in getattr(array, "shape", ()))


class Gemm:
    """C = A B^T for every shape, one compiled kernel per configuration.

    `device`: the device whose SMs, DRAM bandwidth and tensor-core peak the
    model weighs (default: the current one, or an H100's figures without a
    GPU). Other keywords go to croqjit.compile (``interpret=True`` runs on
    the CPU)."""

    def __init__(self, device: Optional[int] = None, **compile_options: Any):
        self._figures = (0, 0.0, 0.0)
        if _croqjit.cuda_available() and not compile_options.get("interpret"):
            peaks = _croqjit.device_peaks(0 if device is None else device)
            flops = next((f for name, f in peaks.compute if name == "f16/bf16 tensor cores"), 0.0)
            self._figures = (peaks.sm_count, peaks.memory_bytes_per_second, flops)
        self._options = compile_options
        self._kernels: Dict[Tuple[str, Tuple[Tuple[str, int], ...]], Any] = {}
        self._tuned: Dict[Tuple[int, int, int], Config] = {}
        self._lock = threading.Lock()

    def candidates(self, m: int, n: int, k: int, top: int = 4) -> list:
        """The model's best `top` configurations (#define dicts), best first."""
        return _croqjit._gemm_any_configs(m, n, k, *self._figures, top=top)

    def config(self, m: int, n: int, k: int) -> Config:
        """The configuration a call with these sizes runs."""
        with self._lock:
            tuned = self._tuned.get((m, n, k))
        return dict(tuned) if tuned else self.candidates(m, n, k, top=1)[0]

    def kernel(self, element: str, config: Config):
        """The compiled kernel of one configuration for "f16" or "bf16"."""
        key = (element, tuple(sorted(config.items())))
        with self._lock:
            kernel = self._kernels.get(key)
        if kernel is None:
            kernel = _croqjit.compile(_croqjit._gemm_any_source(element), defines=dict(config),
                                      source_name="gemm_any.co", **self._options)
            with self._lock:
                kernel = self._kernels.setdefault(key, kernel)
        return kernel

    def _sizes(self, a: Any, b: Any) -> Tuple[int, int, int]:
        sa, sb = _shape(a), _shape(b)
        if len(sa) != 2 or len(sb) != 2:
            raise _croqjit.ArgumentError(f"croqjit.gemm: a and b must be matrices, got shapes {sa} and {sb}")
        return sa[0], sb[0], sa[1]

    def __call__(self, a: Any, b: Any, out: Any = None, **call_options: Any) -> Any:
        """out = a @ b.T (a new tensor like `a` when `out` is None)."""
        m, n, k = self._sizes(a, b)
        element = _element(a)
        if out is None:
            out = _empty_like(a, (m, n))
        self.kernel(element, self.config(m, n, k))(a, b, out, **call_options)
        return out

    def tune(self, a: Any, b: Any, out: Any, count: int = 4, **tune_options: Any):
        """croqjit.tune over the model's best `count` configurations for
        these arguments; the fastest is used for this shape from then on.
        Returns the TuneResult."""
        m, n, k = self._sizes(a, b)
        configs = self.candidates(m, n, k, top=count)
        result = _tune(_croqjit._gemm_any_source(_element(a)), configs, a, b, out, **tune_options)
        with self._lock:
            self._tuned[(m, n, k)] = {name: int(v) for name, v in result.config.items()}
        return result


def _empty_like(array: Any, shape: Tuple[int, int]) -> Any:
    """An uninitialized array of `array`'s type, dtype and device."""
    if hasattr(array, "new_empty"):  # torch
        return array.new_empty(shape)
    module = type(array).__module__.split(".")[0]
    if module in ("numpy", "cupy"):
        import importlib

        return importlib.import_module(module).empty(shape, dtype=array.dtype)
    raise _croqjit.ArgumentError(f"croqjit.gemm: pass `out` for arrays of type {type(array).__name__}")


_default: Optional[Gemm] = None
_default_lock = threading.Lock()


def matmul(a: Any, b: Any, out: Any = None, **call_options: Any) -> Any:
    """out = a @ b.T with the configuration chosen for the shape (one shared
    Gemm for the current device)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Gemm()
    return _default(a, b, out, **call_options)
