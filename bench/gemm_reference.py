"""torch.matmul (cuBLAS) and a Triton matmul on the shapes and dtypes of
gemm_bench, in the same device run, and the ratios croq / cuBLAS and
croq / Triton. C = A @ B^T with A [M, K], B [N, K], f16 or bf16 inputs and
output, fp32 accumulate. gemm_bench's fp8 rows (f8_e4m3 inputs, bf16 output)
are compared with torch._scaled_mm (cuBLASLt fp8 GEMM, e4m3, scales 1, bf16
out) with use_fast_accum=True, which accumulates in the tensor core as
croq's WGMMA does; the default (periodically promoted) accumulation is
timed too and kept in the JSON (cublas_promoted_*). Triton is not run for
fp8. Each is timed as gemm_bench times croq: the median of 20
CUDA-event-timed calls after 3 warm-up calls. The Triton kernel is checked
against torch.matmul before it is timed; without Triton (or when its kernel
fails) the table says why and still reports torch.

Usage: gemm_reference.py gemm_bench.json [--json OUT]
(readme_gemm_bench --json output is read the same way.)"""
import argparse
import json
import sys

import torch

from event_timing import median_ms

try:
    import triton
    import triton.language as tl

    # Tile shapes for H100 (sm_90): wide tiles for the large squares, a
    # narrow one so that M = 128 still fills the SMs.
    GEMM_CONFIGS = [
        triton.Config({"BM": 128, "BN": 256, "BK": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BM": 256, "BN": 128, "BK": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BM": 64, "BN": 256, "BK": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BM": 128, "BN": 64, "BK": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    ]

    @triton.autotune(configs=GEMM_CONFIGS, key=["M", "N", "K"])
    @triton.jit
    def gemm_abt_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                        stride_am, stride_ak, stride_bn, stride_bk, stride_cm, stride_cn,
                        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
        # One program per [BM, BN] tile of C. Programs walk the tiles in
        # groups of GROUP_M tile rows, column by column, so that programs
        # running together share A rows and B columns in L2.
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        in_group = GROUP_M * tiles_n
        first_m = (pid // in_group) * GROUP_M
        rows = tl.minimum(tiles_m - first_m, GROUP_M)
        tile_m = first_m + (pid % in_group) % rows
        tile_n = (pid % in_group) // rows

        rm = tile_m * BM + tl.arange(0, BM)
        rn = tile_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        # Rows past M (columns past N) read a valid row again; their results
        # are not stored.
        rm_in = rm % M
        rn_in = rn % N
        a_tile = a_ptr + rm_in[:, None] * stride_am + rk[None, :] * stride_ak  # [BM, BK] of A
        b_tile = b_ptr + rk[:, None] * stride_bk + rn_in[None, :] * stride_bn  # [BK, BN] of B^T
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            a = tl.load(a_tile, mask=(k0 + rk)[None, :] < K, other=0.0)
            b = tl.load(b_tile, mask=(k0 + rk)[:, None] < K, other=0.0)
            acc += tl.dot(a, b)
            a_tile += BK * stride_ak
            b_tile += BK * stride_bk
        c_tile = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
        tl.store(c_tile, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))

    def triton_matmul_abt(a, b, c):
        """c = a @ b.t() for a [M, K], b [N, K], c [M, N] on the GPU."""
        m, k = a.shape
        n = b.shape[0]
        grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)
        gemm_abt_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                              c.stride(0), c.stride(1))
        return c

    triton_missing = None
except Exception as exc:  # report, do not hide
    triton_matmul_abt = None
    triton_missing = f"{exc!r}"


def fp32_accumulated_matmul(a, b):
    """torch.matmul(a, b.t()) with reduced-precision (f16/bf16) split-K
    reductions off, so the check compares two fp32-accumulated results."""
    flags = torch.backends.cuda.matmul
    names = [f for f in ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")
             if hasattr(flags, f)]
    saved = {f: getattr(flags, f) for f in names}
    for f in names:
        setattr(flags, f, False)
    try:
        return torch.matmul(a, b.t())
    finally:
        for f, v in saved.items():
            setattr(flags, f, v)


def scaled_mm_bf16(a, b, fast_accum):
    """torch._scaled_mm(a, b.t()) for e4m3 a [M, K], b [N, K] (b.t() is the
    column-major operand cuBLASLt wants), scales 1, bf16 out. Older torch
    returns (out, amax)."""
    one = torch.ones((), device=a.device, dtype=torch.float32)
    r = torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=fast_accum)
    return r[0] if isinstance(r, tuple) else r


def check_scaled_mm(a, b):
    """torch._scaled_mm against an fp32 matmul of the same e4m3 values:
    relative Frobenius error <= 1e-2 (gemm_check's bound for croq)."""
    ref = torch.matmul(a.float(), b.float().t())
    for fast in (True, False):
        err = (torch.linalg.norm(scaled_mm_bf16(a, b, fast).float() - ref) / torch.linalg.norm(ref)).item()
        if not err <= 1e-2:
            raise AssertionError(f"torch._scaled_mm (use_fast_accum={fast}) relative error {err:.3g}")


