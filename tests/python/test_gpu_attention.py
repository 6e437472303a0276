"""croqjit.attention on the GPU: the forward and the gradients of q, k and
v (the samples' Croqtile kernels) against torch's autograd of
scaled_dot_product_attention (math backend, in f32 from the same inputs),
for every configuration (f16 and bf16, head dims 64 to 256 in steps of
32, causal or not, tails, more keys than queries); grouped key/value heads (GQA, MQA); packed sequences of variable lengths
(attention_varlen); inside torch.compile; a custom scale.
"""

import math

import pytest

pytestmark = pytest.mark.gpu

HEAD_DIMS = (64, 96, 128, 160, 192, 224, 256)
CONFIGS = [(dtype, d, causal) for dtype in ("float16", "bfloat16") for d in HEAD_DIMS for causal in (False, True)]
# (B, H, S, T): tails in every tile; T > S.
SHAPES = [(2, 3, 300, 300), (1, 2, 200, 328)]
# (B, H, H_kv, S, T): GQA with tails, MQA with more keys than queries,
# decoding's one query.
GROUPED = [(1, 8, 2, 300, 300), (2, 4, 1, 200, 328), (2, 4, 1, 1, 300)]


def reference(torch, q, k, v, causal, scale=None):
    """SDPA's math backend in f32, causal aligned to the last key (torch's
    lower-right causal bias; is_causal where S == T), k and v of fewer heads
    shared by groups of query heads (enable_gqa)."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.attention.bias import causal_lower_right

    q, k, v = (t.detach().float().requires_grad_() for t in (q, k, v))
    mask = causal_lower_right(q.shape[-2], k.shape[-2]) if causal else None
    with sdpa_kernel(SDPBackend.MATH):
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale,
                                             enable_gqa=k.shape[-3] != q.shape[-3])
    return out, (q, k, v)


def close(torch, got, want, what, slack=1.0):
    """attention_check.hpp's bound, with dP and dS rounded too: relative
    Frobenius error <= 2e-2, every element within 0.05 rms + 2e-2 |want|,
    times `slack` where the op rounds more than one kernel does (see
    gradient_slack)."""
    got, want = got.detach().double(), want.detach().double()
    rel = float((got - want).norm() / want.norm())
    rms = float(want.norm()) / math.sqrt(want.numel())
    ratio = float(((got - want).abs() / (slack * (0.05 * rms + 2e-2 * want.abs()))).max())
    assert torch.isfinite(got).all(), f"{what}: non-finite elements"
    assert rel <= 2e-2 and ratio <= 1, f"{what}: relative error {rel:.3e}, worst element {ratio:.3f} of its bound"


def leaves(torch, dtype, b, h, s, t, d, seed, h_kv=None):
    g = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn(b, h, s, d, device="cuda", dtype=dtype, generator=g)
    k = torch.randn(b, h_kv or h, t, d, device="cuda", dtype=dtype, generator=g)
    v = torch.randn(b, h_kv or h, t, d, device="cuda", dtype=dtype, generator=g)
    dout = torch.randn(b, h, s, d, device="cuda", dtype=dtype, generator=g)
    return [x.requires_grad_() for x in (q, k, v)], dout


@pytest.mark.parametrize("dtype,d,causal", CONFIGS, ids=[f"{t}-D{d}-{'causal' if c else 'full'}" for t, d, c in CONFIGS])
def test_forward_and_gradients_match_sdpa(torch, dtype, d, causal):
    """Every shape of SHAPES (H_kv = H) and GROUPED (GQA, MQA)."""
    from croqjit.attention import attention

    for b, h, h_kv, s, t in [(b, h, h, s, t) for b, h, s, t in SHAPES] + GROUPED:
        (q, k, v), dout = leaves(torch, getattr(torch, dtype), b, h, s, t, d, seed=b + h + h_kv + s + t + d, h_kv=h_kv)
        out = attention(q, k, v, causal=causal)
        out.backward(dout)
        want, want_leaves = reference(torch, q, k, v, causal)
        want.backward(dout.float())
        what = f"{dtype} D={d} {'causal' if causal else 'non-causal'} B={b} H={h} H_kv={h_kv} S={s} T={t}"
        close(torch, out, want, f"{what} out")
        for name, got, ref in zip("qkv", (q, k, v), want_leaves):
            close(torch, got.grad, ref.grad, f"{what} d{name}", gradient_slack(dtype, d, h // h_kv, name))


def gradient_slack(dtype, d, group, name):
    """In bf16 (8 bits of mantissa) the op rounds more than one kernel: a
    grouped key/value head's gradient is the sum of its `group` query heads'
    gradients, each rounded to bf16 by the kernel; at a head dim the
    program lacks (96, 160, 192, 224) the backward runs at the next one W
    on q scaled by sqrt(W/D) and scales dq back (two more roundings). On an
    H200 those reached 1.01x (dv, 4 heads a group) and 1.21x (dq, D=96) of
    the one-kernel bound."""
    if dtype != "bfloat16":
        return 1.0
    slack = float(group) if name in "kv" else 1.0
    return max(slack, 1.5) if d not in (64, 128, 256) else slack


@pytest.mark.parametrize("dtype,d,causal", CONFIGS, ids=[f"{t}-D{d}-{'causal' if c else 'full'}" for t, d, c in CONFIGS])
def test_packed_sequences_forward_and_gradients_match_sdpa_per_sequence(torch, dtype, d, causal):
    """Sequences of 300, 1, 129 and 200 queries (317, 40, 129 and 330 keys:
    a causal row that saw no key would be NaN) packed, 4 query heads on 2
    key/value heads: each against SDPA alone, the gradients from one call of
    the packed backward program (with the dense test's slack: the same
    roundings)."""
    from croqjit.attention import attention_varlen

    lengths_q, lengths_k, h, h_kv = [300, 1, 129, 200], [317, 40, 129, 330], 4, 2
    g = torch.Generator(device="cuda").manual_seed(d)
    element = getattr(torch, dtype)
    q, dout = (torch.randn(sum(lengths_q), h, d, device="cuda", dtype=element, generator=g) for _ in range(2))
    k, v = (torch.randn(sum(lengths_k), h_kv, d, device="cuda", dtype=element, generator=g) for _ in range(2))
    cu_q, cu_k = (torch.tensor([0] + lengths, device="cuda").cumsum(0).to(torch.int32) for lengths in (lengths_q, lengths_k))
    for x in (q, k, v):
        x.requires_grad_()
    out = attention_varlen(q, k, v, cu_q, cu_k, max(lengths_q), max(lengths_k), causal=causal)
    out.backward(dout)
    for b in range(len(lengths_q)):
        rows_q, rows_k = slice(int(cu_q[b]), int(cu_q[b + 1])), slice(int(cu_k[b]), int(cu_k[b + 1]))
        heads_first = [x[rows].transpose(0, 1).unsqueeze(0) for x, rows in ((q, rows_q), (k, rows_k), (v, rows_k))]
        want, want_leaves = reference(torch, *heads_first, causal)
        want.backward(dout[rows_q].transpose(0, 1).unsqueeze(0).float())
        what = f"{dtype} D={d} {'causal' if causal else 'non-causal'} sequence {b}"
        close(torch, out[rows_q].transpose(0, 1).unsqueeze(0), want, f"{what} out")
        for name, x, rows, ref in zip("qkv", (q, k, v), (rows_q, rows_k, rows_k), want_leaves):
            close(torch, x.grad[rows].transpose(0, 1).unsqueeze(0), ref.grad, f"{what} d{name}",
                  gradient_slack(dtype, d, h // h_kv, name))


def test_inside_torch_compile_and_with_a_scale(torch):
    from croqjit.attention import attention

    (q, k, v), dout = leaves(torch, torch.bfloat16, 2, 4, 256, 256, 64, seed=5)

    @torch.compile(fullgraph=True)
    def step(q, k, v):
        return (attention(q, k, v, causal=True, scale=0.1) * dout).sum()

    step(q, k, v).backward()
    want, want_leaves = reference(torch, q, k, v, True, scale=0.1)
    (want * dout.float()).sum().backward()
    for name, got, ref in zip("qkv", (q, k, v), want_leaves):
        close(torch, got.grad, ref.grad, f"compiled d{name}")


def test_what_attention_cannot_take_is_named(torch):
    import croqjit
    from croqjit.attention import attention

    q = torch.randn(1, 2, 64, 64, device="cuda", dtype=torch.float16)
    cases = [
        ((q[0], q, q), r"rank 4"),
        ((q.float(), q.float(), q.float()), r"all float16 or all bfloat16, got torch.float32"),
        ((q[..., :32], q[..., :32], q[..., :32]), r"head dims 64, 96, 128, 160, 192, 224 and 256, got 32"),
        ((q[:, :1], q, q), r"q \[B, H, S, D\] and k, v \[B, H_kv, T, D\] with H_kv dividing H"),
    ]
    for args, message in cases:
        with pytest.raises(croqjit.ArgumentError, match=message):
            attention(*args)
