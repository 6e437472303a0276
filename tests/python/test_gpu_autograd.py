"""croqjit.torch.custom_op(..., backward=...): the op's gradients reach torch
autograd (checked by torch.autograd.gradcheck in f64 against finite
differences), from gradient kernels or from a Python function, eagerly and
inside torch.compile; what cannot be differentiated is refused by name."""

import itertools

import pytest

import croqjit
from kernels import SCALE

pytestmark = pytest.mark.gpu
_names = itertools.count()

# `T` is replaced by an element type.
MUL = """__co__ T [N] mul(T [N] x, T [N] y) {
  T [x.span] output;
  parallel i by N
    output.at(i) = x.at(i) * y.at(i);
  return output;
}
"""

# d(x * y)/dx = grad_out * y (and the same with x for y).
GRAD_OF_X = """__co__ T [N] mul_grad_x(T [N] y, T [N] grad_out) {
  T [y.span] output;
  parallel i by N
    output.at(i) = grad_out.at(i) * y.at(i);
  return output;
}
"""
GRAD_OF_Y = GRAD_OF_X.replace("mul_grad_x", "mul_grad_y").replace("T [N] y,", "T [N] x,") \
    .replace("y.span", "x.span").replace("* y.at", "* x.at")

SCALED = """__co__ f32 [N] scaled(f32 [N] x, float factor) {
  f32 [x.span] output;
  parallel i by N
    output.at(i) = x.at(i) * factor;
  return output;
}
"""
SCALED_GRAD = """__co__ f32 [N] scaled_grad(f32 [N] grad_out, float factor) {
  f32 [grad_out.span] output;
  parallel i by N
    output.at(i) = grad_out.at(i) * factor;
  return output;
}
"""


def op_name(stem):
    return f"croqjit_autograd_test::{stem}_{next(_names)}"


def typed(source, dtype="f64"):
    return croqjit.compile(source.replace("T [", f"{dtype} ["))


def mul_with_kernels(dtype="f64"):
    return croqjit.torch.custom_op(op_name("mul"), typed(MUL, dtype),
                                   backward={"x": typed(GRAD_OF_X, dtype), "y": typed(GRAD_OF_Y, dtype)})


def leaves(torch, n, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return [torch.randn(n, device="cuda", dtype=dtype, generator=g).requires_grad_() for _ in range(2)]


def test_gradient_kernels_pass_gradcheck(torch):
    mul = mul_with_kernels()
    x, y = leaves(torch, 37, torch.float64, 1)
    assert torch.autograd.gradcheck(mul, (x, y), eps=1e-6, atol=1e-8)
    # and the gradients are the ones autograd gives x * y
    weights = torch.randn(37, device="cuda", dtype=torch.float64)
    (mul(x, y) * weights).sum().backward()
    gx, gy = x.grad.clone(), y.grad.clone()
    x.grad = y.grad = None
    (x * y * weights).sum().backward()
    torch.testing.assert_close(gx, x.grad, rtol=0, atol=0)
    torch.testing.assert_close(gy, y.grad, rtol=0, atol=0)


def test_python_backward_calling_ops(torch):
    plain = croqjit.torch.custom_op(op_name("mul_plain"), typed(MUL))
    calls = []

    def backward(inputs, out, grad_out):
        calls.append(tuple(out.shape))
        return plain(grad_out, inputs.y), plain(grad_out, inputs.x)

    mul = croqjit.torch.custom_op(op_name("mul_py"), typed(MUL), backward=backward)
    x, y = leaves(torch, 300, torch.float64, 2)
    assert torch.autograd.gradcheck(mul, (x, y), eps=1e-6, atol=1e-8)
    assert calls and calls[0] == (300,)


def test_backward_inside_torch_compile(torch):
    mul = mul_with_kernels("f32")

    @torch.compile(fullgraph=True)
    def loss(x, y):
        return (mul(x, y) * 2 + x).square().mean()

    for n in (64, 64, 1000):
        x, y = leaves(torch, n, torch.float32, n)
        loss(x, y).backward()
        gx, gy = x.grad.clone(), y.grad.clone()
        x.grad = y.grad = None
        ((x * y * 2 + x).square().mean()).backward()
        torch.testing.assert_close(gx, x.grad, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(gy, y.grad, rtol=1e-5, atol=1e-6)


def test_scalar_parameters_have_no_gradient(torch):
    op = croqjit.torch.custom_op(op_name("scaled"), croqjit.compile(SCALED),
                                 backward={"x": croqjit.compile(SCALED_GRAD)})
    x = torch.randn(513, device="cuda").requires_grad_()
    weights = torch.randn(513, device="cuda")
    (op(x, 2.5) * weights).sum().backward()
    torch.testing.assert_close(x.grad, weights * 2.5, rtol=1e-6, atol=0)


def test_what_cannot_be_differentiated_is_refused(torch):
    mul, grad_x = typed(MUL), typed(GRAD_OF_X)
    cases = [
        (dict(backward={"z": grad_x}), r"backward names 'z', which is not a parameter of the forward \(x, y\)"),
        (dict(backward={"x": "kernel"}), r"the gradient of 'x' must be a croqjit Kernel, got str"),
        (dict(backward={"x": typed(MUL)}), None),  # parameters x, y: named after the forward's, accepted
        (dict(backward={"x": croqjit.compile(SCALED_GRAD)}),
         r"gradient kernel `scaled_grad` of 'x' has parameters factor; its parameters must be named after"),
        (dict(backward=42), r"backward must be a dict \{parameter: croqjit Kernel\} or a function"),
    ]
    for kwargs, message in cases:
        if message is None:
            croqjit.torch.custom_op(op_name("mul_ok"), mul, **kwargs)
            continue
        with pytest.raises(croqjit.ArgumentError, match=message):
            croqjit.torch.custom_op(op_name("mul_bad"), mul, **kwargs)
    with pytest.raises(croqjit.ArgumentError, match=r"backward names 'factor', a scalar parameter"):
        croqjit.torch.custom_op(op_name("scaled_bad"), croqjit.compile(SCALED),
                                backward={"factor": croqjit.compile(SCALED_GRAD)})
    with pytest.raises(croqjit.ArgumentError, match=r"mutates its arguments \(y\) cannot have a backward"):
        croqjit.torch.custom_op(op_name("scale_bad"), croqjit.compile(SCALE), mutates_args=("y",),
                                backward=lambda *a: None)
    with pytest.raises(croqjit.ArgumentError, match=r"returns nothing, so it has no result to differentiate"):
        croqjit.torch.custom_op(op_name("scale_bad"), croqjit.compile(SCALE), backward=lambda *a: None)


def test_wrong_gradients_from_a_python_backward_are_named(torch):
    x, y = leaves(torch, 16, torch.float64, 3)
    wrong = [
        (lambda i, o, g: (g,), r"backward returned 1 gradients, the forward has 2 parameters \(x, y\)"),
        (lambda i, o, g: {"w": g}, r"backward returned gradients for w, which are not parameters"),
        (lambda i, o, g: {"x": g[:8]}, r"the gradient of 'x' has shape \[8\], its input \[16\]"),
        (lambda i, o, g: g, r"backward must return a dict \{parameter: gradient\} or a tuple, got Tensor"),
    ]
    for backward, message in wrong:
        op = croqjit.torch.custom_op(op_name("mul_wrong"), typed(MUL), backward=backward)
        with pytest.raises(croqjit.ArgumentError, match=message):
            op(x, y).sum().backward()
