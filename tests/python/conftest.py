"""Shared setup of the croqjit Python tests.

CPU tests need only numpy (and skip without it); tests marked `gpu` also
need a CUDA device and torch or CuPy, and skip themselves otherwise. ctest
runs them against the package in the build tree (PYTHONPATH=BUILD/python);
CROQJIT_EXPECT_PACKAGE_DIR makes sure that is the one imported.
"""

import os
import tempfile

import pytest

# The library reads its environment once, at first use: give the tests a
# private kernel cache before croqjit is imported.
if "CROQ_CACHE_DIR" not in os.environ:
    os.environ["CROQ_CACHE_DIR"] = tempfile.mkdtemp(prefix="croqjit-pytest-cache-")

import croqjit  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device and torch or CuPy; skips itself without them")
    expected = os.environ.get("CROQJIT_EXPECT_PACKAGE_DIR")
    if expected and os.path.realpath(os.path.dirname(croqjit.__file__)) != os.path.realpath(expected):
        raise pytest.UsageError(f"imported croqjit from {croqjit.__file__}, expected the build tree's {expected}")


@pytest.fixture(scope="session")
def np():
    return pytest.importorskip("numpy")


@pytest.fixture(scope="session")
def torch():
    """torch with a CUDA device that croqjit can use, else skip."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    if not croqjit.cuda_available():
        pytest.skip(f"croqjit cannot run kernels: {croqjit.cuda_unavailable_reason()}")
    return torch


@pytest.fixture(scope="session")
def cupy():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("CuPy sees no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError as e:
        pytest.skip(f"CuPy sees no CUDA device: {e}")
    if not croqjit.cuda_available():
        pytest.skip(f"croqjit cannot run kernels: {croqjit.cuda_unavailable_reason()}")
    return cupy


@pytest.fixture(scope="session")
def gpu_numpy(np):
    """numpy, when croqjit can run kernels (host arrays are copied to a device)."""
    if not croqjit.cuda_available():
        pytest.skip(f"croqjit cannot run kernels: {croqjit.cuda_unavailable_reason()}")
    return np
