"""croqjit: compile Croqtile kernels at run time and call them on torch
tensors, CuPy arrays, NumPy arrays and any DLPack producer.

    import croqjit, torch
    add = croqjit.compile(source)          # parse and check; CompileError if not valid
    out = add(x, y)                        # specialize + compile once per shape, then launch

Device arrays are used in place on the caller's stream (``stream=``, else
torch's current stream for torch arguments, CuPy's for CuPy arguments, else
the default stream); NumPy arrays are copied in and out synchronously. The
result has the arguments' type. ``croqjit.torch.custom_op`` registers a
kernel as a torch custom op. ``kernel.info(*args)`` tells what a
specialization's kernels use (registers, spills, shared memory, occupancy);
``croqjit.tune`` picks the fastest of several #define configurations;
``croqjit.report(kernel, *args, path=...)`` draws a kernel's roofline
(matplotlib, optional; ``croqjit.roofline`` draws from given figures). The
cache and logging follow the C++ library's environment variables
(CROQ_CACHE_DIR, CROQ_CACHE, CROQ_LOG_LEVEL, ...).
"""

from ._croqjit import (
    ArgumentError,
    CacheError,
    CallInfo,
    CompileError,
    CudaError,
    Diagnostic,
    Error,
    InterpretError,
    Kernel,
    KernelImageInfo,
    KernelInfo,
    KernelStats,
    ParamInfo,
    SpecializationStats,
    TensorSpec,
    TuneError,
    TuneResult,
    TuneTrial,
    __version__,
    can_access_peer,
    compile,
    cross_product,
    cuda_available,
    cuda_unavailable_reason,
    device_count,
    enable_peer_access,
    dtypes,
    precompile,
)
from ._croqjit import DevicePeaks, KernelTiming, _framework_dtype, device_peaks
from ._report import report
from ._tune import tune


def torch_dtype(dtype):
    """The torch dtype of a croq dtype ("f8_ue8m0" -> torch.float8_e8m0fnu;
    tf32 -> torch.float32, its storage); ArgumentError naming the type when
    torch has none (f8_ue4m3, the fp6 and fp4 types)."""
    return _framework_dtype(dtype, "torch")


def numpy_dtype(dtype):
    """The NumPy dtype of a croq dtype ("f32" -> float32; ml_dtypes'
    bfloat16, float8_*, float6_*, float4_e2m1fn, int4, uint2, ... for the
    types NumPy lacks); ArgumentError naming the type when there is none
    (f8_ue4m3, u6, s6)."""
    return _framework_dtype(dtype, "numpy")


from ._nvrtc import load_packaged_nvrtc as _load_packaged_nvrtc

# NVRTC is loaded at the first compile; the nvidia-cuda-nvrtc package's, if
# installed, is made the one found (croqjit/_nvrtc.py).
_load_packaged_nvrtc()

__all__ = [
    "ArgumentError",
    "CacheError",
    "CallInfo",
    "CompileError",
    "CudaError",
    "DevicePeaks",
    "Diagnostic",
    "Error",
    "InterpretError",
    "Kernel",
    "KernelImageInfo",
    "KernelInfo",
    "KernelStats",
    "KernelTiming",
    "ParamInfo",
    "SpecializationStats",
    "TensorSpec",
    "TuneError",
    "TuneResult",
    "TuneTrial",
    "__version__",
    "can_access_peer",
    "compile",
    "cross_product",
    "cuda_available",
    "cuda_unavailable_reason",
    "device_count",
    "enable_peer_access",
    "device_peaks",
    "dtypes",
    "numpy_dtype",
    "precompile",
    "report",
    "torch_dtype",
    "tune",
]


def __getattr__(name: str):
    # croqjit.torch imports torch: only when asked for.
    if name == "torch":
        import importlib

        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module 'croqjit' has no attribute {name!r}")
