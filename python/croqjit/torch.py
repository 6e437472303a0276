"""croqjit kernels as torch custom ops, so they work inside torch.compile.

    add = croqjit.compile(source)
    add_op = croqjit.torch.custom_op("mylib::add", add)
    torch.compile(lambda x, y: add_op(x, y) * 2)(x, y)

The op's schema comes from the kernel's declared parameters; its fake
(meta) implementation asks the kernel for the result's dtype and shape
(``Kernel.prepare`` on shapes only), so tracing needs no data and compiles
the kernel ahead of the first real call.

With ``backward=`` the op is differentiable (torch.library's
``register_autograd``): either one Croqtile kernel per input's gradient,

    mul_op = croqjit.torch.custom_op("mylib::mul", mul,
                                     backward={"x": mul_grad_x, "y": mul_grad_y})

whose parameters are named after the forward's parameters, ``out`` (the
forward's result) and ``grad_out`` (the gradient of the result), each
registered as a custom op of its own so that torch.compile traces the
backward too; or a Python function ``backward(inputs, out, grad_out)``
(``inputs``: the forward's arguments as attributes) returning a dict
{parameter: gradient} or a tuple with one entry per parameter.
"""

from __future__ import annotations

import inspect
from types import SimpleNamespace
from typing import Any, Callable, Iterable, Mapping, Sequence

import torch

from ._croqjit import ArgumentError, CallInfo, Kernel, ParamInfo, TensorSpec, _framework_dtype

__all__ = ["custom_op", "torch_dtype"]

_FLOAT_TYPES = {"f16", "bf16", "f32", "f64", "float", "double", "half", "tf32"}

def torch_dtype(croq_dtype: str) -> torch.dtype:
    """The torch dtype of a croq dtype name ("f32" -> torch.float32; tf32 ->
    torch.float32, its storage); ArgumentError naming the type where torch
    has none (croqjit.torch_dtype)."""
    return _framework_dtype(croq_dtype, "torch")


def _scalar_type(param: ParamInfo) -> tuple[type, str]:
    if param.type == "bool":
        return bool, "bool"
    if param.type in _FLOAT_TYPES:
        return float, "float"
    return int, "int"


def _schema(params: Sequence[ParamInfo], mutated: set[str], returns_tensor: bool) -> str:
    parts = []
    for index, p in enumerate(params):
        if p.is_tensor:
            parts.append(f"Tensor(a{index}!) {p.name}" if p.name in mutated else f"Tensor {p.name}")
        else:
            parts.append(f"{_scalar_type(p)[1]} {p.name}")
    return f"({', '.join(parts)}) -> {'Tensor' if returns_tensor else '()'}"


def _concrete(extent: Any, dynamic: bool) -> int:
    """A fake tensor's extent as the int the kernel specializes on. Static
    dims guard on their value (each is a specialization anyway); a dynamic
    dim's value does not change the kernel, so a symbolic one stays free."""
    if isinstance(extent, int):
        return extent
    if dynamic:
        hint = getattr(getattr(extent, "node", None), "hint", None)
        return hint if isinstance(hint, int) else 1
    return int(extent)


