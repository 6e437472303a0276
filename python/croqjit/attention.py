"""croqjit.attention: the attention samples' Croqtile kernels as one torch op
with a backward, for training.

    from croqjit.attention import attention
    out = attention(q, k, v, causal=True)    # q [B, H, S, D], k and v [B, H, T, D]
    out.sum().backward()                      # dq, dk, dv from the Croqtile backward

The forward is samples/attention_source.hpp's flash attention, in the
variant that also writes each row's log-sum-exp; the backward is
samples/attention_backward_source.hpp's program (delta, dK and dV per key
tile, dQ per query tile), which recomputes the probabilities from that
log-sum-exp. Both are registered as torch custom ops
(``croqjit.torch.custom_op``, writing their outputs), and the
differentiable op ``croqjit::attention`` returns the output and the
log-sum-exp, saved for the backward (register_autograd), so it works in
eager autograd, ``torch.autograd.gradcheck``-style checks and
``torch.compile``.

f16 and bf16, head dims 64 and 128, any sequence lengths. ``causal``
aligns the last query with the last key (query i sees keys j <= i + T - S,
FlashAttention-2's convention); torch's ``is_causal`` aligns the first with
the first, so the two agree where S == T. ``scale`` other than
1/sqrt(D) scales q by ``scale * sqrt(D)`` first (a torch multiply that
autograd differentiates). CUDA tensors run on the GPU; CPU tensors run the
same kernels in interpret mode (slow: small shapes, for tests).
"""

import functools
import math
from typing import Optional

import torch

from ._croqjit import ArgumentError, _attention_source, compile as _compile
from .torch import custom_op

__all__ = ["attention"]

_ELEMENTS = {torch.float16: "f16", torch.bfloat16: "bf16"}
_HEAD_DIMS = (64, 128)


@functools.lru_cache(maxsize=None)
def _kernel_ops(element: str, head_dim: int, interpret: bool):
    """The forward (o, lse written) and backward (dq, dk, dv written) custom
    ops for one element type and head dim; interpret: the CPU's."""
    options = dict(interpret=True, arch="sm_90a") if interpret else {}
    where = "cpu" if interpret else "cuda"
    forward = _compile(_attention_source("forward_lse", element, head_dim), **options)
    backward = _compile(_attention_source("backward", element, head_dim), **options)
    stem = f"croqjit::attention_{element}_d{head_dim}_{where}"
    return (custom_op(f"{stem}_forward", forward, mutates_args=("o", "lse"), device_types=where),
            custom_op(f"{stem}_backward", backward, mutates_args=("dq", "dk", "dv"), device_types=where))


def _lse_shape(q: torch.Tensor) -> list:
    return [q.shape[0], q.shape[1], q.shape[2], 8]


def _ops_for(q: torch.Tensor):
    return _kernel_ops(_ELEMENTS[q.dtype], q.shape[-1], q.device.type == "cpu")


@torch.library.custom_op("croqjit::attention", mutates_args=())
def _attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> tuple[torch.Tensor, torch.Tensor]:
    o = torch.empty_like(q)
    lse = q.new_empty(_lse_shape(q), dtype=torch.float32)
    _ops_for(q)[0](q, k, v, o, lse, causal)
    return o, lse


@_attention.register_fake
def _(q, k, v, causal):
    return torch.empty_like(q), q.new_empty(_lse_shape(q), dtype=torch.float32)


@torch.library.custom_op("croqjit::attention_backward", mutates_args=())
def _attention_backward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor, grad_out: torch.Tensor,
                        lse: torch.Tensor, causal: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    _ops_for(q)[1](q, k, v, o, grad_out, lse, dq, dk, dv, causal)
    return dq, dk, dv


@_attention_backward.register_fake
def _(q, k, v, o, grad_out, lse, causal):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def _setup_context(ctx, inputs, output):
    q, k, v, causal = inputs
    o, lse = output
    ctx.mark_non_differentiable(lse)
    ctx.save_for_backward(q, k, v, o, lse)
    ctx.causal = causal


def _backward(ctx, grad_out, grad_lse):
    q, k, v, o, lse = ctx.saved_tensors
    dq, dk, dv = _attention_backward(q, k, v, o, grad_out.contiguous(), lse, ctx.causal)
    return dq, dk, dv, None


_attention.register_autograd(_backward, setup_context=_setup_context)


def _check(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        raise ArgumentError(f"attention takes q, k and v of rank 4 ([B, H, S, D], [B, H, T, D]), got ranks "
                            f"{q.dim()}, {k.dim()} and {v.dim()}")
    if not (q.dtype == k.dtype == v.dtype) or q.dtype not in _ELEMENTS:
        raise ArgumentError(f"attention takes q, k and v all float16 or all bfloat16, got {q.dtype}, {k.dtype} and "
                            f"{v.dtype}")
    if q.shape[-1] not in _HEAD_DIMS:
        raise ArgumentError(f"attention takes head dims {' and '.join(map(str, _HEAD_DIMS))}, got {q.shape[-1]}")
    if k.shape != v.shape or k.shape[:2] != q.shape[:2] or k.shape[-1] != q.shape[-1]:
        raise ArgumentError(f"attention takes q [B, H, S, D] and k, v [B, H, T, D], got {list(q.shape)}, "
                            f"{list(k.shape)} and {list(v.shape)}")
    if not (q.device == k.device == v.device):
        raise ArgumentError(f"attention takes q, k and v on one device, got {q.device}, {k.device} and {v.device}")


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, causal: bool = False,
              scale: Optional[float] = None) -> torch.Tensor:
    """softmax(q kᵀ scale) v per head (scale: 1/sqrt(D) by default), as
    torch's scaled_dot_product_attention, differentiable in q, k and v;
    ``causal`` masks keys past each query's diagonal, aligned to the last
    key (the same as ``is_causal`` where S == T)."""
    _check(q, k, v)
    head_dim = q.shape[-1]
    if scale is not None and scale != 1 / math.sqrt(head_dim):
        q = q * (scale * math.sqrt(head_dim))
    return _attention(q.contiguous(), k.contiguous(), v.contiguous(), bool(causal))[0]
