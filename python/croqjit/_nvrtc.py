"""NVRTC from the ``nvidia-cuda-nvrtc`` PyPI package (``pip install
'croqjit[cuda]'``), loaded the way torch loads the CUDA libraries it
depends on: from the package's folder under a ``sys.path`` entry, by path,
before anything asks for NVRTC by name. libcroqjit then finds it already
loaded (src/jit/nvrtc_library.hpp) and looks no further; without the
package it searches the CUDA toolkit and the system loader itself.
"""

import ctypes
import os
import sys

from ._cuda import CUDA_MAJOR

# Where the PyPI packages put NVRTC: CUDA 13's share nvidia/cu13/lib, CUDA
# 12's had a folder per package (nvidia/cuda_nvrtc/lib).
_PACKAGE_FOLDERS = (f"cu{CUDA_MAJOR}", "cuda_nvrtc")


def nvrtc_library_name() -> str:
    return f"libnvrtc.so.{CUDA_MAJOR}"


def packaged_nvrtc_paths():
    """Where the nvidia-cuda-nvrtc package's NVRTC would be, in sys.path
    order. The current directory ('' in sys.path) is not searched: a
    library is not loaded from wherever the user happens to stand."""
    for entry in sys.path:
        if not entry or not os.path.isabs(entry):
            continue
        for folder in _PACKAGE_FOLDERS:
            yield os.path.join(entry, "nvidia", folder, "lib", nvrtc_library_name())


def load_packaged_nvrtc():
    """Loads the packaged NVRTC unless one is loaded already (torch's, or
    ours). Returns the path loaded, or None."""
    try:
        ctypes.CDLL(nvrtc_library_name(), mode=os.RTLD_NOW | os.RTLD_NOLOAD)
        return None
    except OSError:
        pass
    for path in packaged_nvrtc_paths():
        if os.path.isfile(path):
            try:
                ctypes.CDLL(path)
                return path
            except OSError:
                continue
    return None
