"""croqjit kernels as torch custom ops, so they work inside torch.compile.

    add = croqjit.compile(source)
    add_op = croqjit.torch.custom_op("mylib::add", add)
    torch.compile(lambda x, y: add_op(x, y) * 2)(x, y)

The op's schema comes from the kernel's declared parameters; its fake
(meta) implementation asks the kernel for the result's dtype and shape
(``Kernel.prepare`` on shapes only), so tracing needs no data and compiles
the kernel ahead of the first real call.
"""

from __future__ import annotations

import inspect
from typing import Any, Iterable, Sequence

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
):
    """Registers ``kernel`` as the torch custom op ``name`` ("namespace::op").

    The op takes the kernel's parameters (tensors, and ints / floats for its
    scalars) and returns its result tensor, or nothing. ``mutates_args``
    names the tensor parameters the kernel writes; a call whose kernel
    writes an undeclared one raises ArgumentError (torch.compile relies on
    the declaration). Returns torch's CustomOpDef: call it like a function.
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
    return op
