"""A tiny transformer block trained for a few optimizer steps with its
attention on croqjit.attention (the Croqtile forward and backward), and the
same block, from the same initial weights on the same batches, with
torch's scaled_dot_product_attention: the loss curves agree within 2% a
step, and both fall (the gradients are used, not only computed)."""

import pytest

pytestmark = pytest.mark.gpu

STEPS = 12
SEQ = 300  # tails in the kernels' 64- and 128-row tiles
BATCH, WIDTH, HEADS = 4, 256, 4  # heads of 64
DEVICE = "cuda"
TOLERANCE = 2e-2  # relative, per step: bf16 attention on both sides, different summation orders


def block_class(torch):
    class Block(torch.nn.Module):
        """Pre-norm attention and MLP; attention in bf16, the rest in f32."""

        def __init__(self, width, heads, attend):
            super().__init__()
            self.heads, self.attend = heads, attend
            self.norm1, self.norm2 = torch.nn.LayerNorm(width), torch.nn.LayerNorm(width)
            self.qkv = torch.nn.Linear(width, 3 * width)
            self.proj = torch.nn.Linear(width, width)
            self.mlp = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
                                           torch.nn.Linear(4 * width, width))
            self.head = torch.nn.Linear(width, width)

        def forward(self, x):
            b, s, w = x.shape
            q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4)
            a = self.attend(*(t.to(torch.bfloat16).contiguous() for t in (q, k, v))).float()
            x = x + self.proj(a.transpose(1, 2).reshape(b, s, w))
            x = x + self.mlp(self.norm2(x))
            return self.head(x)

    return Block


def losses(torch, attend, batches, targets):
    torch.manual_seed(0)
    model = block_class(torch)(WIDTH, HEADS, attend).to(DEVICE)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    curve = []
    for x, y in zip(batches, targets):
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        curve.append(loss.item())
    return curve


def test_training_on_croqjit_attention_follows_sdpa(torch):
    import torch.nn.functional as F

    from croqjit.attention import attention

    g = torch.Generator(device=DEVICE).manual_seed(1)
    batches = [torch.randn(BATCH, SEQ, WIDTH, device=DEVICE, generator=g) for _ in range(STEPS)]
    # A target the block can learn: a fixed causal mixing of the input.
    targets = [torch.cumsum(x, dim=1) / torch.arange(1, SEQ + 1, device=DEVICE).view(1, -1, 1) for x in batches]
    ours = losses(torch, lambda q, k, v: attention(q, k, v, causal=True), batches, targets)
    sdpa = losses(torch, lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), batches, targets)
    table = "\n".join(f"step {i}: croqjit {a:.5f}, sdpa {b:.5f}" for i, (a, b) in enumerate(zip(ours, sdpa)))
    for a, b in zip(ours, sdpa):
        assert abs(a - b) <= TOLERANCE * abs(b), table
    assert ours[-1] < ours[0], table
