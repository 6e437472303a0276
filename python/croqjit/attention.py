"""croqjit.attention: the attention samples' Croqtile kernels as torch ops
with a backward, for training.

    from croqjit.attention import attention, attention_varlen
    out = attention(q, k, v, causal=True)    # q [B, H, S, D], k and v [B, H_kv, T, D]
    out.sum().backward()                      # dq, dk, dv from the Croqtile backward
    out = attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k)
                                              # packed q [total_q, H, D], k and v [total_k, H_kv, D]

The forward is samples/attention_source.hpp's flash attention, in the
variant that also writes each row's log-sum-exp (grouped when H_kv < H);
the backward is samples/attention_backward_source.hpp's program (delta,
dK, dV and dQ's atomic shares per key tile, dQ converted), which recomputes the
probabilities from that log-sum-exp. Both are registered as torch custom
ops (``croqjit.torch.custom_op``, writing their outputs), and the
differentiable op ``croqjit::attention`` returns the output and the
log-sum-exp, saved for the backward (register_autograd), so it works in
eager autograd, ``torch.autograd.gradcheck``-style checks and
``torch.compile``.
attention_varlen's forward is the sample's packed kernel, writing the
log-sum-exp too, and its backward the packed backward program: one call
over every sequence, which finds its sequence from the offsets on the
device.

f16 and bf16; head dims 64 to 256 in steps of 32, forward and backward
(the backward's program is written for 64, 128 and 256, above 128 in
tiles of 64 rows that fit an H100/H200's shared memory; the head dims
between run at the next on operands padded with zero columns); any
sequence lengths.
Grouped-query attention (GQA, MQA): k and v with H_kv heads, H_kv dividing
H, query head h reading key/value head h // (H / H_kv) (torch SDPA's
``enable_gqa``); its backward runs the backward program on k and v
repeated per query head and sums each group's dK and dV. ``causal``
aligns the last query with the last key (query i sees keys j <= i + T - S,
FlashAttention-2's convention); torch's ``is_causal`` aligns the first
with the first, so the two agree where S == T. ``scale`` other than
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

__all__ = ["attention", "attention_varlen", "HEAD_DIMS", "BACKWARD_HEAD_DIMS"]

_ELEMENTS = {torch.float16: "f16", torch.bfloat16: "bf16"}
# The forward's head dims (those of the sample's forward that also writes
# the log-sum-exp) and the backward's: the program's own (64, 128 and 256)
# and those between, run at the next on operands padded with zero columns
# (see _backward_kernels).
HEAD_DIMS = tuple(range(64, 257, 32))
BACKWARD_HEAD_DIMS = HEAD_DIMS
_PROGRAM_HEAD_DIMS = (64, 128, 256)
# What each kind of kernel writes (its custom op's mutated arguments).
_WRITTEN = {"forward_lse": ("o", "lse"), "varlen_lse": ("o", "lse"), "backward": ("dq", "dk", "dv"),
            "varlen_backward": ("dq", "dk", "dv")}


@functools.lru_cache(maxsize=None)
def _kernel_op(kind: str, element: str, head_dim: int, grouped: bool, interpret: bool):
    """The custom op of one sample kernel ('forward_lse', 'varlen_lse',
    'backward' or 'varlen_backward') for one element type and head dim;
    interpret: the CPU's."""
    options = dict(interpret=True, arch="sm_90a") if interpret else {}
    where = "cpu" if interpret else "cuda"
    kernel = _compile(_attention_source(kind, element, head_dim, grouped), **options)
    name = f"croqjit::attention_{kind}_{element}_d{head_dim}{'_grouped' if grouped else ''}_{where}"
    return custom_op(name, kernel, mutates_args=_WRITTEN[kind], device_types=where)


def _op_for(kind: str, q: torch.Tensor, grouped: bool = False):
    return _kernel_op(kind, _ELEMENTS[q.dtype], q.shape[-1], grouped, q.device.type == "cpu")


def _at_program_width(run, q, k, v, o, grad_out) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """run(q, k, v, o, grad_out) -> (dq, dk, dv) at the backward program's
    head dim: a head dim D it lacks (96, 160, 192, 224) runs at the next one
    W it has, on zero-padded operands (head dim last): zero columns add
    nothing to the scores, dP or delta, and their gradients are dropped; q
    is scaled by sqrt(W / D) so that the program's 1/sqrt(W) gives the
    forward's scores (and its log-sum-exp holds), and dq by the same factor
    (the chain rule through that scaling)."""
    head_dim = q.shape[-1]
    width = min(w for w in _PROGRAM_HEAD_DIMS if w >= head_dim)
    if width == head_dim:
        return run(q, k, v, o, grad_out)
    widen = math.sqrt(width / head_dim)
    dq, dk, dv = run(*_padded_to(width, q * widen, k, v, o, grad_out))
    return dq[..., :head_dim] * widen, dk[..., :head_dim].contiguous(), dv[..., :head_dim].contiguous()