def custom_op(
    name: str,
    kernel: Kernel,
    *,
    mutates_args: Iterable[str] = (),
    device_types: str | Sequence[str] | None = "cuda",
    backward: Mapping[str, Kernel] | Callable | None = None,
):
    """Registers ``kernel`` as the torch custom op ``name`` ("namespace::op").

    The op takes the kernel's parameters (tensors, and ints / floats for its
    scalars) and returns its result tensor, or nothing. ``mutates_args``
    names the tensor parameters the kernel writes; a call whose kernel
    writes an undeclared one raises ArgumentError (torch.compile relies on
    the declaration). ``backward`` makes the op differentiable (see the
    module's text): {parameter: gradient kernel} or a Python function.
    Returns torch's CustomOpDef: call it like a function.
    """
    params = list(kernel.params)
    names = [p.name for p in params]
    mutated = set(mutates_args)
    for arg in mutated:
        if arg not in names:
            raise ArgumentError(f"mutates_args names {arg!r}, which is not a parameter of `{kernel.name}` ({', '.join(names)})")
        if not params[names.index(arg)].is_tensor:
            raise ArgumentError(f"mutates_args names {arg!r}, a scalar parameter; only tensors can be mutated")
    declared = {i for i, p in enumerate(params) if p.name in mutated}
    checked_signatures: set[tuple] = set()

    def check_writes(info: CallInfo) -> None:
        undeclared = [params[i].name for i, w in enumerate(info.written) if w and i not in declared]
        if undeclared:
            raise ArgumentError(
                f"custom op {name}: `{kernel.name}` writes {', '.join(undeclared)}, which mutates_args does not "
                f"declare; pass mutates_args={tuple(sorted(mutated | set(undeclared)))}"
            )

    def signature_of(args: tuple) -> tuple:
        return tuple((a.dtype, tuple(a.shape)) if isinstance(a, torch.Tensor) else type(a) for a in args)

    def run(*args):
        key = signature_of(args)
        if key not in checked_signatures:
            check_writes(kernel.prepare(*args))
            checked_signatures.add(key)
        return kernel(*args)

    def fake(*args):
        specs = []
        for p, a in zip(params, args):
            if not p.is_tensor or not isinstance(a, torch.Tensor):
                specs.append(a)
                continue
            dims = [_concrete(e, p.dynamic[d] if d < len(p.dynamic) else False) for d, e in enumerate(a.shape)]
            device = a.device.index if a.device.type == "cuda" else None
            if a.device.type == "cuda" and device is None:
                device = torch.cuda.current_device()
            specs.append(TensorSpec(dims, a.dtype, device))
        specs.extend(args[len(params):])
        info = kernel.prepare(*specs)
        check_writes(info)
        if not info.has_result:
            return None
        # Dynamic result dims are the arguments' (possibly symbolic) extents.
        shape = [
            args[source].shape[dim] if source >= 0 else extent
            for extent, (source, dim) in zip(info.result_shape, info.result_extent_sources)
        ]
        first = next(a for a in args if isinstance(a, torch.Tensor))
        return first.new_empty(shape, dtype=torch_dtype(info.result_dtype))

    annotations = [
        inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          annotation=torch.Tensor if p.is_tensor else _scalar_type(p)[0])
        for p in params
    ]
    run.__signature__ = inspect.Signature(annotations, return_annotation=torch.Tensor if kernel.returns_tensor else None)
    run.__name__ = run.__qualname__ = kernel.name
    run.__doc__ = f"croqjit kernel `{kernel.name}` as the custom op {name}"

    op = torch.library.custom_op(
        name,
        run,
        mutates_args=tuple(sorted(mutated)),
        device_types=device_types,
        schema=_schema(params, mutated, kernel.returns_tensor),
    )
    op.register_fake(fake)
    if backward is not None:
        _register_backward(op, name, kernel, params, mutated, backward, device_types)
    return op


# The names a gradient kernel's parameters may take besides the forward's.
_RESULT, _GRAD = "out", "grad_out"


def _register_backward(op, name: str, kernel: Kernel, params: Sequence[ParamInfo], mutated: set[str],
                       backward: Mapping[str, Kernel] | Callable, device_types) -> None:
    """register_autograd for ``op``: saves the tensor arguments and the
    result, and maps what ``backward`` returns to one gradient a parameter."""
    if mutated:
        raise ArgumentError(f"custom op {name}: an op that mutates its arguments ({', '.join(sorted(mutated))}) "
                            "cannot have a backward; return the result instead")
    if not kernel.returns_tensor:
        raise ArgumentError(f"custom op {name}: `{kernel.name}` returns nothing, so it has no result to differentiate")
    names = [p.name for p in params]
    if isinstance(backward, Mapping):
        gradient_of = _gradient_kernels(name, params, backward, device_types)
    elif callable(backward):
        gradient_of = backward
    else:
        raise ArgumentError(f"custom op {name}: backward must be a dict {{parameter: croqjit Kernel}} or a function "
                            f"backward(inputs, out, grad_out), got {type(backward).__name__}")
    tensors = [i for i, p in enumerate(params) if p.is_tensor]

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*(inputs[i] for i in tensors), output)
        ctx.scalars = {names[i]: inputs[i] for i, p in enumerate(params) if not p.is_tensor}

    def run_backward(ctx, grad_out):
        saved = ctx.saved_tensors
        values = dict(ctx.scalars)
        values.update({names[i]: saved[k] for k, i in enumerate(tensors)})
        inputs = SimpleNamespace(**{n: values[n] for n in names})
        grads = gradient_of(inputs, saved[-1], grad_out)
        return _gradients_in_order(name, params, values, grads)

    op.register_autograd(run_backward, setup_context=setup_context)


