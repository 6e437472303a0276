"""fp8 GEMM, C = A B^T with f8_e4m3 A [M, K] and B [N, K], fp32 accumulate,
bf16 C: croqjit's persistent fp8 GEMM (samples/matmul_fp8.cpp) in three tile
configurations against torch._scaled_mm (cuBLASLt, scales 1, bf16 out)
with use_fast_accum=True (accumulation in the tensor core, as WGMMA does:
the reference the ratio uses) and with the default promoted accumulation
(timed too), in one process on the same tensors (harness.py says how rows
are checked and timed). Both cuBLASLt calls are checked against an fp32
matmul of the same e4m3 values.

Inputs: torch.randn rounded to e4m3 (two draws), seeded per row.

    python bench/harness/bench_fp8_gemm.py [--quick] [--json OUT] [--self-test]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kernel_text  # noqa: E402
from bench_gemm import CONFIGS, TOLERANCE, croq_side, fp32_matmul, tflops  # noqa: E402

# fp8 rows are K bytes (TMA: a multiple of 16); cuBLASLt wants N and K
# multiples of 16.
SHAPES = [("square", 4096, 4096, 4096), ("square", 8192, 8192, 8192), ("tails", 4000, 4000, 4000),
          ("7B MLP up", 4096, 11008, 4096), ("small M", 16, 4096, 4096)]
QUICK_SHAPES = SHAPES[:2]

COLUMNS = (f"  {'fp8 GEMM (e4m3 -> bf16)':34s} {'croq TFLOP/s':>13s} {'cuBLASLt TFLOP/s':>17s} {'croq/cuBLASLt':>14s}"
           f" {'promoted TFLOP/s':>17s}  croq ms [min, max]   cuBLASLt ms [min, max]   config")


def scaled_mm(torch, a, b, fast_accum):
    """torch._scaled_mm(a, b.t()) (b.t() is the column-major operand
    cuBLASLt wants), scales 1, bf16 out; older torch returns (out, amax)."""
    one = torch.ones((), device="cuda", dtype=torch.float32)

    def call():
        r = torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=fast_accum)
        return r[0] if isinstance(r, tuple) else r

    return call


def inputs(torch, m, n, k, seed, label):
    g = harness.generator(seed, label)
    a = torch.randn(m, k, device="cuda", generator=g).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda", generator=g).to(torch.float8_e4m3fn)
    return a, b


def references(torch, a, b):
    return [harness.Side("cuBLASLt", scaled_mm(torch, a, b, True)),
            harness.Side("cuBLASLt promoted", scaled_mm(torch, a, b, False))]


def run_rows(report, settings, timer, args):
    import torch

    croqjit = harness.import_croqjit()
    source = kernel_text.gemm("fp8")
    for group, m, n, k in (QUICK_SHAPES if args.quick else SHAPES):
        label = f"fp8 {m}x{n}x{k} ({group})"

        def row_fn(m=m, n=n, k=k, label=label):
            a, b = inputs(torch, m, n, k, args.seed, label)
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            ours = [croq_side(croqjit, source, name, defines, a, b, c) for name, defines in CONFIGS]
            row = harness.run_row(label, ours, references(torch, a, b), TOLERANCE, settings, timer,
                                  truth=lambda: fp32_matmul(torch, a, b))
            row.update({"dtype": "fp8", "out": "bf16", "m": m, "n": n, "k": k,
                        "seed": harness.row_seed(args.seed, label)})
            ours_s, ref, promoted = row["ours"], row["references"]["cuBLASLt"], row["references"]["cuBLASLt promoted"]
            row["croq_tflops"] = tflops(m, n, k, ours_s["median_ms"])
            row["cublaslt_tflops"] = tflops(m, n, k, ref["median_ms"])
            row["cublaslt_promoted_tflops"] = tflops(m, n, k, promoted["median_ms"])
            line = (f"  {label:34s} {row['croq_tflops']:13.1f} {row['cublaslt_tflops']:17.1f} "
                    f"{row['ratios']['cuBLASLt']:14.3f} {row['cublaslt_promoted_tflops']:17.1f}  "
                    f"{harness.spread(ours_s)}  {harness.spread(ref)}  {row['config']['name']}")
            report.add(row, line, args.min_ratio)

        harness.guarded(report, label, row_fn)


def self_test_cases(args):
    """At 4096^3: the K loop one tile short (128 of 4096 K elements unused)."""
    import torch

    croqjit = harness.import_croqjit()
    m = n = k = 4096
    label = f"fp8 {m}x{n}x{k}"
    a, b = inputs(torch, m, n, k, args.seed, label)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    name, defines = CONFIGS[0]
    source = kernel_text.gemm("fp8")
    return [harness.SelfTestCase(label, croq_side(croqjit, source, name, defines, a, b, c),
                                 croq_side(croqjit, kernel_text.gemm_k_loop_short(source),
                                           f"{name}, K loop one tile short", defines, a, b, c),
                                 references(torch, a, b)[:1], TOLERANCE)]


def main():
    return harness.script_main("bench_fp8_gemm", __doc__.split("\n\n")[0], [], COLUMNS, run_rows, self_test_cases,
                               budget_help="croq/cuBLASLt throughput ratio")


if __name__ == "__main__":
    sys.exit(main())