def _lse_shape(q: torch.Tensor) -> list:
    return [q.shape[0], q.shape[1], q.shape[2], 8]


# A sequence of one query or one key: the kernels' head views
# (`x.subspan(1, 1, S, D).at(b, h, 0, 0).sqz()`) would squeeze that
# dimension away too (libcroqjit's lowering drops every leading extent-1
# dimension of the specialization), so the kernels get two rows instead.
# One query: a zero query row after it, its output dropped; causal makes no
# difference then (the last query sees every key). One key: given twice,
# the same softmax (two equal scores share the weight; the log-sum-exp the
# backward reads is that of the two), its two gradients summed. Causal
# attention with one key and several queries leaves rows that see no key,
# which the duplicate key would change: attention refuses it.
def _one_query_padded(t: torch.Tensor, s: int) -> torch.Tensor:
    return torch.cat([t, t.new_zeros(t.shape[:2] + (1,) + t.shape[3:])], dim=2) if s == 1 else t


def _one_key_twice(t: torch.Tensor) -> torch.Tensor:
    return torch.cat([t, t], dim=2) if t.shape[2] == 1 else t


def _forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> tuple[torch.Tensor, torch.Tensor]:
    s = q.shape[2]
    q, k, v = _one_query_padded(q, s), _one_key_twice(k), _one_key_twice(v)
    o = torch.empty_like(q)
    lse = q.new_empty(_lse_shape(q), dtype=torch.float32)
    _op_for("forward_lse", q, grouped=k.shape[1] != q.shape[1])(q, k, v, o, lse, causal and s > 1)
    return (o[:, :, :1].contiguous(), lse[:, :, :1].contiguous()) if s == 1 else (o, lse)


def _padded_to(width: int, *tensors: torch.Tensor) -> list:
    return [torch.nn.functional.pad(t, (0, width - t.shape[-1])) for t in tensors]


def _backward_kernels(q, k, v, o, grad_out, lse, causal) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """dq, dk, dv from the backward program (at its head dims:
    _at_program_width). Grouped k and v (fewer heads than q) are repeated
    per query head for it, and each group's dK and dV summed: the gradient
    of that repeat."""
    return _at_program_width(lambda *operands: _dense_backward(*operands, lse, causal), q, k, v, o, grad_out)


def _dense_backward(q, k, v, o, grad_out, lse, causal) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    s, t, groups = q.shape[2], k.shape[2], q.shape[1] // k.shape[1]
    q, o, grad_out, lse = (_one_query_padded(x, s) for x in (q, o, grad_out, lse))
    k, v = _one_key_twice(k), _one_key_twice(v)
    if groups > 1:
        k, v = (x.repeat_interleave(groups, dim=1) for x in (k, v))
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    _op_for("backward", q)(q, k, v, o, grad_out, lse, dq, dk, dv, causal and s > 1)
    if groups > 1:
        dk, dv = (x.unflatten(1, (-1, groups)).sum(2) for x in (dk, dv))
    if t == 1:
        dk, dv = (x.sum(2, keepdim=True) for x in (dk, dv))
    return (dq[:, :, :1].contiguous() if s == 1 else dq), dk, dv


@torch.library.custom_op("croqjit::attention", mutates_args=())
def _attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> tuple[torch.Tensor, torch.Tensor]:
    return _forward(q, k, v, causal)


@_attention.register_fake
def _(q, k, v, causal):
    return torch.empty_like(q), q.new_empty(_lse_shape(q), dtype=torch.float32)


@torch.library.custom_op("croqjit::attention_backward", mutates_args=())
def _attention_backward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor, grad_out: torch.Tensor,
                        lse: torch.Tensor, causal: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return _backward_kernels(q, k, v, o, grad_out, lse, causal)


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


def _names(values) -> str:
    values = [str(v) for v in values]
    return ", ".join(values[:-1]) + " and " + values[-1] if len(values) > 1 else values[0]


