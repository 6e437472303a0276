"""Every croq element type and its torch and NumPy dtypes: the names the
Python API takes (tf32, f8_ue8m0, f8_ue4m3 among them), the mapping
(croqjit.torch_dtype / numpy_dtype, NumPy's through ml_dtypes), arguments
of each type, results, and the ArgumentError that names a type where a
framework has none. CPU only (prepare specializes and compiles); torch
through the stand-ins of test_framework_protocols."""

import pytest

import croqjit
from test_framework_protocols import run

# `T` is replaced by an element type.
COPY_TYPED = """__co__ T [N] copy_typed(T [N] x) {
  T [x.span] output;
  parallel i by N
    output.at(i) = x.at(i);
  return output;
}
"""

# croq dtype -> its NumPy dtype name (ml_dtypes where NumPy lacks it), None where there is none.
NUMPY_NAMES = {
    "s8": "int8", "u8": "uint8", "s16": "int16", "u16": "uint16", "s32": "int32", "u32": "uint32",
    "s64": "int64", "u64": "uint64", "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "f8_e4m3": "float8_e4m3fn", "f8_e5m2": "float8_e5m2", "f6_e2m3": "float6_e2m3fn", "f6_e3m2": "float6_e3m2fn",
    "f4_e2m1": "float4_e2m1fn", "u6": None, "s6": None, "u4": "uint4", "s4": "int4", "u2": "uint2", "s2": "int2",
    "u1": "uint1", "bin1": "bool", "tf32": "float32", "f8_ue8m0": "float8_e8m0fnu", "f8_ue4m3": None,
}
TORCH_NAMES = {
    "s8": "int8", "u8": "uint8", "s16": "int16", "u16": "uint16", "s32": "int32", "u32": "uint32",
    "s64": "int64", "u64": "uint64", "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "f8_e4m3": "float8_e4m3fn", "f8_e5m2": "float8_e5m2", "f6_e2m3": None, "f6_e3m2": None, "f4_e2m1": None,
    "u6": "uint6", "s6": "int6", "u4": "uint4", "s4": "int4", "u2": "uint2", "s2": "int2", "u1": "uint1",
    "bin1": "bool", "tf32": "float32", "f8_ue8m0": "float8_e8m0fnu", "f8_ue4m3": None,
}


@pytest.fixture(scope="session")
def ml_dtypes():
    return pytest.importorskip("ml_dtypes")


def test_every_croq_type_has_a_name():
    assert set(croqjit.dtypes) == set(NUMPY_NAMES)
    assert len(croqjit.dtypes) == 28
    for name in ("tf32", "f8_ue8m0", "f8_ue4m3"):
        assert name in croqjit.dtypes
        assert croqjit.TensorSpec((4, 2), name).dtype == name


@pytest.mark.parametrize("croq_dtype", sorted(NUMPY_NAMES))
def test_numpy_dtype_of_each_type(np, ml_dtypes, croq_dtype):
    name = NUMPY_NAMES[croq_dtype]
    if name is None:
        torch_name = TORCH_NAMES[croq_dtype]
        expected = (f"{croq_dtype} has no torch or NumPy dtype" if torch_name is None
                    else f"{croq_dtype} has no NumPy dtype; torch tensors of torch.{torch_name} hold it")
        with pytest.raises(croqjit.ArgumentError) as e:
            croqjit.numpy_dtype(croq_dtype)
        assert str(e.value) == expected
        return
    want = np.dtype(getattr(np, name)) if hasattr(np, name) else np.dtype(getattr(ml_dtypes, name))
    assert croqjit.numpy_dtype(croq_dtype) == want


@pytest.mark.parametrize("croq_dtype", sorted(NUMPY_NAMES))
def test_numpy_arrays_of_each_type_are_arguments(np, ml_dtypes, croq_dtype):
    """An array of the type's NumPy dtype specializes the kernel for the type
    (float32 for tf32, its storage); where NumPy has none, whatever is
    passed is refused naming the type."""
    k = croqjit.compile(COPY_TYPED.replace("T ", croq_dtype + " "))
    name = NUMPY_NAMES[croq_dtype]
    if name is None:
        with pytest.raises(croqjit.ArgumentError) as e:
            k.prepare(np.zeros(8, np.uint8))
        assert str(e.value).startswith(f"argument 1 'x': the parameter's type {croq_dtype} has no")
        return
    x = np.zeros(8, dtype=croqjit.numpy_dtype(croq_dtype))
    info = k.prepare(x)
    assert info.result_dtype == croq_dtype and info.result_shape == (8,)


def test_float32_is_tf32_storage_only_for_tf32_parameters(np):
    tf32 = croqjit.compile(COPY_TYPED.replace("T ", "tf32 "))
    assert tf32.prepare(np.zeros(8, np.float32)).result_dtype == "tf32"
    f16 = croqjit.compile(COPY_TYPED.replace("T ", "f16 "))
    with pytest.raises(croqjit.ArgumentError, match=r"argument 1 'x': expected f16 \[N\], got f32 \[8\]"):
        f16.prepare(np.zeros(8, np.float32))


