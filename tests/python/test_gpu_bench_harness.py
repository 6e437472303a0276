"""The benchmark harness (bench/harness) on a GPU: a deliberately broken
kernel (the GEMM's K loop one tile short, its M tail left out, attention
dropping its last key tile, an add one element short, an element-wise add one
column short, an RMSNorm writing half of each row) is refused at the
timed shape before any call of it is timed, while the correct kernel
passes; and the comparison itself catches one wrong element."""
import os
import sys

import pytest

HARNESS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench", "harness")
sys.path.insert(0, HARNESS)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def timer(torch):
    if os.environ.get("CROQ_HARNESS_SELF_TEST") == "skip":
        pytest.skip("CROQ_HARNESS_SELF_TEST=skip: scripts/gpu-check.sh runs each script's --self-test as a step")
    if torch.cuda.get_device_capability()[0] != 9:
        pytest.skip("the benchmarked kernels need sm_90a (Hopper)")
    import harness

    return harness.TorchTimer()


class Args:
    seed = 2026
    quick = True


@pytest.mark.parametrize("script", ["bench_gemm", "bench_gemm_shapes", "bench_fp8_gemm", "bench_attention", "bench_attention_backward",
                                    "bench_add",
                                    "bench_elementwise", "bench_rows"])
def test_broken_kernels_are_refused_before_timing(torch, timer, script):
    import importlib

    import harness

    module = importlib.import_module(script)
    cases = module.self_test_cases(Args())
    assert cases, f"{script} has no self-test case"
    log = []
    failures = harness.run_self_test(cases, timer, log=log.append)
    assert failures == [], "\n".join(failures + log)
    assert sum("refused, as it must be" in line for line in log) == len(cases)
    del cases
    torch.cuda.empty_cache()


def test_one_wrong_element_fails_the_comparison(torch):
    import harness

    g = torch.Generator(device="cuda").manual_seed(7)
    want = torch.randn(512, 512, device="cuda", generator=g)
    tol = harness.Tolerance(rel_frobenius=1e-2, rms_fraction=0.05, rel_element=1e-2)
    assert harness.compare(want.clone(), want, tol).passed
    # Well inside the Frobenius bound, far outside the element bound.
    got = want.clone()
    got[100, 200] += 0.5
    c = harness.compare(got, want, tol)
    assert not c.passed and c.rel_error < 1e-2 and c.worst_index == (100, 200)
    got = want.clone()
    got[3, 4] = float("nan")
    c = harness.compare(got, want, tol)
    assert not c.passed and c.nonfinite == 1
    exact = harness.Tolerance(exact=True)
    got = want.clone()
    got[511, 511] = torch.nextafter(got[511, 511], torch.tensor(float("inf"), device="cuda"))
    c = harness.compare(got, want, exact)
    assert not c.passed and c.worst_index == (511, 511)


def test_an_allowance_widens_each_elements_bound(torch):
    import harness

    g = torch.Generator(device="cuda").manual_seed(8)
    want = torch.randn(256, 256, device="cuda", generator=g)
    tol = harness.Tolerance(rel_frobenius=1e-2, rms_fraction=0.05, rel_element=1e-2)
    got = want.clone()
    got[10, 20] += 0.5
    allowance = torch.zeros_like(want)
    assert not harness.compare(got, want, tol, allowance).passed
    allowance[10, 20] = 0.5
    assert harness.compare(got, want, tol, allowance).passed
    allowance[10, 20] = 0.0
    allowance[10, 21] = 0.5  # another element's allowance does not help
    assert not harness.compare(got, want, tol, allowance).passed


@pytest.mark.parametrize("causal", [False, True])
def test_the_fp8_truth_replays_the_online_softmax_with_p_rounded(torch, causal):
    """bench_attention.rounded_p_attention: with one key tile it is the
    direct formula (P = exp(s - max) rounded to e4m3, the sum unrounded);
    with the kernel's tiles it stays within e4m3's error of the fp32
    attention without being it, and its allowance is one e4m3 step of each
    element's largest term."""
    import bench_attention as ba

    g = torch.Generator(device="cuda").manual_seed(9)
    b, h, s, d = 1, 2, 512, 64
    q, k, v = (torch.randn(b, h, s, d, device="cuda", generator=g) for _ in range(3))
    scores = q @ k.transpose(-1, -2) / d ** 0.5
    if causal:
        scores.masked_fill_(torch.ones(s, s, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    p = torch.exp(scores - scores.amax(-1, keepdim=True))
    direct = (p.to(torch.float8_e4m3fn).float() @ v) / p.sum(-1, keepdim=True)
    largest = (p[..., None] * v.abs()[:, :, None]).amax(-2) / p.sum(-1, keepdim=True)
    one_tile, allowance = ba.rounded_p_attention(torch, q, k, v, causal, key_tile=s)
    assert torch.allclose(one_tile, direct, rtol=1e-4, atol=1e-5)
    assert torch.allclose(allowance, 0.125 * largest, rtol=1e-4, atol=1e-6)
    tiled, _ = ba.rounded_p_attention(torch, q, k, v, causal, key_tile=128, row_chunk=100)
    exact = ba.fp32_attention(torch, q, k, v, causal)
    rel = float(torch.linalg.vector_norm(tiled - exact) / torch.linalg.vector_norm(exact))
    assert 1e-3 < rel < 5e-2
