"""croqjit.report: a kernel's roofline from a timed run on its device."""

from __future__ import annotations

from typing import Any, Optional

from . import _croqjit
from .roofline import RooflinePoint, draw_roofline, roofline_point


def _device_of(args: tuple) -> int:
    """The CUDA device of the first device array among `args` (torch's
    .device.index, CuPy's .device.id), else 0."""
    for a in args:
        device = getattr(a, "device", None)
        if device is None:
            continue
        index = getattr(device, "index", None)  # torch
        if index is None:
            index = getattr(device, "id", None)  # CuPy
        if isinstance(index, int):
            return index
    return 0


def report(kernel: "_croqjit.Kernel", *args: Any, path: str, flops: Optional[float] = None,
           bytes: Optional[float] = None, warmup: int = 3, repetitions: int = 20, stream: Any = None,
           title: Optional[str] = None) -> RooflinePoint:
    """Times `kernel` called with `args` (device tensors: torch CUDA tensors,
    CuPy arrays) and writes its roofline to `path` (PNG): the achieved
    FLOP/s and bytes/s of a call (the median of `repetitions` timed calls
    after `warmup`, kernel.time) against the device's memory and compute
    peaks (croqjit.device_peaks). `flops` is what one call computes (the
    kernel cannot know it: 2*M*N*K for a GEMM); without it the plot shows the
    achieved bandwidth only. `bytes` defaults to the arguments' and the
    result's bytes (each moved once). Returns the point (label, seconds,
    bytes, flops, bytes_per_second, flops_per_second, intensity). Needs
    matplotlib (ImportError saying so) and a CUDA device (CudaError)."""
    if not isinstance(kernel, _croqjit.Kernel):
        raise _croqjit.ArgumentError(f"report takes a croqjit.Kernel, got {type(kernel).__name__}")
    if not isinstance(path, str) or not path:
        raise _croqjit.ArgumentError("path must be a non-empty str (the PNG to write)")
    # Fail before the GPU work when the plot cannot be drawn.
    from .roofline import _figure

    _figure()
    timing = kernel.time(*args, warmup=warmup, repetitions=repetitions, stream=stream)
    peaks = _croqjit.device_peaks(_device_of(args))
    signature = kernel.info(*args, stream=stream).specialization.signature
    point = roofline_point(f"{kernel.name}({signature})", timing.median_ms * 1e-3,
                           timing.bytes if bytes is None else bytes, flops)
    draw_roofline(path, peaks, [point], title)
    return point
