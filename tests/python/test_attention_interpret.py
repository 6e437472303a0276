"""croqjit.attention on CPU tensors: the same Croqtile forward and backward
in interpret mode (no GPU), on small shapes with tails, against attention
computed by torch in float64 with its autograd: the dense op at head dims
64, 96, 160 and 256 (forward and backward), grouped key/value heads (GQA, MQA), one query or one
key, and packed sequences of variable lengths. Needs torch (CPU is
enough)."""

import math

import pytest

torch = pytest.importorskip("torch")

import croqjit  # noqa: E402
from croqjit.attention import attention, attention_varlen  # noqa: E402


def reference(q, k, v, causal, scale=None):
    """softmax(q kᵀ scale) v in float64 on [..., H, S, D] heads, k and v
    repeated per query head where they have fewer heads, causal aligned to
    the last key; leaves (float64, requiring grad) for the gradients."""
    wide = [t.detach().double().requires_grad_() for t in (q, k, v)]
    wq, wk, wv = wide
    groups = wq.shape[-3] // wk.shape[-3]
    wk, wv = (t.repeat_interleave(groups, dim=-3) for t in (wk, wv))
    s, t = wq.shape[-2], wk.shape[-2]
    scores = wq @ wk.transpose(-1, -2) * (scale if scale is not None else 1 / math.sqrt(wq.shape[-1]))
    if causal:
        scores = scores.masked_fill(torch.ones(s, t, dtype=torch.bool).triu(t - s + 1), float("-inf"))
    return torch.softmax(scores, dim=-1) @ wv, wide


def assert_close(got, want, what, bound=1e-2):
    """Relative Frobenius error within bound; against zeros (dq where each
    query sees one key), every element within bound."""
    got, want = got.detach().double(), want.detach()
    if not want.any():
        worst = float(got.abs().max())
        assert worst <= bound, f"{what}: {worst:.3e} where zeros are wanted"
        return
    rel = float((got - want).norm() / want.norm())
    assert rel <= bound, f"{what}: relative error {rel:.3e}"


def random(shape, dtype, generator):
    return torch.randn(*shape, generator=generator).to(dtype)


def check_dense(b, h, h_kv, s, t, d, causal, dtype=torch.float16, gradients=True, seed=3):
    g = torch.Generator().manual_seed(seed)
    q, dout = (random((b, h, s, d), dtype, g) for _ in range(2))
    k, v = (random((b, h_kv, t, d), dtype, g) for _ in range(2))
    what = f"B={b} H={h} H_kv={h_kv} S={s} T={t} D={d} {'causal' if causal else 'non-causal'}"
    leaves = [x.clone().requires_grad_(gradients) for x in (q, k, v)]
    out = attention(*leaves, causal=causal)
    want, wide = reference(q, k, v, causal)
    assert_close(out, want, f"{what} out")
    if gradients:
        out.backward(dout)
        want.backward(dout.double())
        for name, a, w in zip("qkv", leaves, wide):
            assert_close(a.grad, w.grad, f"{what} d{name}")


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_gradients_in_interpret_mode_match_float64_autograd(causal):
    check_dense(1, 1, 1, 80, 80, 64, causal)


@pytest.mark.parametrize("d,causal,heads", [(96, False, 2), (96, True, 1), (160, True, 1), (256, False, 1)])
def test_other_head_dims_forward_and_gradients_match_float64(d, causal, heads):
    """96 and 160: a last slab of 32 columns in the forward; the backward
    the program's at 128 and 256 on zero-padded operands. 256: 64-row key
    tiles and one output staging tile per consumer in the forward, and the
    backward's wide tiling (64-row block tiles, each consumer accumulating
    half of D's slabs)."""
    check_dense(1, heads, heads, 70, 90, d, causal)


@pytest.mark.parametrize("h,h_kv,causal", [(4, 2, False), (3, 1, True)], ids=["gqa", "mqa-causal"])
def test_grouped_key_value_heads_forward_and_gradients_match_float64(h, h_kv, causal):
    """k and v with fewer heads than q (enable_gqa's convention): query head
    i reads key/value head i // (H / H_kv); dK and dV sum over each group."""
    check_dense(1, h, h_kv, 70, 90, 64, causal, dtype=torch.bfloat16, seed=7)


