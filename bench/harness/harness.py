"""The benchmark harness: croqjit kernels against library references, in one
process, on the same input tensors.

For every row (one shape, one element type) a script builds the inputs once
and hands the harness its configurations of the Croqtile kernel ("ours") and
the reference calls (cuBLAS, cuDNN, ...). `run_row` then:

1. runs each reference once and, where the script gives one, checks it
   against an independent higher-precision computation (a reference that
   raises or disagrees fails the run: ReferenceFailure);
2. runs every configuration of ours once on the same inputs, its output
   poisoned with NaN first, and compares the output with the first
   reference's at this very shape (Tolerance: relative Frobenius error and a
   bound on every element); a mismatch raises MismatchError before anything
   is timed, so a wrong kernel never gets a time. A side whose arithmetic
   differs from the references' by design (OwnTruth: FP8 attention's P
   rounded to e4m3) is held, here and in 1. and 5., to a truth that models
   that arithmetic instead;
3. with several configurations, picks one in a short interleaved selection
   pass (its times are kept in the JSON, never reported as the figure);
4. measures the chosen configuration and the references in interleaved
   rounds (ours, reference 1, reference 2, ours, ...), the same warm-up
   calls for each, every call timed alone between two CUDA events on
   torch's current stream, with the L2 cache flushed before each call by
   writing a buffer of 3x the L2 size (so every call starts from the same
   cold L2, the flush ahead in the queue also hides the host's launch
   cost);
5. compares the output of ours' last timed call with the reference again.

A side's figure is the median over rounds of each round's median call; the
spread is the minimum, maximum and interquartile range of the round medians.
The card, SM and memory clocks (nvidia-smi, read right after each row's
rounds) and the chosen configuration go into the row.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SEED = 2026


class HarnessError(Exception):
    """A row that cannot be reported."""


class MismatchError(HarnessError):
    """Ours computed something else than the reference at the timed shape."""


class ReferenceFailure(HarnessError):
    """A reference raised, or disagreed with the higher-precision check."""


class BudgetExceeded(HarnessError):
    """A figure is outside its budget (a ratio below its minimum)."""


@dataclass(frozen=True)
class Tolerance:
    """got matches want when ||got - want|| / ||want|| <= rel_frobenius and
    every element satisfies |got - want| <= rms_fraction * rms(want) +
    rel_element * |want|. exact: bitwise equal (NaN nowhere)."""

    rel_frobenius: float = 0.0
    rms_fraction: float = 0.0
    rel_element: float = 0.0
    exact: bool = False

    def describe(self) -> str:
        if self.exact:
            return "bitwise equal"
        return (f"relative Frobenius error <= {self.rel_frobenius:g}, every element within "
                f"{self.rms_fraction:g} rms(want) + {self.rel_element:g} |want|")


@dataclass
class Comparison:
    passed: bool
    rel_error: float
    worst_ratio: float  # of the element bound (exact: mismatching elements)
    worst_index: tuple = ()
    worst_got: float = 0.0
    worst_want: float = 0.0
    nonfinite: int = 0
    mismatched: int | None = None  # exact comparisons: how many elements differ

    def describe(self) -> str:
        where = "[" + ", ".join(str(i) for i in self.worst_index) + "]"
        if self.mismatched is not None:
            text = (f"{self.mismatched} elements differ, the first {where} = {self.worst_got!r} "
                    f"(want {self.worst_want!r})" if self.mismatched else "bitwise equal")
        else:
            text = (f"relative error {self.rel_error:.3e}, worst element {where} = {self.worst_got:.6g} "
                    f"(want {self.worst_want:.6g}, {self.worst_ratio:.3g} of its bound)")
        if self.nonfinite:
            text += f", {self.nonfinite} non-finite elements"
        return text

    def as_json(self) -> dict:
        return {"passed": self.passed, "rel_error": self.rel_error, "worst_ratio": self.worst_ratio,
                "worst_index": list(self.worst_index), "worst_got": self.worst_got,
                "worst_want": self.worst_want, "nonfinite": self.nonfinite, "mismatched": self.mismatched}


def compare(got, want, tol: Tolerance, allowance=None) -> Comparison:
    """Compares two torch tensors of one shape (on the device, in float64).
    `allowance` (a tensor of want's shape, or None) widens each element's
    bound by its own amount: what a truth that models a kernel's rounding
    cannot pin down (see OwnTruth)."""
    import torch

    if tuple(got.shape) != tuple(want.shape):
        raise MismatchError(f"output shape {tuple(got.shape)}, reference {tuple(want.shape)}")
    if tol.exact:
        same = got == want
        if bool(same.all()):
            return Comparison(True, 0.0, 0.0, mismatched=0)
        wrong = (~same).reshape(-1)
        first = int(wrong.nonzero()[0])
        count = int(wrong.sum())
        return Comparison(False, float("inf"), float("inf"), _unravel(first, got.shape),
                          float(got.reshape(-1)[first]), float(want.reshape(-1)[first]),
                          int((~torch.isfinite(got.float())).sum()), mismatched=count)
    g = got.double()
    w = want.double()
    nonfinite = int((~torch.isfinite(g)).sum())
    diff = (g - w).abs_()
    norm = float(torch.linalg.vector_norm(w))
    rel = float(torch.linalg.vector_norm(diff)) / norm if norm > 0 else float("inf")
    rms = norm / max(1, w.numel()) ** 0.5
    bound = w.abs().mul_(tol.rel_element).add_(tol.rms_fraction * rms)
    if allowance is not None:
        bound.add_(allowance.double())
    ratio = diff.div_(bound).nan_to_num_(nan=float("inf"), posinf=float("inf"))
    flat = int(ratio.reshape(-1).argmax())
    worst = float(ratio.reshape(-1)[flat])
    del g, w, diff, bound, ratio
    index = _unravel(flat, got.shape)
    passed = nonfinite == 0 and rel <= tol.rel_frobenius and worst <= 1.0
    return Comparison(passed, rel, worst, index, float(got.reshape(-1)[flat]), float(want.reshape(-1)[flat]),
                      nonfinite)


def _unravel(flat: int, shape) -> tuple:
    index = []
    for extent in reversed(tuple(shape)):
        index.append(flat % extent)
        flat //= extent
    return tuple(reversed(index))


@dataclass
class OwnTruth:
    """The truth of a side whose arithmetic differs from the first
    reference's by design (FP8 attention rounds P to e4m3, as
    FlashAttention-3 does): `compare(got)` checks the side's output against
    a computation that models that arithmetic and returns the Comparison;
    `name` says what that truth is. Such a side is checked only against it,
    at every check of the row, never against the first reference."""

    name: str
    compare: Callable[[Any], Comparison]


@dataclass
class Side:
    """One callable that is timed. `call` enqueues one call on torch's
    current stream and returns its output tensor; `poison` (ours) fills the
    output with NaN before the checked call, so unwritten elements fail;
    `own_truth` (see OwnTruth) replaces the comparison with the first
    reference."""

    name: str
    call: Callable[[], Any]
    poison: Callable[[], None] | None = None
    config: dict = field(default_factory=dict)
    own_truth: OwnTruth | None = None


@dataclass
class Settings:
    warmup: int = 5        # untimed calls of each side before the rounds
    rounds: int = 7        # interleaved rounds (ours, ref 1, ref 2, ours, ...)
    calls: int = 10        # timed calls of a side per round
    select_rounds: int = 3  # the configuration selection pass, when there are several
    select_calls: int = 5


QUICK = Settings(warmup=3, rounds=5, calls=5, select_rounds=2, select_calls=3)


class TorchTimer:
    """Times one call at a time between CUDA events on torch's current
    stream, after flushing L2 by writing a buffer of 3x its size."""

    def __init__(self):
        import torch

        self.torch = torch
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        l2 = int(getattr(props, "L2_cache_size", 0) or 50 << 20)
        self.l2_bytes = l2
        self.flush_bytes = 3 * l2
        self._flush_buffer = torch.empty(self.flush_bytes, dtype=torch.uint8, device="cuda")
        self._events: list = []

    def flush(self) -> None:
        self._flush_buffer.zero_()

    def synchronize(self) -> None:
        self.torch.cuda.synchronize()

    def time_calls(self, fn: Callable[[], Any], calls: int) -> tuple[list[float], Any]:
        torch = self.torch
        while len(self._events) < calls:
            self._events.append((torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)))
        last = None
        for start, end in self._events[:calls]:
            self.flush()
            start.record()
            last = fn()
            end.record()
        torch.cuda.synchronize()
        return [start.elapsed_time(end) for start, end in self._events[:calls]], last

    def untimed(self, fn: Callable[[], Any]) -> Any:
        self.flush()
        return fn()


def round_summary(rounds: Sequence[Sequence[float]]) -> dict:
    """The figure of one side: the median of its round medians, and their
    minimum, maximum and interquartile range (ms)."""
    medians = [statistics.median(r) for r in rounds]
    if len(medians) >= 2:
        q1, _, q3 = statistics.quantiles(medians, n=4, method="inclusive")
    else:
        q1 = q3 = medians[0]
    calls = [ms for r in rounds for ms in r]
    return {"median_ms": statistics.median(medians), "min_ms": min(medians), "max_ms": max(medians),
            "iqr_ms": q3 - q1, "round_medians_ms": medians, "fastest_call_ms": min(calls),
            "calls": len(calls)}


def measure(sides: Sequence[Side], settings: Settings, timer, rounds: int | None = None,
            calls: int | None = None) -> tuple[dict[str, list[list[float]]], dict[str, Any]]:
    """Interleaved rounds: every side gets `warmup` untimed calls (in turn),
    then round after round each side in order times `calls` calls. Returns
    each side's per-round call times (ms) and its last output."""
    rounds = settings.rounds if rounds is None else rounds
    calls = settings.calls if calls is None else calls
    for _ in range(settings.warmup):
        for side in sides:
            timer.untimed(side.call)
    timer.synchronize()
    times: dict[str, list[list[float]]] = {side.name: [] for side in sides}
    last: dict[str, Any] = {}
    for _ in range(rounds):
        for side in sides:
            ms, last[side.name] = timer.time_calls(side.call, calls)
            times[side.name].append(ms)
    return times, last


