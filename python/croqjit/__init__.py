"""croqjit: compile Croqtile kernels at run time and call them on torch
tensors, CuPy arrays, NumPy arrays and any DLPack producer.

    import croqjit, torch
    add = croqjit.compile(source)          # parse and check; CompileError if not valid
    out = add(x, y)                        # specialize + compile once per shape, then launch

Device arrays are used in place on the caller's stream (``stream=``, else
torch's current stream for torch arguments, CuPy's for CuPy arguments, else
the default stream); NumPy arrays are copied in and out synchronously. The
result has the arguments' type. ``croqjit.torch.custom_op`` registers a
kernel as a torch custom op. The cache and logging follow the C++ library's
environment variables (CROQ_CACHE_DIR, CROQ_CACHE, CROQ_LOG_LEVEL, ...).
"""

from ._croqjit import (
    ArgumentError,
    CacheError,
    CallInfo,
    CompileError,
    CudaError,
    Diagnostic,
    Error,
    Kernel,
    KernelStats,
    ParamInfo,
    SpecializationStats,
    TensorSpec,
    __version__,
    can_access_peer,
    compile,
    cuda_available,
    cuda_unavailable_reason,
    device_count,
    enable_peer_access,
    precompile,
)

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
    "Diagnostic",
    "Error",
    "Kernel",
    "KernelStats",
    "ParamInfo",
    "SpecializationStats",
    "TensorSpec",
    "__version__",
    "can_access_peer",
    "compile",
    "cuda_available",
    "cuda_unavailable_reason",
    "device_count",
    "enable_peer_access",
    "precompile",
]


def __getattr__(name: str):
    # croqjit.torch imports torch: only when asked for.
    if name == "torch":
        import importlib

        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module 'croqjit' has no attribute {name!r}")