def packed(lengths, heads, d, dtype, generator):
    return random((sum(lengths), heads, d), dtype, generator)


def offsets(lengths):
    return torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), dtype=torch.int32)


@pytest.mark.parametrize("causal,d", [(False, 64), (True, 64), (False, 96)], ids=["full", "causal", "full-D96"])
def test_packed_sequences_forward_and_gradients_match_each_sequence_in_float64(causal, d):
    """Three sequences (query lengths 30, 70, 1; key lengths 45, 90, 20:
    tails, more keys than queries; a causal row that saw no key would be
    NaN on both sides) of 2 query heads and one key/value head, each
    against its own reference; the gradients from one call of the packed
    backward program (at D = 96, the program's 128 on zero-padded
    operands). (Sequences of several query tiles: the C++ interpret tests
    of the sample and the GPU tests.)"""
    lengths_q, lengths_k, h, h_kv = [30, 70, 1], [45, 90, 20], 2, 1
    g = torch.Generator().manual_seed(11)
    q, dout = (packed(lengths_q, h, d, torch.float16, g) for _ in range(2))
    k, v = (packed(lengths_k, h_kv, d, torch.float16, g) for _ in range(2))
    cu_q, cu_k = offsets(lengths_q), offsets(lengths_k)
    leaves = [x.clone().requires_grad_() for x in (q, k, v)]
    out = attention_varlen(*leaves, cu_q, cu_k, max(lengths_q), max(lengths_k), causal=causal)
    out.backward(dout)
    assert out.shape == q.shape
    for b in range(len(lengths_q)):
        rows_q, rows_k = slice(int(cu_q[b]), int(cu_q[b + 1])), slice(int(cu_k[b]), int(cu_k[b + 1]))
        heads_first = [x.transpose(0, 1) for x in (q[rows_q], k[rows_k], v[rows_k])]
        want, wide = reference(*heads_first, causal)
        want.backward(dout[rows_q].transpose(0, 1).double())
        what = f"sequence {b} {'causal' if causal else 'non-causal'}"
        assert_close(out[rows_q].transpose(0, 1), want, f"{what} out")
        for name, a, w, rows in zip("qkv", leaves, wide, (rows_q, rows_k, rows_k)):
            assert_close(a.grad[rows].transpose(0, 1), w.grad, f"{what} d{name}")


@pytest.mark.parametrize("s,t,causal", [(1, 40, True), (1, 1, False), (30, 1, False)],
                         ids=["one-query-causal", "one-of-each", "one-key"])
def test_one_query_or_one_key_forward_and_gradients_match_float64(s, t, causal):
    """Decoding's one query, and one key: the kernels get two rows (a zero
    query after the one, the one key twice)."""
    check_dense(1, 2, 1, s, t, 64, causal, seed=s + t)


def test_one_packed_query_on_one_key_is_that_keys_value():
    """A batch of one sequence of one query and one key: totals of 1."""
    g = torch.Generator().manual_seed(17)
    q, k, v = (random((1, 2, 64), torch.float16, g).requires_grad_() for _ in range(3))
    cu = torch.tensor([0, 1], dtype=torch.int32)
    out = attention_varlen(q, k, v, cu, cu, 1, 1, causal=True)
    assert torch.equal(out, v.detach())
    out.backward(torch.ones_like(out))
    assert_close(v.grad, torch.ones_like(v, dtype=torch.float64), "dv")
    assert_close(q.grad, torch.zeros_like(q, dtype=torch.float64), "dq")
    assert_close(k.grad, torch.zeros_like(k, dtype=torch.float64), "dk")


def test_a_scale_scales_the_scores():
    g = torch.Generator().manual_seed(13)
    q, k, v = (random((1, 1, 40, 64), torch.float16, g) for _ in range(3))
    want, _ = reference(q, k, v, False, scale=0.3)
    assert_close(attention(q, k, v, scale=0.3), want, "scale 0.3")