def _check_tensors(what: str, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, rank: int, layout: str) -> None:
    """What attention and attention_varlen check alike: ranks, element
    types, head dim, devices, and k, v of one shape whose heads divide q's
    (the heads are axis 1 and the head dim last in both layouts)."""
    if q.dim() != rank or k.dim() != rank or v.dim() != rank:
        raise ArgumentError(f"{what} takes q, k and v of rank {rank} ({layout}), got ranks {q.dim()}, {k.dim()} and "
                            f"{v.dim()}")
    if not (q.dtype == k.dtype == v.dtype) or q.dtype not in _ELEMENTS:
        raise ArgumentError(f"{what} takes q, k and v all float16 or all bfloat16, got {q.dtype}, {k.dtype} and "
                            f"{v.dtype}")
    if q.shape[-1] not in HEAD_DIMS:
        raise ArgumentError(f"{what} takes head dims {_names(HEAD_DIMS)}, got {q.shape[-1]}")
    heads, kv_heads = q.shape[1], k.shape[1]
    if k.shape != v.shape or k.shape[-1] != q.shape[-1] or kv_heads == 0 or heads % kv_heads != 0:
        raise ArgumentError(f"{what} takes {layout} with H_kv dividing H, got {list(q.shape)}, {list(k.shape)} and "
                            f"{list(v.shape)}")
    if not (q.device == k.device == v.device):
        raise ArgumentError(f"{what} takes q, k and v on one device, got {q.device}, {k.device} and {v.device}")


def _scaled(q: torch.Tensor, scale: Optional[float]) -> torch.Tensor:
    """q scaled so that the kernels' 1/sqrt(D) gives `scale`."""
    head_dim = q.shape[-1]
    if scale is not None and scale != 1 / math.sqrt(head_dim):
        return q * (scale * math.sqrt(head_dim))
    return q


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, causal: bool = False,
              scale: Optional[float] = None) -> torch.Tensor:
    """softmax(q kᵀ scale) v per head (scale: 1/sqrt(D) by default), as
    torch's scaled_dot_product_attention (with ``enable_gqa`` where k and v
    have fewer heads), differentiable in q, k and v; ``causal`` masks keys
    past each query's diagonal, aligned to the last key (the same as
    ``is_causal`` where S == T)."""
    _check_tensors("attention", q, k, v, 4, "q [B, H, S, D] and k, v [B, H_kv, T, D]")
    if k.shape[0] != q.shape[0]:
        raise ArgumentError(f"attention takes q [B, H, S, D] and k, v [B, H_kv, T, D] of one batch B, got "
                            f"{list(q.shape)}, {list(k.shape)} and {list(v.shape)}")
    if causal and k.shape[2] == 1 and q.shape[2] > 1:
        raise ArgumentError(f"attention takes causal attention with one key (T = 1) only for one query, got "
                            f"S = {q.shape[2]}: its first S - 1 rows see no key")
    return _attention(_scaled(q, scale).contiguous(), k.contiguous(), v.contiguous(), bool(causal))[0]



# Packed sequences of variable lengths (FlashAttention's varlen API). The
# kernel takes the heads first ([H, total, D]); the op transposes around it.
def _heads_first(t: torch.Tensor) -> torch.Tensor:
    return t.transpose(0, 1).contiguous()


def _packed_for_kernel(t: torch.Tensor) -> torch.Tensor:
    """[total, H, D] as the kernel's [H, total, D]; one row gets a zero row
    after it, of no sequence (the kernel's head views would squeeze a
    total of 1 away, as the dense ones a sequence of 1)."""
    return _heads_first(torch.cat([t, torch.zeros_like(t)]) if t.shape[0] == 1 else t)


def _packed_lse_shape(q: torch.Tensor) -> list:
    """The packed forward's log-sum-exp: [H, rows, 8] in the kernel's rows
    (one more for a total of 1, see _packed_for_kernel)."""
    return [q.shape[1], max(q.shape[0], 2), 8]


@torch.library.custom_op("croqjit::attention_varlen", mutates_args=())
def _attention_varlen(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens_q: torch.Tensor,
                      cu_seqlens_k: torch.Tensor, causal: bool) -> tuple[torch.Tensor, torch.Tensor]:
    q_h, k_h, v_h = (_packed_for_kernel(t) for t in (q, k, v))
    o_h = torch.empty_like(q_h)
    lse = q.new_empty(_packed_lse_shape(q), dtype=torch.float32)
    _op_for("varlen_lse", q, grouped=True)(q_h, k_h, v_h, o_h, lse, cu_seqlens_q, cu_seqlens_k, causal)
    return o_h[:, :q.shape[0]].transpose(0, 1).contiguous(), lse


@_attention_varlen.register_fake
def _(q, k, v, cu_seqlens_q, cu_seqlens_k, causal):
    return q.new_empty(q.shape), q.new_empty(_packed_lse_shape(q), dtype=torch.float32)


