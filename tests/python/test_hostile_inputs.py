"""What a careless or hostile caller can pass to croqjit: every text that
comes back is valid UTF-8, and every mistake is a croqjit error that says
what is wrong (never a crash, RuntimeError, TypeError or std::bad_cast)."""

import json

import pytest

import croqjit
from kernels import ADD


def compile_error(source, **options):
    with pytest.raises(croqjit.CompileError) as caught:
        croqjit.compile(source, **options)
    return caught.value


@pytest.mark.parametrize("indent", [0, 1, 2])
def test_source_line_cut_inside_a_character(indent):
    # The excerpt is cut 160 bytes into the line; CJK characters take 3
    # bytes, so one of the three indents puts the cut inside one (a crash
    # of the interpreter before the cut kept to character boundaries).
    comment = "漢字" * 200
    e = compile_error("__co__ void f(f32 [4] x) {\n" + " " * indent + "  y = nothing; // " + comment + "\n}\n")
    kept = (160 - 18 - indent) // 3  # whole characters before the cut
    lines = str(e).splitlines()
    assert lines[0] == f"<source>:2:{7 + indent}: error: unknown name `nothing` [unknown-name]"
    assert lines[1] == "    " + " " * indent + "  y = nothing; // " + comment[:kept] + "..."
    assert e.diagnostics[0].message == "unknown name `nothing`"
    assert str(e.diagnostics[0]).splitlines()[1] == lines[1]
    assert json.loads(e.json)["diagnostics"][0]["rule"] == "unknown-name"


def test_long_message_cut_inside_a_character():
    # 2-byte characters after an odd-length prefix: the 1,900-byte cut of the
    # message and the 160-byte cut of the excerpt both fall inside one.
    e = compile_error("#error " + "é" * 1500 + "\n")
    message = "#error: " + "é" * 946 + "... (1,108 more bytes)"
    assert e.diagnostics[0].message == message
    assert str(e).splitlines() == [
        "<source>:1:2: error: " + message,
        "    #error " + "é" * 76 + "...",
        "     ^~~~~",
    ]
    parsed = json.loads(e.json)
    assert parsed["diagnostics"][0]["message"] == message
    assert repr(e.diagnostics[0]).startswith("<Diagnostic 1:2 error: #error: éé")


def test_source_name_and_text_that_python_cannot_encode():
    e = compile_error("__co__ void f() { x = ; }", source_name="naïve ☃.co")
    assert str(e).startswith("naïve ☃.co:1:")
    assert e.source_name == "naïve ☃.co"
    with pytest.raises(croqjit.ArgumentError) as caught:
        croqjit.compile("\ud800")
    assert str(caught.value) == "source is not valid text: it holds a lone surrogate, which has no UTF-8 form"
    with pytest.raises(croqjit.ArgumentError) as caught:
        croqjit.compile(ADD, source_name="x\udcff")
    assert str(caught.value) == "source_name is not valid text: it holds a lone surrogate, which has no UTF-8 form"


@pytest.mark.parametrize("options, message", [
    ({"defines": {"T": 2**70}}, "defines['T'] = 1180591620717411303424 does not fit in a 64-bit signed integer"),
    ({"defines": {"T": -2**63 - 1}}, "defines['T'] = -9223372036854775809 does not fit in a 64-bit signed integer"),
    ({"defines": {1: 2}}, "defines key 1 must be a str, got int"),
    ({"defines": {("T",): 2}}, "defines key ('T',) must be a str, got tuple"),
    ({"defines": {"T": "96"}}, "defines['T'] must be an int or a float, got str"),
    ({"defines": {"T": None}}, "defines['T'] must be an int or a float, got NoneType"),
    ({"defines": [("T", 1)]}, "defines must be a dict of names to ints or floats, got list"),
    ({"entry": 3}, "entry must be a str, got int"),
    ({"arch": b"sm_90a"}, "arch must be a str, got bytes"),
    ({"dynamic_dims": 3}, "dynamic_dims must be a str or a sequence of str, got int"),
    ({"dynamic_dims": ["M", 3]}, "dynamic_dims[1] must be a str, got int"),
    ({"debug_line_info": "yes"}, "debug_line_info must be a bool, got str"),
])
def test_compile_options_are_argument_errors(options, message):
    with pytest.raises(croqjit.ArgumentError) as caught:
        croqjit.compile(ADD, **options)
    assert str(caught.value) == message


def test_source_must_be_text():
    with pytest.raises(croqjit.ArgumentError) as caught:
        croqjit.compile(ADD.encode())
    assert str(caught.value) == "source must be a str, got bytes"


def test_defines_take_numpy_integers_and_bools(np):
    add = croqjit.compile(ADD, defines={"SCALE": np.int64(3), "FLAG": True, "RATE": np.float64(0.5)})
    assert add.name == "add"