def run_row(label: str, ours: Sequence[Side], references: Sequence[Side], tol: Tolerance, settings: Settings,
            timer, truth: Callable[[], Any] | None = None, truth_tol: Tolerance | None = None,
            compare_fn: Callable = compare, log: Callable[[str], None] = print) -> dict:
    """Checks, selects and measures one row (see the module's text). Raises
    ReferenceFailure or MismatchError instead of returning a time."""
    if not ours or not references:
        raise HarnessError(f"{label}: a row needs ours and at least one reference")
    # 1. References once, checked against the higher-precision computation.
    outputs = {}
    for ref in references:
        try:
            out = ref.call()
            timer.synchronize()
            # A copy: later calls of the reference may reuse its output.
            outputs[ref.name] = out.clone() if hasattr(out, "clone") else out
        except Exception as exc:  # a reference that fails fails the run
            raise ReferenceFailure(f"{label}: {ref.name} failed: {exc!r}") from exc
    row: dict = {"label": label, "tolerance": tol.describe(), "checks": {}}
    for ref in references:
        if ref.own_truth is not None:
            c = ref.own_truth.compare(outputs[ref.name])
            row["checks"][f"{ref.name} vs {ref.own_truth.name}"] = c.as_json()
            if not c.passed:
                raise ReferenceFailure(f"{label}: {ref.name} disagrees with {ref.own_truth.name}: {c.describe()}")
    if truth is not None:
        exact = truth()
        for ref in references:
            if ref.own_truth is not None:
                continue
            c = compare_fn(outputs[ref.name], exact, truth_tol or tol)
            row["checks"][f"{ref.name} vs high precision"] = c.as_json()
            if not c.passed:
                raise ReferenceFailure(f"{label}: {ref.name} disagrees with the high-precision result: {c.describe()}")
        del exact
    want = outputs[references[0].name]

    def check(side: Side, got) -> tuple[str, Comparison]:  # what the side is held to, and how it fared
        if side.own_truth is not None:
            return side.own_truth.name, side.own_truth.compare(got)
        return references[0].name, compare_fn(got, want, tol)

    for ref in references[1:]:
        if ref.own_truth is not None:
            continue
        c = compare_fn(outputs[ref.name], want, tol)
        row["checks"][f"{ref.name} vs {references[0].name}"] = c.as_json()
        if not c.passed:
            raise ReferenceFailure(f"{label}: {ref.name} disagrees with {references[0].name}: {c.describe()}")
    # 2. Every configuration of ours, poisoned, once, at this shape.
    for side in ours:
        if side.poison is not None:
            side.poison()
        got = side.call()
        timer.synchronize()
        against, c = check(side, got)
        row["checks"][f"{side.name} vs {against}"] = c.as_json()
        log(f"  check {label} {side.name}: {c.describe()}")
        if not c.passed:
            held_to = "" if side.own_truth is not None else f" ({tol.describe()})"
            raise MismatchError(f"{label}: {side.name} differs from {against}{held_to}: {c.describe()}")
    # 3. Selection among the configurations (not the reported figure).
    chosen = ours[0]
    if len(ours) > 1:
        times, _ = measure(ours, settings, timer, settings.select_rounds, settings.select_calls)
        picks = {name: round_summary(t)["median_ms"] for name, t in times.items()}
        chosen = min(ours, key=lambda s: picks[s.name])
        row["selection_ms"] = picks
    row["config"] = {"name": chosen.name, **chosen.config}
    # 4. The interleaved measurement.
    sides = [chosen, *references]
    times, last = measure(sides, settings, timer)
    row["clocks_after"] = gpu_clocks()
    # 5. The last timed output of ours, again.
    against, c = check(chosen, last[chosen.name])
    row["checks"][f"{chosen.name} after timing vs {against}"] = c.as_json()
    if not c.passed:
        raise MismatchError(f"{label}: {chosen.name}'s output after the timed calls differs from "
                            f"{against}: {c.describe()}")
    row["ours"] = {"name": chosen.name, **round_summary(times[chosen.name])}
    row["references"] = {ref.name: round_summary(times[ref.name]) for ref in references}
    row["ratios"] = {ref.name: row["references"][ref.name]["median_ms"] / row["ours"]["median_ms"]
                     for ref in references}
    return row