def test_inside_torch_compile_with_grouped_heads_a_scale_and_packed_sequences():
    """torch.compile (fullgraph, the aot_eager backend: tracing through the
    ops' fake implementations and autograd registrations, no C++ compiler)
    of the grouped op with a scale and of the packed op, gradients against
    float64."""
    g = torch.Generator().manual_seed(19)
    q = random((1, 2, 40, 64), torch.float16, g)
    k, v = (random((1, 1, 40, 64), torch.float16, g) for _ in range(2))
    leaves = [x.clone().requires_grad_() for x in (q, k, v)]

    @torch.compile(fullgraph=True, backend="aot_eager")
    def dense(q, k, v):
        return attention(q, k, v, causal=True, scale=0.2)

    dense(*leaves).float().square().sum().backward()
    want, wide = reference(q, k, v, True, scale=0.2)
    want.square().sum().backward()
    for name, a, w in zip("qkv", leaves, wide):
        assert_close(a.grad, w.grad, f"compiled d{name}")

    cu = torch.tensor([0, 15, 40], dtype=torch.int32)
    packed_leaves = [x[0].transpose(0, 1).clone().requires_grad_() for x in (q, k, v)]

    @torch.compile(fullgraph=True, backend="aot_eager")
    def packed_op(q, k, v):
        return attention_varlen(q, k, v, cu, cu, 25, 25)

    packed_op(*packed_leaves).float().square().sum().backward()
    for rows in (slice(0, 15), slice(15, 40)):
        want, wide = reference(*(x[:, :, rows] for x in (q, k, v)), False)
        want.square().sum().backward()
        for name, a, w in zip("qkv", packed_leaves, wide):
            assert_close(a.grad[rows].transpose(0, 1), w.grad[0], f"compiled packed d{name} rows {rows}")


def test_what_attention_cannot_take_is_named():
    q = torch.zeros(1, 4, 16, 64, dtype=torch.float16)
    packed_q = torch.zeros(16, 4, 64, dtype=torch.float16)
    cu = torch.tensor([0, 16], dtype=torch.int32)
    cases = [
        (lambda: attention(q[0], q, q), r"attention takes q, k and v of rank 4"),
        (lambda: attention(q[..., :32], q[..., :32], q[..., :32]),
         r"head dims 64, 96, 128, 160, 192, 224 and 256, got 32"),
        (lambda: attention(q, q[:, :3], q[:, :3]), r"k, v \[B, H_kv, T, D\] with H_kv dividing H"),
        (lambda: attention(q[:, :2], q, q), r"with H_kv dividing H"),
        (lambda: attention(q, q[:1].expand(2, -1, -1, -1), q[:1].expand(2, -1, -1, -1)), r"of one batch B"),
        (lambda: attention(q, q[:, :, :1], q[:, :, :1], causal=True),
         r"causal attention with one key \(T = 1\) only for one query, got S = 16"),
        (lambda: attention_varlen(q, q, q, cu, cu, 16, 16), r"attention_varlen takes q, k and v of rank 3"),
        (lambda: attention_varlen(packed_q, packed_q, packed_q, cu.long(), cu, 16, 16),
         r"cu_seqlens_q as int32 \[B \+ 1\] offsets \(B >= 1\), got torch.int64 \[2\]"),
        (lambda: attention_varlen(packed_q, packed_q, packed_q, cu, cu[:1], 16, 16),
         r"cu_seqlens_k as int32 \[B \+ 1\] offsets"),
        (lambda: attention_varlen(packed_q, packed_q, packed_q, cu, torch.tensor([0, 8, 16], dtype=torch.int32),
                                  16, 8), r"of one batch, got 1 and 2 sequences"),
    ]
    for call, message in cases:
        with pytest.raises(croqjit.ArgumentError, match=message):
            call()


def test_the_ops_pass_torch_library_opcheck():
    """Schema, fake (meta) implementations and the autograd registration of
    croqjit::attention (grouped here) and croqjit::attention_varlen, as
    torch.compile relies on them."""
    g = torch.Generator().manual_seed(4)
    q = random((1, 2, 48, 64), torch.bfloat16, g).requires_grad_()
    k, v = (random((1, 1, 48, 64), torch.bfloat16, g).requires_grad_() for _ in range(2))
    torch.library.opcheck(torch.ops.croqjit.attention.default, (q, k, v, True))
    cu = torch.tensor([0, 20, 48], dtype=torch.int32)
    packed_q, packed_k, packed_v = (t[0].transpose(0, 1).detach().clone().requires_grad_() for t in (q, k, v))
    torch.library.opcheck(torch.ops.croqjit.attention_varlen.default, (packed_q, packed_k, packed_v, cu, cu, False))
