"""Element-wise f32 add, c = a + b: croqjit's one-instance-per-element kernel
(bench/harness/kernels/add_f32.co) against torch.add, in one process on the
same tensors (harness.py says how rows are checked and timed). Every
element is compared, bitwise (both round the same f32 sum). Bandwidth
counts 12 bytes an element (two reads, one write). Budget: at 2^28
elements croq reaches at least 0.9 of torch.add's bandwidth (--min-ratio
changes it).

Inputs: torch.randn for a and b (two draws), seeded per row.

    python bench/harness/bench_add.py [--quick] [--json OUT] [--self-test]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kernel_text  # noqa: E402

# (log2 of the element count, budget: the least croq/torch bandwidth ratio).
SIZES = [(28, 0.9), (24, None)]

COLUMNS = (f"  {'f32 add':24s} {'croq TB/s':>10s} {'torch TB/s':>11s} {'croq/torch':>11s}"
           f"  croq ms [min, max]   torch ms [min, max]")

EXACT = harness.Tolerance(exact=True)


def inputs(torch, n, seed, label):
    g = harness.generator(seed, label)
    return (torch.randn(n, device="cuda", generator=g), torch.randn(n, device="cuda", generator=g))


def croq_side(croqjit, source, name, a, b, c):
    kernel = croqjit.compile(source, source_name="add_f32.co")

    def call():
        kernel(a, b, c)
        return c

    return harness.Side(name, call, poison=lambda: c.fill_(float("nan")))


def run_rows(report, settings, timer, args):
    import torch

    croqjit = harness.import_croqjit()
    source = kernel_text.add()
    for log2, budget in SIZES:
        n = 1 << log2
        label = f"f32 add 2^{log2}"

        def row_fn(n=n, label=label, budget=budget):
            a, b = inputs(torch, n, args.seed, label)
            c = torch.empty_like(a)
            row = harness.run_row(label, [croq_side(croqjit, source, "croq", a, b, c)],
                                  [harness.Side("torch.add", lambda: torch.add(a, b))], EXACT, settings, timer)
            row.update({"n": n, "seed": harness.row_seed(args.seed, label)})
            ours, ref = row["ours"], row["references"]["torch.add"]
            row["croq_tbps"] = 12.0 * n / (ours["median_ms"] * 1e-3) / 1e12
            row["torch_tbps"] = 12.0 * n / (ref["median_ms"] * 1e-3) / 1e12
            line = (f"  {label:24s} {row['croq_tbps']:10.3f} {row['torch_tbps']:11.3f} {row['ratios']['torch.add']:11.3f}"
                    f"  {harness.spread(ours)}  {harness.spread(ref)}")
            report.add(row, line, args.min_ratio if args.min_ratio is not None else budget)

        harness.guarded(report, label, row_fn)


def self_test_cases(args):
    """At 2^28: the last element never written (a grid one instance short)."""
    import torch

    croqjit = harness.import_croqjit()
    n = 1 << 28
    label = "f32 add 2^28"
    a, b = inputs(torch, n, args.seed, label)
    c = torch.empty_like(a)
    source = kernel_text.add()
    broken = kernel_text.replace_exactly(source, "parallel i by N\n", "parallel i by N - 1\n", 1)
    return [harness.SelfTestCase(label, croq_side(croqjit, source, "croq", a, b, c),
                                 croq_side(croqjit, broken, "croq, last element not written", a, b, c),
                                 [harness.Side("torch.add", lambda: torch.add(a, b))], EXACT)]


def main():
    return harness.script_main("bench_add", __doc__.split("\n\n")[0], [], COLUMNS, run_rows, self_test_cases,
                               budget_help="croq/torch bandwidth ratio (default: 0.9 at 2^28)")


if __name__ == "__main__":
    sys.exit(main())
