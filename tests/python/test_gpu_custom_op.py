"""croqjit.torch.custom_op: the op checks against torch's opcheck, runs
eagerly and inside torch.compile (static and dynamic shapes), and refuses
writes that mutates_args does not declare."""

import itertools

import pytest

import croqjit
from kernels import ADD, SCALE

pytestmark = pytest.mark.gpu
_names = itertools.count()


def op_name(stem):
    # Each test registers fresh ops (torch keeps them for the process).
    return f"croqjit_test::{stem}_{next(_names)}"


def test_schema_opcheck_and_eager(torch):
    add = croqjit.torch.custom_op(op_name("add"), croqjit.compile(ADD))
    assert "(Tensor lhs, Tensor rhs) -> Tensor" in str(add._opoverload._schema)
    a, b = torch.randn(33, 65, device="cuda"), torch.randn(33, 65, device="cuda")
    torch.testing.assert_close(add(a, b), a + b, rtol=0, atol=0)
    torch.library.opcheck(add, (a, b), test_utils=("test_schema", "test_faketensor"))


def test_inside_torch_compile(torch):
    add = croqjit.torch.custom_op(op_name("add"), croqjit.compile(ADD))

    @torch.compile(fullgraph=True)
    def f(x, y):
        return add(x * 2, y).sum(dim=1) + 1

    for m in (16, 16, 40):
        x, y = torch.randn(m, 128, device="cuda"), torch.randn(m, 128, device="cuda")
        torch.testing.assert_close(f(x, y), (x * 2 + y).sum(dim=1) + 1, rtol=1e-5, atol=1e-4)


def test_dynamic_shapes_keep_dynamic_dims_symbolic(torch):
    add = croqjit.torch.custom_op(op_name("add_dyn"), croqjit.compile(ADD, dynamic_dims="M"))

    @torch.compile(fullgraph=True, dynamic=True)
    def f(x, y):
        return add(x, y) * 3

    for m in (7, 300, 1024):
        x, y = torch.randn(m, 32, device="cuda"), torch.randn(m, 32, device="cuda")
        torch.testing.assert_close(f(x, y), (x + y) * 3, rtol=1e-6, atol=1e-5)


def test_mutating_op(torch):
    scale = croqjit.compile(SCALE)
    op = croqjit.torch.custom_op(op_name("scale"), scale, mutates_args=("y",))
    assert "Tensor(a1!) y" in str(op._opoverload._schema)
    x = torch.randn(1000, device="cuda")
    y = torch.full((1000,), float("nan"), device="cuda")
    assert op(x, y, 3.0) is None
    torch.testing.assert_close(y, x * 3.0, rtol=1e-6, atol=0)

    @torch.compile(fullgraph=True)
    def f(x, y):
        op(x, y, 0.5)
        return y + 1

    y.fill_(float("nan"))
    torch.testing.assert_close(f(x, y), x * 0.5 + 1, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(y, x * 0.5, rtol=1e-6, atol=0)


def test_undeclared_writes_are_refused(torch):
    op = croqjit.torch.custom_op(op_name("scale_undeclared"), croqjit.compile(SCALE))
    x = torch.randn(8, device="cuda")
    with pytest.raises(croqjit.ArgumentError, match=r"writes y, which mutates_args does not declare"):
        op(x, torch.empty_like(x), 1.0)
    with pytest.raises(croqjit.ArgumentError, match="not a parameter"):
        croqjit.torch.custom_op(op_name("bad"), croqjit.compile(SCALE), mutates_args=("z",))
    with pytest.raises(croqjit.ArgumentError, match="scalar parameter"):
        croqjit.torch.custom_op(op_name("bad"), croqjit.compile(SCALE), mutates_args=("factor",))
