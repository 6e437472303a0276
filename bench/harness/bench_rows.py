"""Row reductions written in Croqtile (samples/row_norm_source.hpp: softmax,
RMSNorm, LayerNorm over x [T, H], f16 and bf16 in and out, f32 math)
against torch (torch.softmax, torch.nn.functional.rms_norm and layer_norm)
and Triton kernels written the way Triton's tutorials write them (02 fused
softmax: one program per row, the row in one block; 05 layer norm: one
program per row, looping over the row in BLOCK_SIZE chunks for the mean,
the variance and the output; RMSNorm in the same style), in one process on
the same tensors (harness.py says how rows are checked and timed). Bandwidth
counts x read once and y written once (weights not counted).

The summary gives, per kernel and element type, the geometric mean over the
row lengths of croq's ratio to each reference, and the lowest.

    python bench/harness/bench_rows.py [--quick] [--only softmax|rmsnorm|layernorm] [--softmax-chunks C] [--json OUT]
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kernel_text  # noqa: E402

KINDS = ["softmax", "rmsnorm", "layernorm"]
ELEMENTS = ["f16", "bf16"]
# (tokens, hidden): the row lengths of Llama-class models at 4096 tokens
# (1024 to 16384), and token counts from 1 to 32768.
SHAPES = ([(4096, hidden) for hidden in (1024, 2048, 4096, 5120, 8192, 14336, 16384)]
          + [(tokens, 4096) for tokens in (1, 16, 256, 32768)] + [(1, 16384), (32768, 1024)])
QUICK_SHAPES = [(4096, 1024), (4096, 4096), (4096, 16384), (1, 4096)]

COLUMNS = (f"  {'kernel':32s} {'croq GB/s':>10s} {'torch GB/s':>11s} {'triton GB/s':>12s} {'croq/torch':>11s}"
           f" {'croq/triton':>12s} {'of peak':>8s}  croq ms [min, max]")

# Outputs rounded to f16 / bf16 from f32 math on both sides: within two units
# of the last place, relative to the row's scale.
TOLERANCE = {"f16": harness.Tolerance(rel_frobenius=2e-3, rms_fraction=2 ** -9, rel_element=2 ** -9),
             "bf16": harness.Tolerance(rel_frobenius=1.6e-2, rms_fraction=2 ** -6, rel_element=2 ** -6)}


def triton_kernels():
    """The tutorial-style Triton kernels; None when Triton is missing."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK_SIZE: tl.constexpr):
        # Tutorial 02: the whole row in one block.
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK_SIZE)
        mask = offs < n_cols
        x = tl.load(in_ptr + row * in_stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row * out_stride + offs, y.to(out_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, stride, n_cols, eps, BLOCK_SIZE: tl.constexpr):
        # Tutorial 05's forward kernel: mean, variance, then the output, each a loop over the row.
        row = tl.program_id(0)
        y_ptr += row * stride
        x_ptr += row * stride
        acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        for off in range(0, n_cols, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            acc += tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        mean = tl.sum(acc, axis=0) / n_cols
        acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        for off in range(0, n_cols, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
            x = tl.where(cols < n_cols, x - mean, 0.0)
            acc += x * x
        rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
        for off in range(0, n_cols, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            mask = cols < n_cols
            w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
            b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
            x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
            tl.store(y_ptr + cols, ((x - mean) * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def rmsnorm_kernel(x_ptr, y_ptr, w_ptr, stride, n_cols, eps, BLOCK_SIZE: tl.constexpr):
        # Tutorial 05's style for RMSNorm: the mean square, then the output.
        row = tl.program_id(0)
        y_ptr += row * stride
        x_ptr += row * stride
        acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        for off in range(0, n_cols, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
            acc += x * x
        rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
        for off in range(0, n_cols, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            mask = cols < n_cols
            w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
            x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
            tl.store(y_ptr + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)

    def launch_config(n_cols, element_size):
        # Tutorial 05: blocks of at most 64 KB, warps by the block size.
        block = min(65536 // element_size, triton.next_power_of_2(n_cols))
        return block, min(max(block // 256, 1), 8)

    def softmax(x):
        y = x.new_empty(x.shape)
        block = triton.next_power_of_2(x.shape[1])
        warps = 8 if block >= 2048 else 4  # the tutorial's warps, before its occupancy tuning
        warps = 16 if block >= 8192 else warps
        softmax_kernel[(x.shape[0],)](y, x, x.stride(0), y.stride(0), x.shape[1], BLOCK_SIZE=block, num_warps=warps)
        return y

    def layernorm(x, w, b, eps):
        y = x.new_empty(x.shape)
        block, warps = launch_config(x.shape[1], x.element_size())
        layernorm_kernel[(x.shape[0],)](x, y, w, b, x.stride(0), x.shape[1], eps, BLOCK_SIZE=block, num_warps=warps)
        return y

    def rmsnorm(x, w, eps):
        y = x.new_empty(x.shape)
        block, warps = launch_config(x.shape[1], x.element_size())
        rmsnorm_kernel[(x.shape[0],)](x, y, w, x.stride(0), x.shape[1], eps, BLOCK_SIZE=block, num_warps=warps)
        return y

    return {"softmax": softmax, "layernorm": layernorm, "rmsnorm": rmsnorm}


def sides(torch, croqjit, triton, kind, element, tokens, hidden, seed, source=None, chunks=0, rows_per_block=1):
    """ours, [torch, triton] and the bytes a call moves."""
    import torch.nn.functional as F

    dt = torch.float16 if element == "f16" else torch.bfloat16
    g = harness.generator(seed, f"{kind} {element} {tokens}x{hidden}")
    x = (torch.randn(tokens, hidden, device="cuda", generator=g) * 2).to(dt)
    w = (torch.rand(hidden, device="cuda", generator=g) + 0.5).to(dt)
    b = (torch.randn(hidden, device="cuda", generator=g) * 0.5).to(dt)
    y = torch.empty_like(x)
    kernel = croqjit.compile(source or kernel_text.rows(kind, element, hidden, chunks, rows_per_block), source_name=f"{kind}.co")
    if kind == "softmax":
        call = lambda: (kernel(x, y), y)[1]  # noqa: E731
        refs = [harness.Side("torch", lambda: torch.softmax(x, dim=-1))]
        if triton:
            refs.append(harness.Side("triton", lambda: triton["softmax"](x)))
    elif kind == "rmsnorm":
        call = lambda: (kernel(x, w, y), y)[1]  # noqa: E731
        refs = [harness.Side("torch", lambda: F.rms_norm(x, (hidden,), w, eps=1e-6))]
        if triton:
            refs.append(harness.Side("triton", lambda: triton["rmsnorm"](x, w, 1e-6)))
    else:
        call = lambda: (kernel(x, w, b, y), y)[1]  # noqa: E731
        refs = [harness.Side("torch", lambda: F.layer_norm(x, (hidden,), w, b, eps=1e-5))]
        if triton:
            refs.append(harness.Side("triton", lambda: triton["layernorm"](x, w, b, 1e-5)))
    ours = harness.Side("croq", call, poison=lambda: y.fill_(float("nan")))
    return ours, refs, 2 * x.numel() * x.element_size()


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def run_rows(report, settings, timer, args):
    import torch

    croqjit = harness.import_croqjit()
    triton = triton_kernels()
    if triton is None:
        report.fail("triton", RuntimeError("Triton is not installed: the Triton columns are missing"))
    peak = croqjit.device_peaks(torch.cuda.current_device()).memory_bytes_per_second
    report.device["dram_bytes_per_second"] = peak
    summary = {}
    for kind in KINDS:
        if args.only and args.only != kind:
            continue
        for element in ELEMENTS:
            for tokens, hidden in (QUICK_SHAPES if args.quick else SHAPES):
                label = f"{kind} {element} [{tokens}, {hidden}]"

                def row_fn(kind=kind, element=element, tokens=tokens, hidden=hidden, label=label):
                    chunks = args.softmax_chunks if kind == "softmax" and hidden == 16384 else 0
                    threads = hidden // (8 * (chunks or (8 if kind == "softmax" and hidden >= 16384 else 2)))
                    rows_per_block = (args.rows if kind != "layernorm" and args.rows * threads <= 1024 else 1) if args.rows else 0
                    ours, refs, moved = sides(torch, croqjit, triton, kind, element, tokens, hidden, args.seed,
                                              chunks=chunks, rows_per_block=rows_per_block)
                    row = harness.run_row(label, [ours], refs, TOLERANCE[element], settings, timer)
                    gbps = lambda s: moved / (s["median_ms"] * 1e-3) / 1e9  # noqa: E731
                    row.update({"tokens": tokens, "hidden": hidden, "bytes_moved": moved,
                                "croq_gbps": gbps(row["ours"]),
                                "reference_gbps": {n: gbps(s) for n, s in row["references"].items()}})
                    row["fraction_of_peak"] = row["croq_gbps"] * 1e9 / peak if peak else None
                    for name, ratio in row["ratios"].items():
                        summary.setdefault((kind, element, name), []).append(ratio)
                    tri = row["reference_gbps"].get("triton", float("nan"))
                    line = (f"  {label:32s} {row['croq_gbps']:10.1f} {row['reference_gbps']['torch']:11.1f} {tri:12.1f}"
                            f" {row['ratios']['torch']:11.3f} {row['ratios'].get('triton', float('nan')):12.3f}"
                            f" {row['fraction_of_peak'] or 0:8.3f}  {harness.spread(row['ours'])}")
                    report.add(row, line, args.min_ratio)

                harness.guarded(report, label, row_fn)
    print("  geometric mean over the rows [lowest]:")
    for (kind, element, name), ratios in summary.items():
        print(f"    {kind} {element} croq/{name}: {geomean(ratios):.3f} [{min(ratios):.3f}]")
        report.device.setdefault("summary", {})[f"{kind} {element} croq/{name}"] = {
            "geomean": geomean(ratios), "lowest": min(ratios), "rows": len(ratios)}


def self_test_cases(args):
    """RMSNorm f16 [4096, 4096] with the second chunk of every thread never
    written (its output loop one chunk short): the poisoned NaN must show."""
    import torch

    croqjit = harness.import_croqjit()
    source = kernel_text.rows("rmsnorm", "f16", 4096)
    broken = kernel_text.replace_exactly(source, "      foreach c in [CHUNKS] {\n        wv",
                                         "      foreach c in [CHUNKS - 1] {\n        wv", 1)
    correct, refs, _ = sides(torch, croqjit, None, "rmsnorm", "f16", 4096, 4096, args.seed)
    wrong, _, _ = sides(torch, croqjit, None, "rmsnorm", "f16", 4096, 4096, args.seed, source=broken)
    wrong.name = "croq, half of each row not written"
    return [harness.SelfTestCase("rmsnorm f16 [4096, 4096]", correct, wrong, refs, TOLERANCE["f16"])]


def main():
    def extra(p):
        p.add_argument("--softmax-chunks", type=int, default=0,
                       help="softmax rows of 16384: this many 8-element chunks a thread (2: 1024 threads, 4: 512, 8: 256; "
                            "default: the generator's choice), to compare the forms on one device")
        p.add_argument("--rows", type=int, default=0,
                       help="softmax's and rmsnorm's rows a block where the block stays within 1024 threads "
                            "(default: the generator's choice), to compare the forms on one device")

    return harness.script_main("bench_rows", __doc__.split("\n\n")[0], KINDS, COLUMNS, run_rows, self_test_cases,
                               budget_help="croq/reference time ratio (default: none)", extra_args=extra)


if __name__ == "__main__":
    sys.exit(main())
