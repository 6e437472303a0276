"""CuPy arrays, NumPy arrays and other DLPack producers with a device:
results of each framework's own type, checked against a reference."""

import pytest

import croqjit
from kernels import ADD, ADD_INTO, SCALE
from producers import DLPackProducer

pytestmark = pytest.mark.gpu


def test_cupy_arrays_in_place_and_results(cupy):
    add = croqjit.compile(ADD)
    a = cupy.random.standard_normal((123, 77), dtype=cupy.float32)
    b = cupy.random.standard_normal((123, 77), dtype=cupy.float32)
    out = add(a, b)
    assert isinstance(out, cupy.ndarray) and out.dtype == cupy.float32 and out.shape == (123, 77)
    cupy.testing.assert_array_equal(out, a + b)
    into = croqjit.compile(ADD_INTO)
    x, y = a.ravel(), b.ravel()
    z = cupy.full(x.shape, cupy.nan, dtype=cupy.float32)
    into(x, y, z)
    cupy.testing.assert_array_equal(z, x + y)


def test_cupy_stream(cupy):
    add = croqjit.compile(ADD)
    a = cupy.random.standard_normal((64, 64), dtype=cupy.float32)
    b = cupy.random.standard_normal((64, 64), dtype=cupy.float32)
    cupy.cuda.runtime.deviceSynchronize()  # a non-blocking stream does not wait for the default one
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        out = add(a, b)  # CuPy's current stream
    stream.synchronize()
    cupy.testing.assert_array_equal(out, a + b)
    out = add(a, b, stream=stream)
    stream.synchronize()
    cupy.testing.assert_array_equal(out, a + b)


def test_numpy_arrays_are_copied_in_and_out(gpu_numpy):
    np = gpu_numpy
    rng = np.random.default_rng()
    add = croqjit.compile(ADD)
    a = rng.standard_normal((100, 300)).astype(np.float32)
    b = rng.standard_normal((100, 300)).astype(np.float32)
    out = add(a, b)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_array_equal(out, a + b)
    scale = croqjit.compile(SCALE)
    x = rng.standard_normal(10007).astype(np.float32)
    y = np.full(10007, np.nan, np.float32)
    assert scale(x, y, 3.0) is None
    np.testing.assert_array_equal(y, x * np.float32(3.0))


def test_other_dlpack_producers(torch):
    add = croqjit.compile(ADD)
    a, b = torch.randn(40, 50, device="cuda"), torch.randn(40, 50, device="cuda")
    out = add(DLPackProducer(a), DLPackProducer(b))
    assert not isinstance(out, torch.Tensor) and hasattr(out, "__dlpack__")
    torch.cuda.synchronize()
    torch.testing.assert_close(torch.from_dlpack(out), a + b, rtol=0, atol=0)
    into = croqjit.compile(ADD_INTO)
    z = torch.full((2000,), float("nan"), device="cuda")
    into(DLPackProducer(a.ravel()[:2000]), DLPackProducer(b.ravel()[:2000]), DLPackProducer(z))
    torch.cuda.synchronize()
    torch.testing.assert_close(z, a.ravel()[:2000] + b.ravel()[:2000], rtol=0, atol=0)
