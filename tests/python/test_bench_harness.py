"""The benchmark harness (bench/harness) without a GPU: the order in which a
row checks, selects and times its sides (fake sides and a fake timer), that
a wrong output or a failing reference gets no time, the figures of a row,
the broken variants of the real kernels (each edit applies where it says
and the broken kernel still compiles for the timed shape), the
kernel_sources tool's usage errors, and a script's exit status without a
device."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HARNESS = os.path.join(ROOT, "bench", "harness")
sys.path.insert(0, HARNESS)

import harness  # noqa: E402
import kernel_text  # noqa: E402


class Output:
    def __init__(self, value):
        self.value = value


class FakeTimer:
    """Records every event; each call 'takes' the side's duration."""

    def __init__(self, durations):
        self.durations = durations
        self.log = []
        self.timed = 0
        self.flush_bytes = 0

    def flush(self):
        self.log.append("flush")

    def synchronize(self):
        self.log.append("sync")

    def untimed(self, fn):
        self.log.append("warmup")
        return fn()

    def time_calls(self, fn, calls):
        ms, last = [], None
        for _ in range(calls):
            self.flush()
            last = fn()
            ms.append(self.durations[self.current])
            self.timed += 1
        return ms, last


def fake_compare(got, want, tol):
    ok = got.value == want.value
    return harness.Comparison(ok, 0.0 if ok else 1.0, 0.0 if ok else 9.0)


def side(timer, name, value, calls_log, poison_log=None):
    def call():
        timer.current = name
        calls_log.append(name)
        return Output(value() if callable(value) else value)

    poison = (lambda: poison_log.append(name)) if poison_log is not None else None
    return harness.Side(name, call, poison=poison)


SETTINGS = harness.Settings(warmup=2, rounds=3, calls=2, select_rounds=1, select_calls=1)
TOL = harness.Tolerance(rel_frobenius=1e-2, rms_fraction=0.05, rel_element=1e-2)


def test_a_row_checks_then_interleaves_ours_and_the_references():
    timer = FakeTimer({"ours": 1.0, "ref": 2.0, "ref2": 4.0})
    calls, poisoned = [], []
    ours = side(timer, "ours", 42, calls, poisoned)
    ref, ref2 = side(timer, "ref", 42, calls), side(timer, "ref2", 42, calls)
    row = harness.run_row("row", [ours], [ref, ref2], TOL, SETTINGS, timer, compare_fn=fake_compare, log=lambda _: None)
    # References once, then ours once (poisoned first), then 2 warm-up calls
    # each in turn, then 3 rounds of 2 calls: ours, ref, ref2, ours, ...
    checks = ["ref", "ref2", "ours"]
    warmup = ["ours", "ref", "ref2"] * 2
    rounds = (["ours"] * 2 + ["ref"] * 2 + ["ref2"] * 2) * 3
    assert calls == checks + warmup + rounds
    assert poisoned == ["ours"]
    assert timer.log.count("warmup") == 6
    assert row["ours"]["median_ms"] == 1.0 and row["references"]["ref"]["median_ms"] == 2.0
    assert row["ratios"] == {"ref": 2.0, "ref2": 4.0}
    assert row["config"]["name"] == "ours"
    assert set(row["checks"]) == {"ref2 vs ref", "ours vs ref", "ours after timing vs ref"}


def test_a_wrong_output_gets_no_time():
    timer = FakeTimer({"ours": 1.0, "ref": 2.0})
    calls = []
    with pytest.raises(harness.MismatchError, match="ours differs from ref"):
        harness.run_row("row", [side(timer, "ours", 41, calls)], [side(timer, "ref", 42, calls)], TOL, SETTINGS,
                        timer, compare_fn=fake_compare, log=lambda _: None)
    assert timer.timed == 0 and "warmup" not in timer.log