# ---------------------------------------------------------------- the device

def gpu_clocks() -> dict:
    """SM and memory clocks (MHz), temperature and power now, from nvidia-smi."""
    fields = ["clocks.sm", "clocks.mem", "clocks.max.sm", "clocks.max.mem", "temperature.gpu", "power.draw"]
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits",
                              "-i", os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0]],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"error": repr(exc)}
    if out.returncode != 0:
        return {"error": out.stderr.strip()[:200]}
    values = [v.strip() for v in out.stdout.strip().splitlines()[0].split(",")]
    return dict(zip(fields, values))


def device_info() -> dict:
    import torch

    import croqjit

    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    info = {"card": torch.cuda.get_device_name(), "sm_count": props.multi_processor_count,
            "l2_bytes": int(getattr(props, "L2_cache_size", 0)), "torch": torch.__version__,
            "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(), "croqjit": croqjit.__version__,
            "clocks_at_start": gpu_clocks()}
    try:
        info["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                        capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    return info


def row_seed(seed: int, label: str) -> int:
    """A seed per row, from the run's seed and the row's label (so a row's
    data does not depend on which rows ran before it)."""
    return (seed * 1_000_003 + zlib.crc32(label.encode())) % (1 << 63)


# ------------------------------------------------------------- the scripts

@contextlib.contextmanager
def full_fp32_matmul(torch):
    """fp32 matrix products in full fp32 (TF32 off) inside, as before after."""
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


def import_croqjit():
    """croqjit from the environment, else from the build tree
    (CROQ_BUILD_DIR, default build/)."""
    try:
        import croqjit
    except ImportError:
        build = os.environ.get("CROQ_BUILD_DIR") or os.path.join(REPO, "build")
        sys.path.insert(0, os.path.join(build, "python"))
        import croqjit
    return croqjit


def parser(description: str, groups: Iterable[str] = (), budget_help: str = "") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--min-ratio", type=float,
                   help=f"budget: a row whose {budget_help or 'croq/reference throughput ratio'} is lower fails")
    p.add_argument("--json", help="write the rows and the device to this file")
    p.add_argument("--quick", action="store_true", help="fewer shapes and rounds (the one-command GPU check's budget)")
    p.add_argument("--self-test", action="store_true",
                   help="feed the harness deliberately broken kernels at the timed shapes; exit 0 only if each is "
                        "refused and the correct kernel passes")
    p.add_argument("--seed", type=int, default=int(os.environ.get("CROQ_BENCH_SEED", DEFAULT_SEED)),
                   help=f"seed of the random inputs (default {DEFAULT_SEED}, or CROQ_BENCH_SEED)")
    p.add_argument("--rounds", type=int, help="interleaved rounds (default 7, --quick 5)")
    p.add_argument("--calls", type=int, help="timed calls per side and round (default 10, --quick 5)")
    groups = list(groups)
    if groups:
        p.add_argument("--only", choices=groups, help="only this group of rows")
    return p


