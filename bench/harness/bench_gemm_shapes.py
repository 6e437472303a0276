"""f16 and bf16 GEMM, C = A B^T (A [M, K], B [N, K]), across model shapes:
croqjit's GEMM for every shape (samples/gemm_any_source.hpp) with the
configuration its model chooses for each shape and this device (wider
tiles with split K for small M), against torch.matmul (cuBLAS), in one process on the same tensors
(harness.py says how rows are checked and timed). cuBLAS is checked first
against an fp32 matmul of the same inputs (TF32 off).

Shapes: the projections of Llama-class models (8B: QKV 6144x4096, O
4096x4096, MLP up 14336x4096, MLP down 4096x14336; 70B: QKV 10240x8192, O
8192x8192, MLP up 28672x8192, MLP down 8192x28672; as N x K) at M = 16,
64, 256, 1024, 4096 and 16384 tokens; gemm_bench's three (4096^3, 8192^3,
M = 128); and awkward ones (M = 1, tails in every dimension, a small N
that only split K fills the device with). Every configuration is compiled
before the first row (in parallel threads), so the rows time only kernels. --explore N also times the model's next N - 1
candidates in the selection pass and reports the fastest (the JSON keeps
each candidate's selection time: data to refine the model).

The summary gives, per element type and row group, the geometric mean and
the lowest croq/cuBLAS ratio.

    python bench/harness/bench_gemm_shapes.py [--quick] [--only f16|bf16] [--explore N] [--json OUT]
"""
import concurrent.futures
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_gemm  # noqa: E402
import harness  # noqa: E402
import kernel_text  # noqa: E402

# (name, N, K) of the projections.
PROJECTIONS = [("8B QKV", 6144, 4096), ("8B O", 4096, 4096), ("8B up", 14336, 4096), ("8B down", 4096, 14336),
               ("70B QKV", 10240, 8192), ("70B O", 8192, 8192), ("70B up", 28672, 8192), ("70B down", 8192, 28672)]
TOKENS = [16, 64, 256, 1024, 4096, 16384]
# (group, M, N, K)
SHAPES = ([("model", m, n, k) for m in TOKENS for _, n, k in PROJECTIONS]
          + [("gemm_bench", 4096, 4096, 4096), ("gemm_bench", 8192, 8192, 8192), ("gemm_bench", 128, 8192, 8192)]
          + [("awkward", 1, 4096, 4096), ("awkward", 1, 14336, 4096), ("awkward", 37, 6144, 4096),
             ("awkward", 1000, 1000, 1032), ("awkward", 4000, 4000, 4000), ("awkward", 333, 10240, 8192),
             ("awkward", 16, 1024, 8192)])
QUICK_SHAPES = ([("model", m, n, k) for m in TOKENS for _, n, k in PROJECTIONS if (n, k) in ((4096, 4096), (14336, 4096),
                                                                                              (8192, 28672))]
                + [s for s in SHAPES if s[0] == "gemm_bench"])

COLUMNS = (f"  {'GEMM (C = A B^T)':34s} {'croq TFLOP/s':>13s} {'cuBLAS TFLOP/s':>15s} {'croq/cuBLAS':>12s}"
           f"  croq ms [min, max]   config")


def device_figures(croqjit, torch):
    """(SMs, DRAM bytes/s, tensor FLOP/s) of the current device for the model."""
    peaks = croqjit.device_peaks(torch.cuda.current_device())
    # (fastest first: on sm_90 f8's peak comes before f16's)
    flops = next((f for name, f in peaks.compute if name == "f16/bf16 tensor cores"), 989e12)
    return peaks.sm_count, peaks.memory_bytes_per_second, flops


def precompile(croqjit, sources, rows, log=print):
    """Compiles every (element, configuration, shape) of the run in threads
    (kernel.prepare releases the GIL); returns {(element, name): kernel}."""
    kernels = {}
    for element, defines, _ in rows:
        key = (element, kernel_text.gemm_config_name(defines))
        if key not in kernels:
            kernels[key] = croqjit.compile(sources[element], defines=defines, source_name=f"gemm_any {key[1]}.co")

    def prepare(row):
        element, defines, (m, n, k) = row
        spec = lambda *shape: croqjit.TensorSpec(shape, element, device=0)  # noqa: E731
        kernels[(element, kernel_text.gemm_config_name(defines))].prepare(spec(m, k), spec(n, k), spec(m, n))

    with concurrent.futures.ThreadPoolExecutor(max_workers=min(16, os.cpu_count() or 4)) as pool:
        for future in concurrent.futures.as_completed([pool.submit(prepare, r) for r in rows]):
            future.result()
    log(f"  compiled {len(rows)} specializations of {len(kernels)} configurations")
    return kernels