def test_every_configuration_is_checked_before_any_is_timed():
    timer = FakeTimer({"good": 1.0, "bad": 0.5, "ref": 2.0})
    calls = []
    ours = [side(timer, "good", 42, calls), side(timer, "bad", 0, calls)]
    with pytest.raises(harness.MismatchError, match="bad differs"):
        harness.run_row("row", ours, [side(timer, "ref", 42, calls)], TOL, SETTINGS, timer, compare_fn=fake_compare,
                        log=lambda _: None)
    assert timer.timed == 0


def test_selection_picks_the_fastest_configuration_and_measures_it_again():
    timer = FakeTimer({"slow": 3.0, "fast": 1.5, "ref": 2.0})
    calls = []
    ours = [side(timer, "slow", 42, calls), side(timer, "fast", 42, calls)]
    row = harness.run_row("row", ours, [side(timer, "ref", 42, calls)], TOL, SETTINGS, timer,
                          compare_fn=fake_compare, log=lambda _: None)
    assert row["config"]["name"] == "fast" and row["selection_ms"] == {"slow": 3.0, "fast": 1.5}
    assert row["ours"]["name"] == "fast" and row["ratios"]["ref"] == pytest.approx(2.0 / 1.5)
    # The measurement after the selection times only the chosen one and the reference.
    measured = calls[-(2 * SETTINGS.warmup + 2 * SETTINGS.rounds * SETTINGS.calls):]
    assert set(measured) == {"fast", "ref"}


def test_a_failing_or_disagreeing_reference_fails_the_row():
    timer = FakeTimer({"ours": 1.0, "ref": 2.0})
    calls = []

    def broken():
        raise RuntimeError("no such backend")

    with pytest.raises(harness.ReferenceFailure, match="no such backend"):
        harness.run_row("row", [side(timer, "ours", 42, calls)], [side(timer, "ref", broken, calls)], TOL, SETTINGS,
                        timer, compare_fn=fake_compare)
    with pytest.raises(harness.ReferenceFailure, match="high-precision"):
        harness.run_row("row", [side(timer, "ours", 42, calls)], [side(timer, "ref", 42, calls)], TOL, SETTINGS,
                        timer, truth=lambda: Output(43), compare_fn=fake_compare)
    with pytest.raises(harness.ReferenceFailure, match="ref2 disagrees with ref"):
        harness.run_row("row", [side(timer, "ours", 42, calls)],
                        [side(timer, "ref", 42, calls), side(timer, "ref2", 7, calls)], TOL, SETTINGS, timer,
                        compare_fn=fake_compare)
    assert timer.timed == 0


def own_truth(value):
    """An OwnTruth that wants `value` (a side whose arithmetic differs from the references')."""
    return harness.OwnTruth(f"its own truth {value}", lambda got: fake_compare(got, Output(value), TOL))


def test_a_side_with_its_own_truth_is_held_to_it_and_not_to_the_first_reference():
    timer = FakeTimer({"fp8": 1.0, "fp8 alone": 0.9, "ref": 2.0, "ref2": 2.0})
    calls = []
    ours = side(timer, "fp8", 7, calls)
    ours.own_truth = own_truth(7)
    alone = side(timer, "fp8 alone", 7, calls)
    alone.own_truth = ours.own_truth
    refs = [side(timer, "ref", 42, calls), side(timer, "ref2", 42, calls), alone]
    row = harness.run_row("row", [ours], refs, TOL, SETTINGS, timer, truth=lambda: Output(42),
                          compare_fn=fake_compare, log=lambda _: None)
    assert set(row["checks"]) == {"ref vs high precision", "ref2 vs high precision", "ref2 vs ref",
                                  "fp8 alone vs its own truth 7", "fp8 vs its own truth 7",
                                  "fp8 after timing vs its own truth 7"}
    assert row["ratios"]["ref"] == 2.0


