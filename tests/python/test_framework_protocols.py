"""How torch tensors and CuPy arrays are read, without either installed:
a child process registers minimal stand-ins as `torch` and `cupy` (the
attributes croqjit reads, backed by NumPy memory) and prepares kernels with
them. The real frameworks are covered by the gpu tests."""

import subprocess
import sys
import textwrap

import pytest

STAND_INS = textwrap.dedent('''
    import sys, types
    import numpy as np

    torch = types.ModuleType("torch")
    class dtype:
        def __init__(self, name): self.name = name
        def __repr__(self): return "torch." + self.name
    for name in ["float32", "float16", "bfloat16", "int32", "int64", "uint8", "bool", "float8_e8m0fnu",
                 "float8_e4m3fn", "float8_e5m2", "int8", "int16", "uint16", "uint32", "uint64", "float64",
                 "uint1", "uint2", "uint4", "uint6", "int2", "int4", "int6", "complex64"]:
        setattr(torch, name, dtype(name))
    class Tensor:
        def __init__(self, array, dt, device=-1):
            self.array, self.dtype, self.device_index = array, dt, device
        def get_device(self): return max(self.device_index, -1)  # -1 for cpu and meta, like torch
        @property
        def is_cpu(self): return self.device_index == -1
        @property
        def device(self): return "meta" if self.device_index == -2 else "cpu"
        @property
        def shape(self): return tuple(self.array.shape)
        def stride(self): return tuple(s // self.array.itemsize for s in self.array.strides)
        def data_ptr(self): return self.array.ctypes.data
    torch.Tensor = Tensor
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 0)
    sys.modules["torch"] = torch

    cupy = types.ModuleType("cupy")
    class ndarray:
        def __init__(self, array, device=0):
            self.array = array
            self.data = types.SimpleNamespace(ptr=array.ctypes.data)
            self.device = types.SimpleNamespace(id=device)
        dtype = property(lambda self: self.array.dtype)
        shape = property(lambda self: self.array.shape)
        strides = property(lambda self: self.array.strides)
    cupy.ndarray = ndarray
    sys.modules["cupy"] = cupy
''')


def run(np, body):
    code = STAND_INS + "import croqjit\n" + textwrap.dedent(body)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout.strip().splitlines()


def test_torch_tensors_are_read_through_their_attributes(np):
    lines = run(np, '''
        k = croqjit.compile("""__co__ f32 [M, N] add(f32 [M, N] lhs, f32 [M, N] rhs) {
          f32 [lhs.span] output;
          parallel {i, j} by [M, N]
            output.at(i, j) = lhs.at(i, j) + rhs.at(i, j);
          return output;
        }""")
        a = Tensor(np.zeros((5, 7), np.float32), torch.float32)
        print(k.prepare(a, a).result_shape)
        print(k.prepare(a, Tensor(np.zeros((5, 7), np.float32), torch.float32, device=0)).result_shape)
        for bad in [Tensor(np.zeros((5, 7), np.float16), torch.float16),
                    Tensor(np.zeros((5, 7), np.complex64), torch.complex64),
                    Tensor(np.zeros((7, 5), np.float32).T, torch.float32),
                    Tensor(np.zeros((5, 7), np.float32), torch.float32, device=-2)]:
            try:
                k.prepare(a, bad)
            except croqjit.ArgumentError as e:
                print(e)
        print(croqjit.TensorSpec((2, 3), torch.bfloat16).dtype)
    ''')
    assert lines == [
        "(5, 7)",
        "(5, 7)",
        "argument 2 'rhs': expected f32 [M, N], got f16 [5, 7]",
        "argument 2 'rhs': dtype torch.complex64 has no croq equivalent",
        "argument 2 'rhs': f32 [5, 7] (host) is not contiguous (row-major); pass a contiguous copy",
        "argument 2 'rhs': a torch tensor on device 'meta' cannot be used; pass a CUDA or CPU tensor",
        "bf16",
    ]


def test_cupy_arrays_are_read_through_their_attributes(np):
    lines = run(np, '''
        k = croqjit.compile("""__co__ void scale(s32 [N] x, s32 [N] y, int f) {
          parallel i by N
            y.at(i) = x.at(i) * f;
        }""")
        x = ndarray(np.zeros(64, np.int32), device=0)
        print(k.prepare(x, x, 2).written)
        strided = ndarray(np.zeros(128, np.int32)[::2])
        try:
            k.prepare(x, strided, 2)
        except croqjit.ArgumentError as e:
            print(e)
        try:
            k.prepare(x, ndarray(np.zeros(64, np.int32), device=1), 2)
        except croqjit.ArgumentError as e:
            print(e)
    ''')
    assert lines == [
        "(False, True, False)",
        "argument 2 'y': s32 [64] (device 0) is not contiguous (row-major); pass a contiguous copy",
        "argument 2 'y' is on device 1 but the kernel runs on device 0 (the device of argument 1 'x'); pass a tensor "
        "on device 0, or read it over the peer link: croq::enable_peer_access(0, 1) and LaunchOptions::peer_access",
    ]
