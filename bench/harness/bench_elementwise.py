"""Memory-bound element-wise kernels written in plain Croqtile (the README's
add, a fused multiply-add of three tensors, a cast from f32, a transpose
`y.at(j, i) = x.at(i, j)` that the compiler moves through shared tiles:
bench/harness/kernels/ew_*.co) against torch (torch.add, torch.addcmul, Tensor.to,
x.t().contiguous()) and against a device-to-device copy (Tensor.copy_ of a
tensor of the row's element type and element count), in one process on the
same tensors (harness.py says how rows are checked and timed).

Each row is timed twice in interleaved rounds: croq against torch (the
harness's row, whose ratio is the figure `croq/torch`), then croq against
the copy (`croq/copy`: croq's bandwidth over the copy's). Bandwidth counts
every byte a call must move: each input read once, the output written once.
`of peak` is croq's bandwidth over the device's DRAM peak
(croqjit.device_peaks: memory clock x bus width x 2).

Shapes: [16384, 16384] and [16381, 16387] (an element count that is no
multiple of any vector width, and rows that are not either: the
transpose's tiles past the last whole one); the transpose also [16384,
16387] and [16381, 16384]. --quick: [8192, 8192] and [8191, 8193].

    python bench/harness/bench_elementwise.py [--quick] [--only add|fma|cast|transpose] [--json OUT]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kernel_text  # noqa: E402

KINDS = ["add", "fma", "cast", "transpose"]
ELEMENTS = ["f32", "f16", "bf16"]
SHAPES = [(16384, 16384), (16381, 16387)]
QUICK_SHAPES = [(8192, 8192), (8191, 8193)]
# The transpose's rows of x and of y each start on whole 16-byte chunks or
# not: these take one side at a time (x's rows off, then y's).
TRANSPOSE_SHAPES = [(16384, 16387), (16381, 16384)]

COLUMNS = (f"  {'kernel':34s} {'croq GB/s':>10s} {'torch GB/s':>11s} {'copy GB/s':>10s} {'croq/torch':>11s}"
           f" {'croq/copy':>10s} {'of peak':>8s}  croq ms [min, max]")


def torch_dtype(torch, element):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[element]


def tolerance(kind, element):
    """add, cast and transpose round once, as torch does: bitwise equal.
    fma: croq rounds a * b and then the sum to a narrow type (Croqtile's
    arithmetic on narrow types) and may contract f32 into one fma, torch's
    addcmul computes in f32 and rounds once: every element within 8 units of
    the last place of the element type at the output's rms (the product's
    rounding, where a * b and c cancel) plus 2 of its own."""
    if kind != "fma":
        return harness.Tolerance(exact=True)
    ulp = {"f32": 2.0 ** -23, "f16": 2.0 ** -10, "bf16": 2.0 ** -7}[element]
    return harness.Tolerance(rel_frobenius=4 * ulp, rms_fraction=8 * ulp, rel_element=2 * ulp)


def make_row(torch, croqjit, kind, element, shape, seed):
    """The inputs, the croq call, the torch call, the copy call and the bytes
    a call moves."""
    m, n = shape
    g = harness.generator(seed, f"{kind} {element} {m}x{n}")
    dt = torch_dtype(torch, element)
    if kind == "cast":
        x = torch.randn(m, n, device="cuda", generator=g) * 100
        y = torch.empty(m, n, device="cuda", dtype=dt)
        kernel = croqjit.compile(kernel_text.elementwise("cast", element), source_name="ew_cast.co")
        ours = harness.Side("croq", lambda: (kernel(x, y), y)[1], poison=lambda: y.fill_(float("nan")))
        ref = harness.Side("torch", lambda: x.to(dt))
        moved = x.numel() * 4 + y.numel() * y.element_size()
        copy_src, copy_dst = torch.empty(m, n, device="cuda", dtype=dt), torch.empty(m, n, device="cuda", dtype=dt)
        return ours, ref, (copy_src, copy_dst), moved
    inputs = [torch.randn(m, n, device="cuda", generator=g).to(dt) for _ in range(3 if kind == "fma" else 1 if kind == "transpose" else 2)]
    out = torch.empty((n, m) if kind == "transpose" else (m, n), device="cuda", dtype=dt)
    kernel = croqjit.compile(kernel_text.elementwise(kind, element), source_name=f"ew_{kind}.co")
    if kind == "transpose":
        x = inputs[0]
        ours = harness.Side("croq", lambda: (kernel(x, out), out)[1], poison=lambda: out.fill_(float("nan")))
        ref = harness.Side("torch", lambda: x.t().contiguous())
    elif kind == "add":
        a, b = inputs
        ours = harness.Side("croq", lambda: (kernel(a, b, out), out)[1], poison=lambda: out.fill_(float("nan")))
        ref = harness.Side("torch", lambda: torch.add(a, b))
    else:
        a, b, c = inputs
        ours = harness.Side("croq", lambda: (kernel(a, b, c, out), out)[1], poison=lambda: out.fill_(float("nan")))
        ref = harness.Side("torch", lambda: torch.addcmul(c, a, b))
    moved = sum(t.numel() * t.element_size() for t in inputs) + out.numel() * out.element_size()
    copy_src, copy_dst = torch.empty(m, n, device="cuda", dtype=dt), torch.empty(m, n, device="cuda", dtype=dt)
    return ours, ref, (copy_src, copy_dst), moved


def run_rows(report, settings, timer, args):
    import torch

    croqjit = harness.import_croqjit()
    peak = croqjit.device_peaks(torch.cuda.current_device()).memory_bytes_per_second
    report.device["dram_bytes_per_second"] = peak
    shapes = QUICK_SHAPES if args.quick else SHAPES
    for kind in KINDS:
        if args.only and args.only != kind:
            continue
        for element in ELEMENTS:
            if kind == "cast" and element == "f32":
                continue  # the cast's source is f32: its rows are f32 -> f16 and f32 -> bf16
            for shape in shapes + (TRANSPOSE_SHAPES if kind == "transpose" and not args.quick else []):
                what = f"cast f32 -> {element}" if kind == "cast" else f"{kind} {element}"
                label = f"{what} [{shape[0]}, {shape[1]}]"

                def row_fn(kind=kind, element=element, shape=shape, label=label):
                    ours, ref, (src, dst), moved = make_row(torch, croqjit, kind, element, shape, args.seed)
                    row = harness.run_row(label, [ours], [ref], tolerance(kind, element), settings, timer)
                    copy = harness.Side("copy", lambda: dst.copy_(src))
                    times, _ = harness.measure([ours, copy], settings, timer)
                    ours_again = harness.round_summary(times["croq"])
                    copy_summary = harness.round_summary(times["copy"])
                    copy_bytes = 2 * src.numel() * src.element_size()
                    gbps = lambda nbytes, s: nbytes / (s["median_ms"] * 1e-3) / 1e9  # noqa: E731
                    row.update({"shape": list(shape), "bytes_moved": moved, "seed": harness.row_seed(args.seed, label),
                                "croq_gbps": gbps(moved, row["ours"]), "torch_gbps": gbps(moved, row["references"]["torch"]),
                                "copy": copy_summary, "croq_vs_copy_round": ours_again,
                                "copy_gbps": gbps(copy_bytes, copy_summary),
                                "croq_gbps_copy_round": gbps(moved, ours_again)})
                    row["croq_over_copy"] = row["croq_gbps_copy_round"] / row["copy_gbps"]
                    row["fraction_of_peak"] = row["croq_gbps"] * 1e9 / peak if peak else None
                    line = (f"  {label:34s} {row['croq_gbps']:10.1f} {row['torch_gbps']:11.1f} {row['copy_gbps']:10.1f}"
                            f" {row['ratios']['torch']:11.3f} {row['croq_over_copy']:10.3f}"
                            f" {row['fraction_of_peak'] or 0:8.3f}  {harness.spread(row['ours'])}")
                    report.add(row, line, args.min_ratio)

                harness.guarded(report, label, row_fn)


def self_test_cases(args):
    """The add at [8191, 8193] f16 with its last element never written (a
    level one instance short of the tensor): the poisoned NaN must be caught."""
    import torch

    croqjit = harness.import_croqjit()
    source = kernel_text.elementwise("add", "f16")
    broken = kernel_text.replace_exactly(source, "parallel {i, j} by [M, N]", "parallel {i, j} by [M, N - 1]", 1)
    kernel = croqjit.compile(broken, source_name="ew_add_broken.co")
    g = harness.generator(args.seed, "self-test add")
    a = torch.randn(8191, 8193, device="cuda", generator=g).half()
    b = torch.randn(8191, 8193, device="cuda", generator=g).half()
    out = torch.empty_like(a)
    good = croqjit.compile(source, source_name="ew_add.co")
    correct = harness.Side("croq", lambda: (good(a, b, out), out)[1], poison=lambda: out.fill_(float("nan")))
    wrong = harness.Side("croq, last column not written", lambda: (kernel(a, b, out), out)[1],
                         poison=lambda: out.fill_(float("nan")))
    return [harness.SelfTestCase("add f16 [8191, 8193]", correct, wrong, [harness.Side("torch", lambda: torch.add(a, b))],
                                 harness.Tolerance(exact=True))]


def main():
    return harness.script_main("bench_elementwise", __doc__.split("\n\n")[0], KINDS, COLUMNS, run_rows,
                               self_test_cases, budget_help="croq/torch bandwidth ratio (default: none)")


if __name__ == "__main__":
    sys.exit(main())
