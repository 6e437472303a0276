"""croqjit.gemm on the device: croqjit.gemm.matmul on torch tensors at
decode and prefill shapes (narrow tiles or split K at small M), f16 and bf16, against
torch.matmul in float32 on fresh random data, and a tune over the model's
candidates."""

import pytest

import croqjit
import croqjit.gemm

pytestmark = pytest.mark.gpu


def hopper(torch):
    if torch.cuda.get_device_capability()[0] != 9:
        pytest.skip("the GEMM needs sm_90a (Hopper)")


def check(torch, a, b, c):
    want = torch.matmul(a.float(), b.float().t())
    err = (torch.linalg.vector_norm(c.float() - want) / torch.linalg.vector_norm(want)).item()
    assert err <= 1e-2 and not torch.isnan(c).any(), err


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("m, n, k", [(1, 4096, 4096), (16, 4096, 4096), (16, 1024, 8192), (37, 6144, 4096),
                                     (1000, 1000, 1032), (2048, 4096, 4096)])
def test_matmul_matches_torch(torch, dtype, m, n, k):
    hopper(torch)
    a = torch.randn(m, k, device="cuda", dtype=getattr(torch, dtype))
    b = torch.randn(n, k, device="cuda", dtype=getattr(torch, dtype))
    c = croqjit.gemm.matmul(a, b)
    torch.cuda.synchronize()
    assert c.shape == (m, n) and c.dtype == a.dtype
    check(torch, a, b, c)


def test_tune_keeps_the_fastest_candidate(torch):
    hopper(torch)
    gemm = croqjit.gemm.Gemm()
    m, n, k = 16, 2048, 4096
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(n, k, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    result = gemm.tune(a, b, c, count=3, progress=False)
    assert gemm.config(m, n, k) in gemm.candidates(m, n, k, top=3)
    assert result.config == gemm.config(m, n, k)
    a.normal_()
    gemm(a, b, c)
    torch.cuda.synchronize()
    check(torch, a, b, c)