def settings_from(args) -> Settings:
    base = QUICK if args.quick else Settings()
    return Settings(warmup=base.warmup, rounds=args.rounds or base.rounds, calls=args.calls or base.calls,
                    select_rounds=base.select_rounds, select_calls=base.select_calls)


class Report:
    """Collects rows and failures of one script; prints the table and writes
    the JSON. exit_status() is 1 when anything failed."""

    def __init__(self, script: str, args, columns: str):
        self.script = script
        self.args = args
        self.rows: list[dict] = []
        self.failures: list[str] = []
        self.columns = columns
        self.device: dict = {}
        self.started = time.time()

    def header(self, settings: Settings, timer) -> None:
        self.device = device_info()
        self.settings = settings
        d = self.device
        print(f"{self.script}: {d['card']}, {d['sm_count']} SMs, torch {d['torch']}, cuDNN {d['cudnn']}, "
              f"croqjit {d['croqjit']}; clocks at start {d['clocks_at_start']}")
        print(f"  seed {self.args.seed}; {settings.warmup} warm-up calls per side, {settings.rounds} interleaved "
              f"rounds of {settings.calls} calls, each call alone between CUDA events after an L2 flush "
              f"({timer.flush_bytes >> 20} MiB written); figure = median of round medians")
        print(self.columns)

    def add(self, row: dict, line: str, budget: float | None = None) -> None:
        row["budget_min_ratio"] = budget
        if budget is not None:
            worst = min(row["ratios"].values())
            row["within_budget"] = worst >= budget
            if not row["within_budget"]:
                self.failures.append(f"{row['label']}: ratio {worst:.3f} below its budget {budget}")
                line += f"  OVER BUDGET (< {budget})"
        self.rows.append(row)
        print(line, flush=True)

    def skip(self, label: str, why: str) -> None:
        """A row that cannot be measured for want of a reference (one that
        refuses the shape): recorded and printed, not a failure."""
        self.rows.append({"label": label, "skipped": why})
        print(f"  {label}: not measured: {why}", flush=True)

    def fail(self, label: str, exc: BaseException) -> None:
        kind = {MismatchError: "WRONG RESULT", ReferenceFailure: "REFERENCE FAILED"}.get(type(exc), "FAILED")
        message = str(exc)
        self.failures.append(f"{label}: {kind}: {message}")
        self.rows.append({"label": label, "error": kind, "why": message})
        print(f"  {label}: {kind}: {message}", flush=True)

    def finish(self) -> int:
        if self.args.json:
            with open(self.args.json, "w") as f:
                json.dump({"script": self.script, "device": self.device, "seed": self.args.seed,
                           "settings": vars(getattr(self, "settings", Settings())), "rows": self.rows,
                           "failures": self.failures, "seconds": time.time() - self.started}, f, indent=2)
                f.write("\n")
        if self.failures:
            print(f"{self.script}: {len(self.failures)} failure(s):")
            for f in self.failures:
                print(f"  {f}")
            return 1
        print(f"{self.script}: {len(self.rows)} rows, every output matched its reference")
        return 0


