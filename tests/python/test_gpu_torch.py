"""torch tensors on a CUDA device: results against torch on fresh random
data, zero-copy and in-place use, the caller's stream, and dynamic dims."""

import pytest

import croqjit
from kernels import ADD, ADD_INTO, ADD_TYPED, MATMUL, SCALE, TILED_ADD

pytestmark = pytest.mark.gpu


def poisoned(torch, shape, dtype=None, device="cuda"):
    dtype = dtype or torch.float32
    t = torch.empty(shape, dtype=dtype, device=device)
    t.fill_(float("nan") if dtype.is_floating_point else -12345)
    return t


def test_add_matches_torch_on_random_shapes(torch):
    add = croqjit.compile(ADD)
    generator = torch.Generator().manual_seed(torch.seed())
    for _ in range(6):
        m, n = (int(v) for v in torch.randint(1, 400, (2,), generator=generator))
        a = torch.randn(m, n, device="cuda") * 100
        b = torch.randn(m, n, device="cuda") * 100
        out = add(a, b)
        assert isinstance(out, torch.Tensor)
        assert out.device == a.device and out.dtype == torch.float32 and out.shape == (m, n)
        torch.testing.assert_close(out, a + b, rtol=0, atol=0)


@pytest.mark.parametrize("croq_dtype,name", [("f16", "float16"), ("bf16", "bfloat16"), ("s32", "int32"),
                                             ("s64", "int64"), ("u8", "uint8"), ("f64", "float64")])
def test_dtypes_match_torch(torch, croq_dtype, name):
    dtype = getattr(torch, name)
    k = croqjit.compile(ADD_TYPED.replace("T ", croq_dtype + " "))
    n = 10007
    if dtype.is_floating_point:
        a = torch.randn(n, device="cuda").to(dtype)
        b = torch.randn(n, device="cuda").to(dtype)
    else:
        a = torch.randint(0, 100, (n,), device="cuda").to(dtype)
        b = torch.randint(0, 100, (n,), device="cuda").to(dtype)
    out = k(a, b)
    assert out.dtype == dtype
    # torch adds halves in f32 and rounds once more: allow one ulp there.
    ulp = {torch.float16: 2.0**-10, torch.bfloat16: 2.0**-7}.get(dtype, 0)
    torch.testing.assert_close(out, a + b, rtol=ulp, atol=1e-7 if ulp else 0)


def test_tiled_add_and_matmul_with_tails(torch):
    tiled = croqjit.compile(TILED_ADD)
    for m, n in [(64, 64), (100, 37), (17, 250), (1, 1)]:
        a = torch.randint(-1000, 1000, (m, n), device="cuda", dtype=torch.int32)
        b = torch.randint(-1000, 1000, (m, n), device="cuda", dtype=torch.int32)
        torch.testing.assert_close(tiled(a, b), a + b, rtol=0, atol=0)
    matmul = croqjit.compile(MATMUL)
    lhs = torch.randint(-10, 10, (128, 256), device="cuda", dtype=torch.int32)
    rhs = torch.randint(-10, 10, (256, 256), device="cuda", dtype=torch.int32)
    expected = (lhs.cpu().long() @ rhs.cpu().long()).int()
    torch.testing.assert_close(matmul(lhs, rhs).cpu(), expected, rtol=0, atol=0)


def test_device_tensors_are_used_in_place(torch):
    into = croqjit.compile(ADD_INTO)
    a = torch.randn(12345, device="cuda")
    b = torch.randn(12345, device="cuda")
    out = poisoned(torch, 12345)
    pointer = out.data_ptr()
    assert into(a, b, out) is None
    assert out.data_ptr() == pointer
    torch.testing.assert_close(out, a + b, rtol=0, atol=0)
    # A slice of a larger tensor is written exactly where it lies.
    big = poisoned(torch, (3, 1000))
    into(a[:1000], b[:1000], big[1])
    torch.testing.assert_close(big[1], a[:1000] + b[:1000], rtol=0, atol=0)
    assert torch.isnan(big[0]).all() and torch.isnan(big[2]).all()


def test_scalars_and_cpu_tensors(torch):
    scale = croqjit.compile(SCALE)
    x = torch.randn(777, device="cuda")
    for factor in (3, -0.5, torch.tensor(2.0).item()):
        y = poisoned(torch, 777)
        scale(x, y, factor)
        torch.testing.assert_close(y, x * factor, rtol=1e-6, atol=0)
    # CPU tensors are host data: copied in and out, the result is a CPU tensor.
    add = croqjit.compile(ADD)
    a, b = torch.randn(9, 31), torch.randn(9, 31)
    out = add(a, b)
    assert isinstance(out, torch.Tensor) and out.device.type == "cpu"
    torch.testing.assert_close(out, a + b, rtol=0, atol=0)
    y = torch.full((777,), float("nan"))
    scale(x.cpu(), y, 2.0)
    torch.testing.assert_close(y, x.cpu() * 2.0, rtol=0, atol=0)


def test_dynamic_dims_one_kernel_many_shapes(torch):
    add = croqjit.compile(ADD, dynamic_dims="M")
    for m in (1, 15, 1000, 4097):
        a, b = torch.randn(m, 48, device="cuda"), torch.randn(m, 48, device="cuda")
        torch.testing.assert_close(add(a, b), a + b, rtol=0, atol=0)


def test_mismatched_devices_and_dtypes(torch):
    add = croqjit.compile(ADD)
    a = torch.randn(4, 4, device="cuda")
    with pytest.raises(croqjit.ArgumentError, match="argument 2 'rhs': expected f32"):
        add(a, a.double())
    with pytest.raises(croqjit.ArgumentError, match="has no croq equivalent"):
        add(a, a.to(torch.complex64))
    with pytest.raises(croqjit.ArgumentError, match=r"argument 2 'rhs': expected f32 \[M, N\], got bin1"):
        add(a, a > 0)  # torch.bool is bin1
    with pytest.raises(croqjit.ArgumentError, match="is not contiguous"):
        add(a.t(), a)
    with pytest.raises(croqjit.ArgumentError, match="cannot be used"):
        add(a, torch.empty(4, 4, device="meta"))


# GPU clock cycles of torch.cuda._sleep: about 0.1 s, so nothing queued
# behind it can finish before the host checks.
SLEEP_CYCLES = 200_000_000


def test_runs_on_the_current_torch_stream(torch):
    into = croqjit.compile(ADD_INTO)
    a, b = torch.randn(4096, device="cuda"), torch.randn(4096, device="cuda")
    out = poisoned(torch, 4096)
    into.prepare(a, b, out)  # compiled now, not while the sleep runs
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(SLEEP_CYCLES)
        into(a, b, out)  # queued behind the sleep on `side`
    # The default stream does not wait for `side` (torch's streams are
    # non-blocking): the kernel has not run yet.
    snapshot = out.clone()
    torch.cuda.current_stream().synchronize()
    assert torch.isnan(snapshot).all()
    side.synchronize()
    torch.testing.assert_close(out, a + b, rtol=0, atol=0)


@pytest.mark.parametrize("as_handle", [False, True])
def test_explicit_stream(torch, as_handle):
    add = croqjit.compile(ADD)
    a, b = torch.randn(64, 64, device="cuda"), torch.randn(64, 64, device="cuda")
    add.prepare(a, b)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(SLEEP_CYCLES)
    out = add(a, b, stream=side.cuda_stream if as_handle else side)
    out.record_stream(side)
    assert not side.query()  # still behind the sleep
    side.synchronize()
    torch.testing.assert_close(out, a + b, rtol=0, atol=0)