def run_rows(report, settings, timer, args):
    import torch

    croqjit = harness.import_croqjit()
    device = device_figures(croqjit, torch)
    report.device["gemm_model_device"] = {"sms": device[0], "dram_bytes_per_s": device[1], "tensor_flops": device[2]}
    shapes = QUICK_SHAPES if args.quick else SHAPES
    elements = [e for e in ("f16", "bf16") if not args.only or args.only == e]
    sources = {e: kernel_text.gemm_any(e) for e in elements}
    plans = {}  # (element, m, n, k) -> ranked #define dicts
    for element in elements:
        for _, m, n, k in shapes:
            plans[(element, m, n, k)] = kernel_text.gemm_configs(m, n, k, device, top=max(1, args.explore))
    kernels = precompile(croqjit, sources, [(e, d, (m, n, k)) for (e, m, n, k), ranked in plans.items()
                                            for d in ranked])
    summary = {}
    for element in elements:
        dtype = torch.float16 if element == "f16" else torch.bfloat16
        for group, m, n, k in shapes:
            label = f"{element} {m}x{n}x{k} ({group})"

            def row_fn(element=element, dtype=dtype, group=group, m=m, n=n, k=k, label=label):
                a, b = bench_gemm.inputs(torch, dtype, m, n, k, args.seed, label)
                c = torch.empty(m, n, device="cuda", dtype=dtype)
                ours = []
                for defines in plans[(element, m, n, k)]:
                    name = kernel_text.gemm_config_name(defines)
                    ours.append(croq_side(kernels[(element, name)], name, defines, a, b, c))
                row = harness.run_row(label, ours, [bench_gemm.cublas_side(torch, a, b)], bench_gemm.TOLERANCE,
                                      settings, timer, truth=lambda: bench_gemm.fp32_matmul(torch, a, b))
                row.update({"dtype": element, "m": m, "n": n, "k": k, "group": group,
                            "model_choice": kernel_text.gemm_config_name(plans[(element, m, n, k)][0])})
                row["croq_tflops"] = bench_gemm.tflops(m, n, k, row["ours"]["median_ms"])
                row["cublas_tflops"] = bench_gemm.tflops(m, n, k, row["references"]["cuBLAS"]["median_ms"])
                ratio = row["ratios"]["cuBLAS"]
                summary.setdefault((element, group), []).append(ratio)
                summary.setdefault((element, "all"), []).append(ratio)
                line = (f"  {label:34s} {row['croq_tflops']:13.1f} {row['cublas_tflops']:15.1f} {ratio:12.3f}  "
                        f"{harness.spread(row['ours'])}  {row['config']['name']}")
                report.add(row, line, args.min_ratio)

            harness.guarded(report, label, row_fn)
    print_summary(report, summary)


def croq_side(kernel, name, defines, a, b, c):
    def call():
        kernel(a, b, c)
        return c

    return harness.Side(name, call, poison=lambda: c.fill_(float("nan")), config=dict(defines))


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def print_summary(report, summary):
    print(f"  {'croq/cuBLAS':24s} {'rows':>5s} {'geomean':>8s} {'lowest':>7s}")
    for (element, group), ratios in sorted(summary.items()):
        print(f"  {element + ' ' + group:24s} {len(ratios):5d} {geomean(ratios):8.3f} {min(ratios):7.3f}")
        report.device.setdefault("summary", {})[f"{element} {group}"] = {
            "geomean": geomean(ratios), "lowest": min(ratios), "rows": len(ratios)}


def self_test_cases(args):
    """The split-K program's reduction one slice short (f16, 16x1024x8192,
    which the model splits: a slice's partial products never added) and the
    one-kernel form's K loop one tile short (bf16, 4096^3)."""
    import torch

    croqjit = harness.import_croqjit()
    device = device_figures(croqjit, torch)
    cases = []
    for element, dtype, (m, n, k), broken, what in (
            ("f16", torch.float16, (16, 1024, 8192), reduce_one_slice_short, "reduction one slice short"),
            ("bf16", torch.bfloat16, (4096, 4096, 4096), bench_k_loop_short, "K loop one tile short")):
        label = f"{element} {m}x{n}x{k}"
        a, b = bench_gemm.inputs(torch, dtype, m, n, k, args.seed, label)
        c = torch.empty(m, n, device="cuda", dtype=dtype)
        defines = kernel_text.gemm_configs(m, n, k, device)[0]
        if what.startswith("reduction") and defines["SPLITS"] < 2:
            raise harness.HarnessError(f"{label}: the model chose no split K, so there is no reduction to break")
        source = kernel_text.gemm_any(element)
        name = kernel_text.gemm_config_name(defines)
        good = croqjit.compile(source, defines=defines, source_name="gemm_any.co")
        bad = croqjit.compile(broken(source), defines=defines, source_name="gemm_any broken.co")
        cases.append(harness.SelfTestCase(label, croq_side(good, name, defines, a, b, c),
                                          croq_side(bad, f"{name}, {what}", defines, a, b, c),
                                          [bench_gemm.cublas_side(torch, a, b)], bench_gemm.TOLERANCE))
    return cases


def reduce_one_slice_short(source):
    return kernel_text.replace_exactly(source, "foreach s in [SPLITS]", "foreach s in [SPLITS - 1]", 1)


def bench_k_loop_short(source):
    old = "foreach {iv_k} in [cdiv(cdiv(K, TK), SPLITS)]"
    return kernel_text.replace_exactly(source, old, "foreach {iv_k} in [cdiv(cdiv(K, TK), SPLITS) - 1]", 2)


def main():
    description = __doc__.split("\n\n")[0]

    def extra(p):
        p.add_argument("--explore", type=int, default=1,
                       help="time the model's best N configurations per row and report the fastest (default 1: "
                            "the model's choice alone)")

    return harness.script_main("bench_gemm_shapes", description, ["f16", "bf16"], COLUMNS, run_rows,
                               self_test_cases, budget_help="croq/cuBLAS throughput ratio", extra_args=extra)


if __name__ == "__main__":
    sys.exit(main())