@pytest.mark.parametrize("make, message", [
    (lambda np, a: a.astype(">f4"),
     "argument 1 'lhs': big-endian arrays are not supported; convert with arr.astype(arr.dtype.newbyteorder('='))"),
    (lambda np, a: a.astype(">i8"),
     "argument 1 'lhs': big-endian arrays are not supported; convert with arr.astype(arr.dtype.newbyteorder('='))"),
    (lambda np, a: a.astype(object), "argument 1 'lhs': dtype object has no croq equivalent"),
    (lambda np, a: a.astype(np.complex128), "argument 1 'lhs': dtype complex128 has no croq equivalent"),
    (lambda np, a: np.full((4, 8), "x"), "argument 1 'lhs': dtype <U1 has no croq equivalent"),
    (lambda np, a: a.astype("datetime64[s]"), "argument 1 'lhs': dtype datetime64[s] has no croq equivalent"),
])
def test_numpy_arrays_without_a_croq_layout(np, make, message):
    add = croqjit.compile(ADD)
    a = np.zeros((4, 8), np.float32)
    with pytest.raises(croqjit.ArgumentError) as caught:
        add.prepare(make(np, a), a)
    assert str(caught.value) == message


def test_zero_size_arrays_are_arguments(np):
    # A 0-size array is a valid argument: with a dynamic dim the call has an
    # empty grid; a kernel specialized to a zero extent says where that fails.
    empty = np.zeros((0, 8), np.float32)
    dynamic = croqjit.compile(ADD, dynamic_dims=["M"])
    assert dynamic.prepare(empty, empty).result_shape == (0, 8)
    with pytest.raises(croqjit.CompileError) as caught:
        croqjit.compile(ADD).prepare(empty, empty)
    e = caught.value
    assert str(e).splitlines()[0] == "<source>:3:22: error: a parallel count must be positive, got 0"
    assert "note: M = 0 from argument 1 'lhs', dim 0" in str(e)


@pytest.mark.parametrize("args, message", [
    (((-1,), "f32"), "TensorSpec: extent 0 is -1; extents must not be negative"),
    (((2, 2**70), "f32"), "TensorSpec: extent 1 (1180591620717411303424) does not fit in a 64-bit signed integer"),
    (((2.5,), "f32"), "TensorSpec: extent 0 must be an int, got float"),
    ((5, "f32"), "TensorSpec: shape must be a sequence of ints, got int"),
    (((2,), "f99"), "unknown dtype 'f99' (croq names such as 'f32', or NumPy names such as 'float32')"),
    (((2,), 5), "unsupported dtype 5"),
    (((2,), "f32", -3), "TensorSpec: device -3 is not a device ordinal (None stands for host memory)"),
    (((2,), "f32", 2**40), "TensorSpec: device 1099511627776 is not a device ordinal (None stands for host memory)"),
    (((2,), "f32", "cuda"), "TensorSpec: device must be None or an int, got str"),
])
def test_tensor_spec_arguments(args, message):
    with pytest.raises(croqjit.ArgumentError) as caught:
        croqjit.TensorSpec(*args)
    assert str(caught.value) == message


@pytest.mark.parametrize("kwargs, message", [
    ({"lhs": 1}, "unexpected keyword argument 'lhs'; kernel arguments are positional, and stream= and "
                 "peer_access= are the only keywords"),
    ({"peer_access": 1}, "peer_access must be True or False, got int"),
    ({"stream": "default"}, "stream: expected None, an int handle, a torch.cuda.Stream, a CuPy stream or an object "
                            "with __cuda_stream__, got str"),
    ({"stream": 2**70}, "stream: handle 1180591620717411303424 is not a pointer value"),
])
def test_call_keywords(np, kwargs, message):
    add = croqjit.compile(ADD)
    a = np.zeros((2, 2), np.float32)
    with pytest.raises(croqjit.ArgumentError) as caught:
        add(a, a, **kwargs)
    assert str(caught.value) == message


def test_stream_objects_that_break_the_protocol(np):
    add = croqjit.compile(ADD)
    a = np.zeros((2, 2), np.float32)

    class BadProtocol:
        def __cuda_stream__(self):
            return 7

    class PointerIsText:
        cuda_stream = "0x10"

    with pytest.raises(croqjit.ArgumentError) as caught:
        add(a, a, stream=BadProtocol())
    assert str(caught.value) == "stream: __cuda_stream__() must return (version, handle), got 7"
    with pytest.raises(croqjit.ArgumentError) as caught:
        add(a, a, stream=PointerIsText())
    assert str(caught.value) == "stream: a handle must be an int, got str"
