"""f16 and bf16 GEMM, C = A B^T (A [M, K], B [N, K], fp32 accumulate, C in
the input type): croqjit's persistent warp-specialized GEMM
(samples/matmul_persistent.cpp) in three tile configurations against
torch.matmul (cuBLAS), in one process on the same tensors (harness.py says
how rows are checked and timed). cuBLAS is checked first against an fp32
matmul of the same inputs (TF32 off).

Shapes: gemm_bench's (4096^3, 8192^3, M = 128), small M (decode-like), tails
in every dimension, and the projections of a 7B model (Llama-2: QKV, MLP up,
MLP down) at 4096 tokens. Inputs: torch.randn for A and B (two draws),
seeded per row. With --upstream-readme README.md it also times upstream
Croqtile's README GEMM as written (f16 accumulate, a host tile order).

    python bench/harness/bench_gemm.py [--quick] [--json OUT] [--only f16|bf16] [--self-test]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kernel_text  # noqa: E402

# Output tile 128 x BN and pipeline depth (the kernel's #defines).
CONFIGS = [("128x256 s3", {"BN": 256, "STAGES": 3}), ("128x128 s6", {"BN": 128, "STAGES": 6}),
           ("128x64 s8", {"BN": 64, "STAGES": 8})]

# (group, M, N, K). TMA needs rows of a multiple of 16 bytes: N and K
# multiples of 8.
SHAPES = [
    ("square", 4096, 4096, 4096), ("square", 8192, 8192, 8192), ("M=128", 128, 8192, 8192),
    ("small M", 1, 4096, 4096), ("small M", 16, 4096, 4096), ("small M", 64, 8192, 8192),
    ("tails", 4000, 4000, 4000), ("tails", 1000, 1000, 1032),
    ("7B QKV", 4096, 12288, 4096), ("7B MLP up", 4096, 11008, 4096), ("7B MLP down", 4096, 4096, 11008),
]
QUICK_SHAPES = [SHAPES[i] for i in (0, 1, 2, 4, 6, 9)]

# cuBLAS and ours against each other (and cuBLAS against fp32): outputs
# rounded to f16 / bf16 differ by about an ulp; a K loop one tile short is
# off by sqrt(TK / K) (8.8% at K = 8192) and an unwritten row is NaN.
TOLERANCE = harness.Tolerance(rel_frobenius=1e-2, rms_fraction=0.05, rel_element=1e-2)

COLUMNS = (f"  {'GEMM (C = A B^T)':38s} {'croq TFLOP/s':>13s} {'cuBLAS TFLOP/s':>15s} {'croq/cuBLAS':>12s}"
           f"  croq ms [min, max]   cuBLAS ms [min, max]   config")


def tflops(m, n, k, ms):
    return 2.0 * m * n * k / (ms * 1e-3) / 1e12


def inputs(torch, dtype, m, n, k, seed, label):
    g = harness.generator(seed, label)
    a = torch.randn(m, k, device="cuda", dtype=dtype, generator=g)
    b = torch.randn(n, k, device="cuda", dtype=dtype, generator=g)
    return a, b


def fp32_matmul(torch, a, b):
    """The higher-precision check of the reference: A B^T in fp32, TF32 off."""
    with harness.full_fp32_matmul(torch):
        return torch.matmul(a.float(), b.float().t())


def croq_side(croqjit, source, name, defines, a, b, c):
    kernel = croqjit.compile(source, defines=defines, source_name=f"gemm {name}.co")

    def call():
        kernel(a, b, c)
        return c

    return harness.Side(name, call, poison=lambda: c.fill_(float("nan")), config=dict(defines))


def cublas_side(torch, a, b):
    return harness.Side("cuBLAS", lambda: torch.matmul(a, b.t()))


def run_rows(report, settings, timer, args):
    import torch

    croqjit = harness.import_croqjit()
    shapes = QUICK_SHAPES if args.quick else SHAPES
    for element in ("f16", "bf16"):
        if args.only and args.only != element:
            continue
        dtype = torch.float16 if element == "f16" else torch.bfloat16
        source = kernel_text.gemm(element)
        for group, m, n, k in shapes:
            label = f"{element} {m}x{n}x{k} ({group})"
            harness.guarded(report, label, lambda: gemm_row(torch, croqjit, report, settings, timer, args, source,
                                                            element, dtype, label, m, n, k))
    if args.upstream_readme and args.only in (None, "f16"):
        readme_rows(torch, croqjit, report, settings, timer, args)


def gemm_row(torch, croqjit, report, settings, timer, args, source, element, dtype, label, m, n, k):
    a, b = inputs(torch, dtype, m, n, k, args.seed, label)
    c = torch.empty(m, n, device="cuda", dtype=dtype)
    ours = [croq_side(croqjit, source, name, defines, a, b, c) for name, defines in CONFIGS]
    row = harness.run_row(label, ours, [cublas_side(torch, a, b)], TOLERANCE, settings, timer,
                          truth=lambda: fp32_matmul(torch, a, b))
    add_row(report, row, element, m, n, k, args.seed, args.min_ratio)


def add_row(report, row, element, m, n, k, seed, budget):
    row.update({"dtype": element, "m": m, "n": n, "k": k, "seed": harness.row_seed(seed, row["label"])})
    ours, ref = row["ours"], row["references"]["cuBLAS"]
    row["croq_tflops"] = tflops(m, n, k, ours["median_ms"])
    row["cublas_tflops"] = tflops(m, n, k, ref["median_ms"])
    line = (f"  {row['label']:38s} {row['croq_tflops']:13.1f} {row['cublas_tflops']:15.1f} "
            f"{row['ratios']['cuBLAS']:12.3f}  {harness.spread(ours)}  {harness.spread(ref)}  {row['config']['name']}")
    report.add(row, line, budget)


def readme_schedule(torch, m, n, tile_m=64, tile_n=128, group=8):
    """The tile order upstream's README GEMM takes from the host: groups of
    `group` tile rows, column by column inside a group."""
    tiles_m, tiles_n = -(-m // tile_m), -(-n // tile_n)
    t = torch.arange(tiles_m * tiles_n, device="cuda", dtype=torch.int64)
    first_m = t // (group * tiles_n) * group
    rows = torch.clamp(tiles_m - first_m, max=group)
    order_m = first_m + t % (group * tiles_n) % rows
    order_n = t % (group * tiles_n) // rows
    return order_m.to(torch.int32), order_n.to(torch.int32)


def readme_rows(torch, croqjit, report, settings, timer, args):
    source = kernel_text.readme_gemm(args.upstream_readme)
    kernel = croqjit.compile(source, source_name="upstream README GEMM")
    for m, n, k in ((4096, 4096, 4096), (8192, 8192, 8192)):
        label = f"f16 {m}x{n}x{k} (upstream README GEMM, f16 accumulate)"

        def row_fn(m=m, n=n, k=k, label=label):
            a, b = inputs(torch, torch.float16, m, n, k, args.seed, label)
            c = torch.empty(m, n, device="cuda", dtype=torch.float16)
            order_m, order_n = readme_schedule(torch, m, n)

            def call():
                kernel(a, b, c, order_m, order_n)
                return c

            ours = harness.Side("README GEMM", call, poison=lambda: c.fill_(float("nan")),
                                config={"as written": "64x128 tiles, f16 accumulate"})
            row = harness.run_row(label, [ours], [cublas_side(torch, a, b)], TOLERANCE, settings, timer,
                                  truth=lambda: fp32_matmul(torch, a, b))
            add_row(report, row, "f16", m, n, k, args.seed, args.min_ratio)

        harness.guarded(report, label, row_fn)


def self_test_cases(args):
    """At timed shapes: the K loop one tile short (f16, 4096^3) and output
    tiles counted without the partial tile row (bf16, 4000^3)."""
    import torch

    croqjit = harness.import_croqjit()
    cases = []
    for element, dtype, (m, n, k), broken, what in (
            ("f16", torch.float16, (4096, 4096, 4096), kernel_text.gemm_k_loop_short, "K loop one tile short"),
            ("bf16", torch.bfloat16, (4000, 4000, 4000), kernel_text.gemm_wrong_tail, "wrong M tail")):
        label = f"{element} {m}x{n}x{k}"
        a, b = inputs(torch, dtype, m, n, k, args.seed, label)
        c = torch.empty(m, n, device="cuda", dtype=dtype)
        name, defines = CONFIGS[0]
        source = kernel_text.gemm(element)
        cases.append(harness.SelfTestCase(
            label, croq_side(croqjit, source, name, defines, a, b, c),
            croq_side(croqjit, broken(source), f"{name}, {what}", defines, a, b, c),
            [cublas_side(torch, a, b)], TOLERANCE))
    return cases


def main():
    description = __doc__.split("\n\n")[0]
    parser_groups = ["f16", "bf16"]

    def extra(p):
        p.add_argument("--upstream-readme", help="also time upstream Croqtile's README GEMM read from this README.md")

    return harness.script_main("bench_gemm", description, parser_groups, COLUMNS, run_rows, self_test_cases,
                               budget_help="croq/cuBLAS throughput ratio", extra_args=extra)


if __name__ == "__main__":
    sys.exit(main())
