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