@torch.library.custom_op("croqjit::attention_varlen_backward", mutates_args=())
def _attention_varlen_backward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
                               grad_out: torch.Tensor, lse: torch.Tensor, cu_seqlens_q: torch.Tensor,
                               cu_seqlens_k: torch.Tensor,
                               causal: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The packed backward program over every sequence at once (it reads
    the offsets on the device), at its head dims (_at_program_width); k and
    v repeated per query head for it and each group's dK and dV summed, as
    the dense backward does. Rows of no sequence get zeros."""
    total_q, total_k, groups = q.shape[0], k.shape[0], q.shape[1] // k.shape[1]

    def run(q, k, v, o, grad_out):
        q_h, o_h, grad_h = (_packed_for_kernel(t) for t in (q, o, grad_out))
        k_h, v_h = (_packed_for_kernel(t).repeat_interleave(groups, dim=0) for t in (k, v))
        dq, dk, dv = (torch.zeros_like(t) for t in (q_h, k_h, v_h))
        _op_for("varlen_backward", q)(q_h, k_h, v_h, o_h, grad_h, lse, dq, dk, dv, cu_seqlens_q, cu_seqlens_k, causal)
        dk, dv = (t.unflatten(0, (-1, groups)).sum(1) for t in (dk, dv))
        return dq[:, :total_q].transpose(0, 1), dk[:, :total_k].transpose(0, 1), dv[:, :total_k].transpose(0, 1)

    return tuple(t.contiguous() for t in _at_program_width(run, q, k, v, o, grad_out))


@_attention_varlen_backward.register_fake
def _(q, k, v, o, grad_out, lse, cu_seqlens_q, cu_seqlens_k, causal):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def _setup_varlen_context(ctx, inputs, output):
    q, k, v, cu_seqlens_q, cu_seqlens_k, causal = inputs
    o, lse = output
    ctx.mark_non_differentiable(lse)
    ctx.save_for_backward(q, k, v, o, lse, cu_seqlens_q, cu_seqlens_k)
    ctx.causal = causal


def _varlen_backward(ctx, grad_out, grad_lse):
    q, k, v, o, lse, cu_seqlens_q, cu_seqlens_k = ctx.saved_tensors
    dq, dk, dv = _attention_varlen_backward(q, k, v, o, grad_out.contiguous(), lse, cu_seqlens_q, cu_seqlens_k,
                                            ctx.causal)
    return dq, dk, dv, None, None, None


_attention_varlen.register_autograd(_varlen_backward, setup_context=_setup_varlen_context)


def _check_offsets(q: torch.Tensor, cu_seqlens_q: torch.Tensor, cu_seqlens_k: torch.Tensor) -> None:
    for name, cu in (("cu_seqlens_q", cu_seqlens_q), ("cu_seqlens_k", cu_seqlens_k)):
        if not isinstance(cu, torch.Tensor) or cu.dim() != 1 or cu.dtype != torch.int32 or cu.numel() < 2:
            got = f"{cu.dtype} {list(cu.shape)}" if isinstance(cu, torch.Tensor) else type(cu).__name__
            raise ArgumentError(f"attention_varlen takes {name} as int32 [B + 1] offsets (B >= 1), got {got}")
        if cu.device != q.device:
            raise ArgumentError(f"attention_varlen takes {name} on q's device {q.device}, got {cu.device}")
    if cu_seqlens_q.numel() != cu_seqlens_k.numel():
        raise ArgumentError(f"attention_varlen takes cu_seqlens_q and cu_seqlens_k of one batch, got "
                            f"{cu_seqlens_q.numel() - 1} and {cu_seqlens_k.numel() - 1} sequences")


def attention_varlen(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens_q: torch.Tensor,
                     cu_seqlens_k: torch.Tensor, max_seqlen_q: int, max_seqlen_k: int, *, causal: bool = False,
                     scale: Optional[float] = None) -> torch.Tensor:
    """attention over a batch of sequences of different lengths, packed one
    after another, as FlashAttention's flash_attn_varlen_func: q [total_q,
    H, D], k and v [total_k, H_kv, D] (H_kv dividing H); sequence b's
    queries are rows cu_seqlens_q[b] to cu_seqlens_q[b + 1] - 1 and its keys
    those of cu_seqlens_k (int32 [B + 1], on q's device). Returns o
    [total_q, H, D]; ``causal`` aligns each sequence's last query with its
    last key. max_seqlen_q and max_seqlen_k are FlashAttention's arguments,
    taken for its signature: the kernels walk the offsets and need
    neither. Differentiable: the forward also writes each row's
    log-sum-exp, and the packed backward program recomputes every
    sequence's gradients from it in one call, reading the offsets on the
    device."""
    _check_tensors("attention_varlen", q, k, v, 3, "q [total_q, H, D] and k, v [total_k, H_kv, D]")
    _check_offsets(q, cu_seqlens_q, cu_seqlens_k)
    return _attention_varlen(_scaled(q, scale).contiguous(), k.contiguous(), v.contiguous(), cu_seqlens_q,
                             cu_seqlens_k, bool(causal))[0]