def spread(summary: dict) -> str:
    """A side's figure as 'median [min, max]' in ms."""
    return f"{summary['median_ms']:.4f} [{summary['min_ms']:.4f}, {summary['max_ms']:.4f}]"


class CountingTimer:
    """Wraps a timer and counts the calls it timed (the self-test asserts
    that a refused kernel got none)."""

    def __init__(self, inner):
        self.inner = inner
        self.timed = 0
        self.flush_bytes = getattr(inner, "flush_bytes", 0)

    def flush(self):
        self.inner.flush()

    def synchronize(self):
        self.inner.synchronize()

    def untimed(self, fn):
        return self.inner.untimed(fn)

    def time_calls(self, fn, calls):
        self.timed += calls
        return self.inner.time_calls(fn, calls)


@dataclass
class SelfTestCase:
    """A deliberately broken variant of a kernel, at a timed shape: the
    correct kernel must pass the row's check, the broken one be refused."""

    label: str
    correct: Side
    broken: Side
    references: Sequence[Side]
    tol: Tolerance
    compare_fn: Callable | None = None  # the row's own comparison (e.g. of several outputs), else compare


def run_self_test(cases: Sequence[SelfTestCase], timer, log: Callable[[str], None] = print,
                  compare_fn: Callable = compare) -> list[str]:
    """Runs each case through run_row with no rounds; returns the failures
    (empty: every broken variant was refused and every correct one passed)."""
    settings = Settings(warmup=0, rounds=1, calls=1, select_rounds=1, select_calls=1)
    failures = []
    for case in cases:
        case_compare = case.compare_fn or compare_fn
        counting = CountingTimer(timer)
        try:
            run_row(case.label, [case.correct], case.references, case.tol, settings, counting,
                    compare_fn=case_compare, log=log)
        except HarnessError as exc:
            failures.append(f"{case.label}: the correct kernel was refused: {exc}")
            continue
        counting = CountingTimer(timer)
        try:
            run_row(case.label, [case.broken], case.references, case.tol, settings, counting,
                    compare_fn=case_compare, log=log)
            failures.append(f"{case.label}: the broken variant '{case.broken.name}' got a time")
        except MismatchError as exc:
            if counting.timed:
                failures.append(f"{case.label}: {counting.timed} calls of the broken variant were timed")
            else:
                log(f"  self-test {case.label}: '{case.broken.name}' refused, as it must be: {exc}")
        except HarnessError as exc:
            failures.append(f"{case.label}: the broken variant failed otherwise: {exc}")
    return failures


