"""croqjit.Error and its subclasses: what each carries, without a GPU."""

import json

import pytest

import croqjit
from kernels import ADD, OUT_OF_RANGE, SCALE, SYNTAX_ERROR


def test_hierarchy():
    for cls in (croqjit.CompileError, croqjit.ArgumentError, croqjit.CudaError, croqjit.CacheError):
        assert issubclass(cls, croqjit.Error)
        assert cls.__module__ == "croqjit"
    assert issubclass(croqjit.Error, Exception)


def test_compile_error_has_located_diagnostics():
    with pytest.raises(croqjit.CompileError) as caught:
        croqjit.compile(SYNTAX_ERROR, source_name="bad.co")
    e = caught.value
    assert str(e).startswith("bad.co:2:18: error: expected `=>` after the copy source, found `shared`")
    assert e.source_name == "bad.co"
    assert len(e.diagnostics) == 1
    d = e.diagnostics[0]
    assert isinstance(d, croqjit.Diagnostic)
    assert (d.line, d.column, d.length, d.severity) == (2, 18, 6, "error")
    assert d.message == "expected `=>` after the copy source, found `shared`"
    assert d.hint == "did you mean `=> shared`?"
    lines = str(d).splitlines()
    assert lines[0] == "bad.co:2:18: error: expected `=>` after the copy source, found `shared`"
    assert lines[1].strip() == "f = dma.copy x shared;"
    assert lines[2].index("^") == lines[1].index("shared")
    assert "hint: did you mean `=> shared`?" in str(d)
    assert repr(d).startswith("<Diagnostic 2:18 error: expected")
    parsed = json.loads(e.json)
    assert parsed["diagnostics"][0]["line"] == 2 and parsed["source"] == "bad.co"


def test_specialization_errors_are_compile_errors_with_locations(np):
    k = croqjit.compile(OUT_OF_RANGE)
    with pytest.raises(croqjit.CompileError) as caught:
        k.prepare(np.zeros((64, 64), np.int32))
    d = caught.value.diagnostics[0]
    assert (d.line, d.column) == (3, 13)
    assert d.message == "index 70 is out of range for dimension 1 of extent 64"


def test_argument_errors_name_the_argument(np):
    add = croqjit.compile(ADD)
    a = np.zeros((4, 8), np.float32)
    cases = [
        ((a, np.zeros((4, 9), np.float32)),
         "argument 2 'rhs': dimension 1 is N, bound to 8 by an earlier argument, but got f32 [4, 9]"),
        ((a.astype(np.float64), a), "argument 1 'lhs': expected f32 [M, N], got f64 [4, 8]"),
        ((a.astype(np.complex64), a), "argument 1 'lhs': dtype complex64 has no croq equivalent"),
        ((a, [1, 2]), "argument 2 'rhs': expected a tensor (torch, CuPy, NumPy or a DLPack producer), got list"),
        ((a, 3), "argument 2 'rhs': expected a tensor f32 [M, N], got a scalar"),
        ((a,), "`add` takes 2 arguments, got 1"),
        ((a, a, a), "`add` takes 2 arguments, got 3"),
        ((np.zeros((4, 16), np.float32)[:, ::2], a),
         "argument 1 'lhs': f32 [4, 8] (host) is not contiguous (row-major); pass a contiguous copy"),
    ]
    for args, message in cases:
        with pytest.raises(croqjit.ArgumentError) as caught:
            add.prepare(*args)
        assert str(caught.value) == message


def test_scalar_parameters(np):
    scale = croqjit.compile(SCALE)
    x = np.zeros(16, np.float32)
    for factor in (2, 2.5, True, np.float32(2.5), np.int64(3)):
        assert scale.prepare(x, x, factor).written == (False, True, False)
    with pytest.raises(croqjit.ArgumentError, match=r"argument 3 'factor': expected a scalar float, got a tensor \(numpy.ndarray\)"):
        scale.prepare(x, x, x)
    with pytest.raises(croqjit.ArgumentError, match="argument 3 'factor': expected a number, got str"):
        scale.prepare(x, x, "2")
    with pytest.raises(croqjit.ArgumentError, match="does not fit in 64 bits"):
        scale.prepare(x, x, 1 << 70)


def test_read_only_arrays_may_not_be_written(np):
    scale = croqjit.compile(SCALE)
    x = np.ones(16, np.float32)
    read_only = np.frombuffer(bytes(64), dtype=np.float32)
    with pytest.raises(croqjit.ArgumentError, match="argument 2 'y': the kernel writes it, but the NumPy array is read-only"):
        scale(x, read_only, 2.0)


def test_keywords(np):
    add = croqjit.compile(ADD)
    a = np.zeros((2, 2), np.float32)
    with pytest.raises(croqjit.ArgumentError, match="unexpected keyword argument 'lhs'"):
        add(a, lhs=a)
    with pytest.raises(croqjit.ArgumentError, match="stream: expected None, an int handle"):
        add(a, a, stream="default")


@pytest.mark.skipif(croqjit.cuda_available(), reason="a CUDA driver is present")
def test_running_without_a_driver_is_a_cuda_error(np):
    add = croqjit.compile(ADD)
    a = np.ones((2, 2), np.float32)
    with pytest.raises(croqjit.CudaError) as caught:
        add(a, a)
    assert caught.value.call == "dlopen"
    assert caught.value.code == 0
    assert "no CUDA driver found" in str(caught.value)