def fp8_row(r):
    """The reference figures of one fp8 row of gemm_bench."""
    m, n, k = r["m"], r["n"], r["k"]
    a = (torch.rand(m, k, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
    b = (torch.rand(n, k, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
    row = {"dtype": r["dtype"], "out": r.get("out", "bf16"), "m": m, "n": n, "k": k, "croq_ms": r["ms"],
           "croq_tflops": r["tflops"], "croq_config": r.get("config"), "cublas": "torch._scaled_mm, use_fast_accum"}
    check_scaled_mm(a, b)
    fast_ms = median_ms(lambda: scaled_mm_bf16(a, b, True))
    row["cublas_ms"] = fast_ms
    row["cublas_tflops"] = tflops(m, n, k, fast_ms)
    row["croq_over_cublas"] = r["tflops"] / row["cublas_tflops"]
    promoted_ms = median_ms(lambda: scaled_mm_bf16(a, b, False))
    row["cublas_promoted_ms"] = promoted_ms
    row["cublas_promoted_tflops"] = tflops(m, n, k, promoted_ms)
    row["triton"] = "not run for fp8"
    del a, b
    return row


def check_triton(a, b, c):
    """Runs the Triton kernel once (autotuning on the first call of a shape)
    and asserts that it matches torch.matmul."""
    triton_matmul_abt(a, b, c)
    ref = fp32_accumulated_matmul(a, b)
    # Outputs are rounded to f16 (bf16): allow a few units in the last place.
    rtol = 1e-2 if a.dtype == torch.float16 else 3e-2
    torch.testing.assert_close(c, ref, rtol=rtol, atol=1e-2)


COLUMNS = ["croq TFLOP/s", "cuBLAS TFLOP/s", "Triton TFLOP/s", "croq/cuBLAS", "croq/Triton"]


def print_row(label, cells):
    print(f"  {label:34s}" + "".join(f"  {cell:>{len(name)}s}" for cell, name in zip(cells, COLUMNS)))


def tflops(m, n, k, ms):
    return 2 * m * n * k / (ms * 1e-3) / 1e12


def main():
    parser = argparse.ArgumentParser(
        description="torch.matmul (cuBLAS) and Triton on gemm_bench's shapes, and the ratios to croq")
    parser.add_argument("croq_json", help="gemm_bench --json output")
    parser.add_argument("--json", dest="json_out", help="also write the figures and ratios here")
    args = parser.parse_args()
    croq = json.load(open(args.croq_json))

    if triton_missing is not None:
        print(f"  Triton: not importable ({triton_missing}); reporting torch only")
    print_row("GEMM (C = A B^T, fp32 accumulate)", COLUMNS)
    rows = []
    triton_failed = False
    for r in croq:
        if r["dtype"] == "fp8":
            try:
                row = fp8_row(r)
            except Exception as exc:  # a torch without _scaled_mm or fp8: say so, keep going
                print(f"  torch._scaled_mm fp8 {r['m']} x {r['n']} x {r['k']} failed: {exc}", file=sys.stderr)
                row = {"dtype": r["dtype"], "m": r["m"], "n": r["n"], "k": r["k"], "croq_tflops": r["tflops"],
                       "cublas": f"failed: {exc!r}"}
                rows.append(row)
                print_row(f"fp8  {r['m']:5d} x {r['n']:5d} x {r['k']:5d}",
                          [f"{r['tflops']:.1f}", "failed", "-", "-", "-"])
                continue
            rows.append(row)
            print_row(f"fp8  {r['m']:5d} x {r['n']:5d} x {r['k']:5d}",
                      [f"{r['tflops']:.1f}", f"{row['cublas_tflops']:.1f}", "-", f"{row['croq_over_cublas']:.3f}", "-"])
            torch.cuda.empty_cache()
            continue
        dt = torch.float16 if r["dtype"] == "f16" else torch.bfloat16
        m, n, k = r["m"], r["n"], r["k"]
        a = torch.rand(m, k, device="cuda", dtype=dt) - 0.5
        b = torch.rand(n, k, device="cuda", dtype=dt) - 0.5
        row = {"dtype": r["dtype"], "m": m, "n": n, "k": k, "croq_ms": r["ms"], "croq_tflops": r["tflops"],
               "croq_config": r.get("config"), "croq_kernel": r.get("kernel", "samples")}

        torch_ms = median_ms(lambda: torch.matmul(a, b.t()))
        row["cublas_ms"] = torch_ms
        row["cublas_tflops"] = tflops(m, n, k, torch_ms)
        row["croq_over_cublas"] = r["tflops"] / row["cublas_tflops"]

        triton_cols = ("-", "-")  # Triton TFLOP/s, croq/Triton
        if triton_matmul_abt is None:
            row["triton"] = f"not importable: {triton_missing}"
        else:
            c = torch.empty(m, n, device="cuda", dtype=dt)
            try:
                check_triton(a, b, c)
                triton_ms = median_ms(lambda: triton_matmul_abt(a, b, c))
                row["triton_ms"] = triton_ms
                row["triton_tflops"] = tflops(m, n, k, triton_ms)
                row["croq_over_triton"] = r["tflops"] / row["triton_tflops"]
                best = getattr(gemm_abt_kernel, "best_config", None)
                if best is not None:
                    row["triton_config"] = str(best)
                triton_cols = (f"{row['triton_tflops']:.1f}", f"{row['croq_over_triton']:.3f}")
            except Exception as exc:  # a wrong or failing kernel: say so, keep going
                triton_failed = True
                row["triton"] = f"failed: {exc!r}"
                print(f"  Triton {r['dtype']} {m} x {n} x {k} failed: {exc}", file=sys.stderr)
                triton_cols = ("failed", "-")
            del c
        rows.append(row)
        label = f"{r['dtype']:4s} {m:5d} x {n:5d} x {k:5d}"
        if r.get("kernel"):
            label += f" ({r['kernel']})"
        print_row(label,
                  [f"{r['tflops']:.1f}", f"{row['cublas_tflops']:.1f}", triton_cols[0],
                   f"{row['croq_over_cublas']:.3f}", triton_cols[1]])
        del a, b
        torch.cuda.empty_cache()

    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(rows, f, indent=2)
            f.write("\n")
    return 1 if triton_failed else 0


if __name__ == "__main__":
    sys.exit(main())