def test_a_side_that_misses_its_own_truth_gets_no_time():
    timer = FakeTimer({"fp8": 1.0, "ref": 2.0})
    calls = []
    ours = side(timer, "fp8", 42, calls)  # the first reference's value, not its own truth's
    ours.own_truth = own_truth(7)
    with pytest.raises(harness.MismatchError, match="fp8 differs from its own truth 7"):
        harness.run_row("row", [ours], [side(timer, "ref", 42, calls)], TOL, SETTINGS, timer,
                        compare_fn=fake_compare, log=lambda _: None)
    alone = side(timer, "fp8 alone", 6, calls)
    alone.own_truth = own_truth(7)
    good = side(timer, "fp8", 7, calls)
    good.own_truth = own_truth(7)
    with pytest.raises(harness.ReferenceFailure, match="fp8 alone disagrees with its own truth 7"):
        harness.run_row("row", [good], [side(timer, "ref", 42, calls), alone], TOL, SETTINGS, timer,
                        compare_fn=fake_compare, log=lambda _: None)
    assert timer.timed == 0


def test_an_output_that_goes_wrong_while_timed_fails_the_row():
    timer = FakeTimer({"ours": 1.0, "ref": 2.0})
    calls = []
    count = iter(range(1000))
    drifting = side(timer, "ours", lambda: 42 if next(count) < 3 else 0, calls)
    with pytest.raises(harness.MismatchError, match="after the timed calls"):
        harness.run_row("row", [drifting], [side(timer, "ref", 42, calls)], TOL, SETTINGS, timer,
                        compare_fn=fake_compare, log=lambda _: None)


def test_self_test_reports_a_broken_variant_that_got_a_time():
    timer = FakeTimer({"ours": 1.0, "broken": 1.0, "ref": 2.0})
    calls = []
    good = side(timer, "ours", 42, calls)
    case = harness.SelfTestCase("row", good, side(timer, "broken", 41, calls), [side(timer, "ref", 42, calls)], TOL)
    quiet = {"log": lambda _: None, "compare_fn": fake_compare}
    assert harness.run_self_test([case], timer, **quiet) == []
    not_broken = harness.SelfTestCase("row", good, side(timer, "broken", 42, calls), case.references, TOL)
    failures = harness.run_self_test([not_broken], timer, **quiet)
    assert len(failures) == 1 and "got a time" in failures[0]
    wrong_good = harness.SelfTestCase("row", side(timer, "ours", 1, calls), case.broken, case.references, TOL)
    failures = harness.run_self_test([wrong_good], timer, **quiet)
    assert len(failures) == 1 and "correct kernel was refused" in failures[0]


def test_round_summary():
    s = harness.round_summary([[1.0, 5.0, 2.0], [3.0, 3.0, 9.0], [2.0, 2.5, 2.0], [4.0, 4.0, 4.0]])
    assert s["round_medians_ms"] == [2.0, 3.0, 2.0, 4.0]
    assert s["median_ms"] == 2.5 and s["min_ms"] == 2.0 and s["max_ms"] == 4.0
    assert s["iqr_ms"] == pytest.approx(3.25 - 2.0) and s["fastest_call_ms"] == 1.0 and s["calls"] == 12


def test_row_seeds_depend_on_the_seed_and_the_label_only():
    assert harness.row_seed(2026, "a") == harness.row_seed(2026, "a")
    assert harness.row_seed(2026, "a") != harness.row_seed(2026, "b")
    assert harness.row_seed(2026, "a") != harness.row_seed(2027, "a")


# ------------------------------------------------- the kernels and variants

def tool():
    try:
        return kernel_text.kernel_sources_tool()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))


def croq_command():
    path = os.path.join(os.path.dirname(os.path.dirname(tool())), "croq")
    if not os.access(path, os.X_OK):
        pytest.skip(f"no croq command at {path}")
    return path