def self_test_main(script: str, cases_fn: Callable[[Any], Sequence[SelfTestCase]], timer) -> int:
    failures = run_self_test(cases_fn(timer), timer)
    if failures:
        print(f"{script} --self-test: {len(failures)} failure(s):")
        for f in failures:
            print(f"  {f}")
        return 1
    print(f"{script} --self-test: every broken variant was refused before timing, every correct kernel passed")
    return 0


EXIT_NO_GPU = 77


def script_main(script: str, description: str, groups: Sequence[str], columns: str,
                run_rows: Callable[[Report, Settings, Any, Any], None],
                self_test_cases: Callable[[Any], Sequence[SelfTestCase]], budget_help: str = "",
                extra_args: Callable[[argparse.ArgumentParser], None] | None = None, argv=None) -> int:
    """The command line every script shares: --self-test runs the broken
    variants; otherwise the rows, the table and the JSON. Exit status 0 when
    every row matched its reference and stayed within its budget, 1 when
    not, 77 without a CUDA device (nothing measured)."""
    p = parser(description, groups, budget_help)
    if extra_args is not None:
        extra_args(p)
    args = p.parse_args(argv)
    croqjit = import_croqjit()
    try:
        import torch
    except ImportError as exc:
        print(f"{script}: needs torch ({exc}); nothing measured")
        return EXIT_NO_GPU

    if not torch.cuda.is_available() or not croqjit.cuda_available():
        why = croqjit.cuda_unavailable_reason() if torch.cuda.is_available() else "torch sees no CUDA device"
        print(f"{script}: needs a CUDA GPU ({why}); nothing measured")
        return EXIT_NO_GPU
    timer = TorchTimer()
    if args.self_test:
        return self_test_main(script, lambda _: self_test_cases(args), timer)
    settings = settings_from(args)
    report = Report(script, args, columns)
    report.header(settings, timer)
    try:
        run_rows(report, settings, timer, args)
    except Exception as exc:  # a crash of the script itself is a failure too, with its reason
        report.fail("script", exc)
        import traceback

        traceback.print_exc()
    return report.finish()


def generator(seed: int, label: str):
    """A CUDA generator seeded for one row."""
    import torch

    g = torch.Generator(device="cuda")
    g.manual_seed(row_seed(seed, label))
    return g


def guarded(report: Report, label: str, fn: Callable[[], None]) -> None:
    """Runs one row; a wrong result, a failed reference or any other error
    is recorded as the row's failure and the script goes on."""
    import torch

    try:
        fn()
    except Exception as exc:
        report.fail(label, exc)
    finally:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