def _gradient_kernels(name: str, params: Sequence[ParamInfo], kernels: Mapping[str, Kernel], device_types) -> Callable:
    """backward(inputs, out, grad_out) calling one Croqtile kernel a gradient,
    each a custom op ("<name>_grad_<parameter>") so that traced backwards
    (torch.compile's AOTAutograd) see ops, not raw kernel calls."""
    names = [p.name for p in params]
    clash = [n for n in (_RESULT, _GRAD) if n in names]
    if clash:
        raise ArgumentError(f"custom op {name}: a gradient kernel's parameters `{_RESULT}` and `{_GRAD}` name the "
                            f"result and its gradient; rename the forward's parameter {', '.join(clash)}")
    ops = {}
    for target, grad_kernel in kernels.items():
        if target not in names:
            raise ArgumentError(f"custom op {name}: backward names {target!r}, which is not a parameter of the "
                                f"forward ({', '.join(names)})")
        if not params[names.index(target)].is_tensor:
            raise ArgumentError(f"custom op {name}: backward names {target!r}, a scalar parameter; "
                                "only tensors have gradients")
        if not isinstance(grad_kernel, Kernel):
            raise ArgumentError(f"custom op {name}: the gradient of {target!r} must be a croqjit Kernel, "
                                f"got {type(grad_kernel).__name__}")
        wanted = [p.name for p in grad_kernel.params]
        unknown = [n for n in wanted if n not in names and n not in (_RESULT, _GRAD)]
        if unknown:
            raise ArgumentError(f"custom op {name}: gradient kernel `{grad_kernel.name}` of {target!r} has parameters "
                                f"{', '.join(unknown)}; its parameters must be named after the forward's "
                                f"({', '.join(names)}), `{_RESULT}` or `{_GRAD}`")
        if not grad_kernel.returns_tensor:
            raise ArgumentError(f"custom op {name}: gradient kernel `{grad_kernel.name}` of {target!r} must return "
                                "the gradient")
        ops[target] = (custom_op(f"{name}_grad_{target}", grad_kernel, device_types=device_types), wanted)

    def backward(inputs, out, grad_out):
        values = {**vars(inputs), _RESULT: out, _GRAD: grad_out}
        return {target: grad_op(*(values[n] for n in wanted)) for target, (grad_op, wanted) in ops.items()}

    return backward


def _gradients_in_order(name: str, params: Sequence[ParamInfo], values: dict, grads) -> tuple:
    """One gradient per forward parameter (None for scalars and for tensors
    without one), each checked against its input's shape."""
    names = [p.name for p in params]
    if isinstance(grads, Mapping):
        unknown = [k for k in grads if k not in names]
        if unknown:
            raise ArgumentError(f"custom op {name}: backward returned gradients for {', '.join(map(str, unknown))}, "
                                f"which are not parameters ({', '.join(names)})")
        ordered = [grads.get(n) for n in names]
    elif isinstance(grads, (tuple, list)):
        if len(grads) != len(names):
            raise ArgumentError(f"custom op {name}: backward returned {len(grads)} gradients, the forward has "
                                f"{len(names)} parameters ({', '.join(names)})")
        ordered = list(grads)
    else:
        raise ArgumentError(f"custom op {name}: backward must return a dict {{parameter: gradient}} or a tuple, "
                            f"got {type(grads).__name__}")
    for p, g in zip(params, ordered):
        if g is None:
            continue
        if not p.is_tensor:
            raise ArgumentError(f"custom op {name}: backward returned a gradient for the scalar parameter {p.name!r}")
        if tuple(g.shape) != tuple(values[p.name].shape):
            raise ArgumentError(f"custom op {name}: the gradient of {p.name!r} has shape {list(g.shape)}, "
                                f"its input {list(values[p.name].shape)}")
    return tuple(ordered)