def test_boolean_arrays_are_bin1(np):
    k = croqjit.compile(COPY_TYPED.replace("T ", "bin1 "))
    assert k.prepare(np.zeros(8, bool)).result_dtype == "bin1"
    f32 = croqjit.compile(COPY_TYPED.replace("T ", "f32 "))
    with pytest.raises(croqjit.ArgumentError, match=r"argument 1 'x': expected f32 \[N\], got bin1 \[8\]"):
        f32.prepare(np.zeros(8, bool))


def test_results_of_a_type_numpy_lacks_are_refused_before_the_launch(np):
    """The host call checks the result's dtype first: no GPU is needed to
    see the error, and nothing runs."""
    k = croqjit.compile("""__co__ f8_ue4m3 [N] scales(f32 [N] x) {
  f8_ue4m3 [x.span] output;
  parallel i by N
    output.at(i) = x.at(i);
  return output;
}""")
    with pytest.raises(croqjit.ArgumentError) as e:
        k(np.zeros(8, np.float32))
    assert str(e.value) == "the result: f8_ue4m3 has no torch or NumPy dtype"


def test_torch_dtype_of_each_type():
    """Through stand-in torch dtypes (test_framework_protocols)."""
    lines = run(None, f'''
        for name in {sorted(TORCH_NAMES)!r}:
            try:
                print(name, croqjit.torch_dtype(name))
            except croqjit.ArgumentError as e:
                print(name, "error:", e)
    ''')
    for line in lines:
        croq_dtype, _, shown = line.partition(" ")
        name = TORCH_NAMES[croq_dtype]
        if name is not None:
            assert shown == f"torch.{name}", line
        elif NUMPY_NAMES[croq_dtype] is None:
            assert shown == f"error: {croq_dtype} has no torch or NumPy dtype", line
        else:
            assert shown == (f"error: {croq_dtype} has no torch dtype; NumPy arrays of "
                             f"ml_dtypes.{NUMPY_NAMES[croq_dtype]} hold it"), line
    assert len(lines) == len(TORCH_NAMES)


def test_torch_tensors_of_the_new_types():
    lines = run(None, '''
        copy = """__co__ T [N] copy_typed(T [N] x) {
          T [x.span] output;
          parallel i by N
            output.at(i) = x.at(i);
          return output;
        }"""
        for croq_dtype, torch_name in [("f8_ue8m0", "float8_e8m0fnu"), ("bin1", "bool"), ("tf32", "float32"),
                                       ("s4", "int4"), ("u6", "uint6")]:
            k = croqjit.compile(copy.replace("T ", croq_dtype + " "))
            storage = np.float32 if torch_name == "float32" else np.uint8
            print(croq_dtype, k.prepare(Tensor(np.zeros(8, storage), getattr(torch, torch_name))).result_dtype)
        k = croqjit.compile(copy.replace("T ", "f4_e2m1 "))
        try:
            k.prepare(Tensor(np.zeros(8, np.uint8), torch.uint8))
        except croqjit.ArgumentError as e:
            print(e)
    ''')
    assert lines == [
        "f8_ue8m0 f8_ue8m0",
        "bin1 bin1",
        "tf32 tf32",
        "s4 s4",
        "u6 u6",
        "argument 1 'x': the parameter's type f4_e2m1 has no torch dtype; NumPy arrays of ml_dtypes.float4_e2m1fn "
        "hold it",
    ]


@pytest.mark.gpu
def test_torch_tensors_of_the_new_types_on_a_device(torch):
    """A copy kernel's result comes back as the argument's torch dtype, bit for bit."""
    copy = """__co__ T [N] copy_typed(T [N] x) {
  T [x.span] output;
  parallel i by N
    output.at(i) = x.at(i);
  return output;
}"""
    values = torch.arange(1, 65, device="cuda", dtype=torch.float32)
    cases = [("f32", torch.float32), ("tf32", torch.float32), ("bin1", torch.bool), ("f8_e4m3", torch.float8_e4m3fn),
             ("f8_e5m2", torch.float8_e5m2)]
    if hasattr(torch, "float8_e8m0fnu"):
        cases.append(("f8_ue8m0", torch.float8_e8m0fnu))
    for croq_dtype, dtype in cases:
        x = (values > 32) if dtype == torch.bool else values.to(dtype)
        out = croqjit.compile(copy.replace("T ", croq_dtype + " "))(x)
        assert out.dtype == dtype and out.device == x.device, croq_dtype
        size = x.element_size()
        raw = torch.uint8 if size == 1 else torch.int32
        assert torch.equal(out.view(raw), x.view(raw)), croq_dtype
