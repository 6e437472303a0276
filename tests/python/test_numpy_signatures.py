"""NumPy arrays as kernel arguments: dtypes, shapes and layouts map onto
croq signatures, checked without a GPU (prepare specializes and compiles)."""

import pytest

import croqjit
from kernels import ADD, ADD_TYPED, MATMUL
from producers import DLPackProducer

DTYPES = [
    ("s8", "int8"), ("u8", "uint8"), ("s16", "int16"), ("u16", "uint16"), ("s32", "int32"),
    ("u32", "uint32"), ("s64", "int64"), ("u64", "uint64"), ("f16", "float16"), ("f32", "float32"),
    ("f64", "float64"),
]


@pytest.mark.parametrize("croq_dtype,numpy_dtype", DTYPES)
def test_each_numpy_dtype_maps_to_its_croq_type(np, croq_dtype, numpy_dtype):
    k = croqjit.compile(ADD_TYPED.replace("T ", croq_dtype + " "))
    a = np.zeros(33, dtype=numpy_dtype)
    info = k.prepare(a, a)
    assert info.result_dtype == croq_dtype and info.result_shape == (33,)
    other = "float32" if numpy_dtype != "float32" else "int32"
    with pytest.raises(croqjit.ArgumentError, match=f"argument 2 'rhs': expected {croq_dtype} \\[N\\], got"):
        k.prepare(a, np.zeros(33, dtype=other))


@pytest.mark.parametrize("croq_dtype", ["bf16", "f16"])
def test_half_types_through_tensor_specs(croq_dtype):
    k = croqjit.compile(ADD_TYPED.replace("T ", croq_dtype + " "))
    spec = croqjit.TensorSpec((9,), croq_dtype)
    assert k.prepare(spec, spec).result_dtype == croq_dtype


def test_byte_swapped_and_boolean_arrays_are_refused(np):
    k = croqjit.compile(ADD_TYPED.replace("T ", "f32 "))
    with pytest.raises(croqjit.ArgumentError, match="argument 1 'lhs'"):
        k.prepare(np.zeros(4, dtype=">f4"), np.zeros(4, np.float32))
    # Booleans are bin1 (a byte of 0 or 1), which an f32 parameter is not.
    with pytest.raises(croqjit.ArgumentError, match=r"expected f32 \[N\], got bin1 \[4\]"):
        k.prepare(np.zeros(4, dtype=bool), np.zeros(4, np.float32))


def test_shapes_bind_symbolic_dims(np):
    add = croqjit.compile(ADD)
    for shape in [(1, 1), (3, 1000), (257, 5)]:
        a = np.zeros(shape, np.float32)
        assert add.prepare(a, a).result_shape == shape
    with pytest.raises(croqjit.ArgumentError, match=r"argument 1 'lhs': expected f32 \[M, N\], got f32 \[4\]"):
        add.prepare(np.zeros(4, np.float32), np.zeros(4, np.float32))


def test_layouts(np):
    add = croqjit.compile(ADD)
    base = np.zeros((8, 8), np.float32)
    assert add.prepare(base[2:5], base[2:5]).result_shape == (3, 8)  # row slices stay contiguous
    assert add.prepare(base[:, :1].copy(), np.zeros((8, 1), np.float32)).result_shape == (8, 1)
    for view in (base.T, base[:, 1:3], base[::2]):
        with pytest.raises(croqjit.ArgumentError, match="is not contiguous"):
            add.prepare(view, np.ascontiguousarray(view))
    fortran = np.asfortranarray(np.zeros((4, 3), np.float32))
    with pytest.raises(croqjit.ArgumentError, match="is not contiguous"):
        add.prepare(fortran, np.zeros((4, 3), np.float32))


def test_any_buffer_or_dlpack_producer(np):
    add = croqjit.compile(ADD_TYPED.replace("T ", "f32 "))

    a = np.zeros(12, np.float32)
    assert add.prepare(DLPackProducer(a), memoryview(a)).result_shape == (12,)


def test_the_tutorial_matmul_signature(np):
    matmul = croqjit.compile(MATMUL)
    info = matmul.prepare(np.zeros((128, 256), np.int32), np.zeros((256, 256), np.int32))
    assert (info.result_dtype, info.result_shape) == ("s32", (128, 256))
    with pytest.raises(croqjit.ArgumentError, match=r"argument 2 'rhs': expected s32 \[256, 256\], got s32 \[256, 128\]"):
        matmul.prepare(np.zeros((128, 256), np.int32), np.zeros((256, 128), np.int32))