def test_kernel_sources_reads_the_samples_text():
    tool()
    gemm = kernel_text.gemm("f16")
    with open(os.path.join(ROOT, "samples", "matmul_persistent.cpp")) as f:
        assert gemm in f.read()
    bf16 = kernel_text.gemm("bf16")
    assert "f16 " not in bf16.replace("bf16", "") and bf16.count("bf16") == gemm.count("f16")
    assert "f8_e4m3" in kernel_text.gemm("fp8")
    attention = kernel_text.attention("bf16", 128, ping_pong=False, consumers=2)
    assert "bf16 [B, H, S, 128] q" in attention and "turn1" in attention
    fp8 = kernel_text.attention("e4m3", 128, output="bf16")
    assert "f8_e4m3 [B, H, 128, T] v" in fp8 and "bf16 [B, H, S, 128] o" in fp8 and "v_descale" in fp8


@pytest.mark.parametrize("args,why", [([], "no kernel named"), (["gemm", "f32"], "gemm takes f16, bf16 or fp8"),
                                      (["attention", "f16", "80"], "the head dim must be"),
                                      (["attention", "f16", "64", "--consumers"], "unknown or incomplete"),
                                      (["attention", "e4m3", "96"], "a head dim that is a multiple of 64"),
                                      (["sample", "no_such_sample"], "cannot read")])
def test_kernel_sources_refuses_wrong_arguments(args, why):
    out = subprocess.run([tool(), *args], capture_output=True, text=True)
    assert out.returncode == (1 if args and args[0] == "sample" else 2)
    assert why in out.stderr and out.stdout == ""


def test_a_variant_that_no_longer_fits_the_kernel_is_an_error():
    with pytest.raises(kernel_text.BrokenVariantError, match="expected 2 occurrence"):
        kernel_text.gemm_k_loop_short("foreach {iv_k} in [cdiv(K, TK)]")
    with pytest.raises(kernel_text.BrokenVariantError):
        kernel_text.attention_drop_last_key_tile("no such text")
    with pytest.raises(kernel_text.BrokenVariantError):
        kernel_text.gemm_wrong_tail("no tail here")


# Each broken variant of the self-tests, specialized for its timed shape:
# the edit is where it should be and the kernel still compiles to PTX.
VARIANTS = [
    ("gemm f16 K loop short", lambda: kernel_text.gemm_k_loop_short(kernel_text.gemm("f16")),
     {"M": 4096, "N": 4096, "K": 4096}, None),
    ("gemm bf16 wrong tail", lambda: kernel_text.gemm_wrong_tail(kernel_text.gemm("bf16")),
     {"M": 4000, "N": 4000, "K": 4000}, None),
    ("gemm fp8 K loop short", lambda: kernel_text.gemm_k_loop_short(kernel_text.gemm("fp8")),
     {"M": 4096, "N": 4096, "K": 4096}, None),
    ("attention drops a key tile", lambda: kernel_text.attention_drop_last_key_tile(kernel_text.attention("f16", 128)),
     {"B": 4, "H": 16, "S": 4096, "T": 4096}, None),
    ("add one element short", lambda: kernel_text.replace_exactly(kernel_text.add(), "parallel i by N\n",
                                                                  "parallel i by N - 1\n", 1), {"N": 1 << 28}, None),
]


@pytest.mark.parametrize("name,make,shape,_", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_broken_variants_compile_for_the_timed_shape(tmp_path, name, make, shape, _):
    croq = croq_command()
    source = make()
    path = tmp_path / "variant.co"
    path.write_text(source)
    args = [croq, "compile", str(path), "--emit", "ptx", "--arch", "sm_90a"]
    for dim, value in shape.items():
        args += ["--shape", f"{dim}={value}"]
    out = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert ".entry" in out.stdout


def test_a_script_without_torch_or_a_device_measures_nothing():
    try:
        import torch

        if torch.cuda.is_available():
            pytest.skip("a device is present")
    except ImportError:
        pass
    out = subprocess.run([sys.executable, os.path.join(HARNESS, "bench_add.py"), "--quick"], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == harness.EXIT_NO_GPU, out.stdout + out.stderr
    assert "nothing measured" in out.stdout
