"""croqjit.attention.attention on CPU tensors: the same Croqtile forward and
backward in interpret mode (no GPU), on a small shape with tails, against
torch's autograd of attention in float64. Needs torch (CPU is enough)."""

import math

import pytest


def test_gradients_in_interpret_mode_match_float64_autograd():
    torch = pytest.importorskip("torch")
    from croqjit.attention import attention

    g = torch.Generator().manual_seed(3)
    q, k, v, dout = (torch.randn(1, 1, 80, 64, generator=g).to(torch.float16) for _ in range(4))
    for causal in (False, True):
        leaves = [t.clone().requires_grad_() for t in (q, k, v)]
        out = attention(*leaves, causal=causal)
        out.backward(dout)
        wide = [t.double().requires_grad_() for t in (q, k, v)]
        scores = wide[0] @ wide[1].transpose(-1, -2) / math.sqrt(64)
        if causal:
            scores = scores.masked_fill(torch.ones(80, 80, dtype=torch.bool).triu(1), float("-inf"))
        want = torch.softmax(scores, dim=-1) @ wide[2]
        want.backward(dout.double())
        pairs = [("out", out, want)] + [(f"d{n}", a.grad, b.grad) for n, a, b in zip("qkv", leaves, wide)]
        for name, got, ref in pairs:
            got, ref = got.detach().double(), ref.detach()
            rel = float((got - ref).norm() / ref.norm())
            assert rel <= 1e-2, f"{name} {'causal' if causal else 'non-causal'}: relative error {rel:.3e}"


def test_the_ops_pass_torch_library_opcheck():
    """Schema, fake (meta) implementations and the autograd registration of
    croqjit::attention and croqjit::attention_backward, as torch.compile
    relies on them."""
    torch = pytest.importorskip("torch")
    import croqjit.attention  # noqa: F401  (registers the ops)

    g = torch.Generator().manual_seed(4)
    q, k, v = (torch.randn(1, 2, 48, 64, generator=g).to(torch.bfloat16).requires_grad_() for _ in range(3))
    torch.library.opcheck(torch.ops.croqjit.attention.default, (q, k, v, True))
