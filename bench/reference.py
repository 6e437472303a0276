"""Triton's cold compile of a tiled matmul comparable to the tutorial DMA
matmul that e2e_bench compiles, measured in the same device run (a new
constexpr each time: a new compile). Each compiled kernel's result is
checked against an exact host product; a wrong result or a Triton that
cannot run is exit status 1 (the JSON says why). Prints JSON."""
import json
import sys
import time

import torch

out = {}
status = 0
try:
    import triton
    import triton.language as tl

    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.int32)
        for k in range(0, K, BK):
            x = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            y = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
            acc += tl.sum(x[:, :, None] * y[None, :, :], axis=1)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

    cold = []
    g = torch.Generator(device="cuda").manual_seed(2026)
    for bk in [16, 8, 4, 2]:  # a new constexpr each time: a new compile
        lhs = torch.randint(-3, 3, (128, 256), device="cuda", dtype=torch.int32, generator=g)
        rhs = torch.randint(-3, 3, (256, 256), device="cuda", dtype=torch.int32, generator=g)
        res = torch.empty((128, 256), device="cuda", dtype=torch.int32)
        torch.cuda.synchronize()
        t = time.perf_counter()
        matmul_kernel[(8, 16)](lhs, rhs, res, 128, 256, 256, BM=16, BN=16, BK=bk)
        torch.cuda.synchronize()
        cold.append((time.perf_counter() - t) * 1e3)
        want = (lhs.cpu().long() @ rhs.cpu().long()).int()
        if not torch.equal(res.cpu(), want):
            raise AssertionError(f"the Triton reference matmul (BK={bk}) computes a wrong product")
    out["triton_matmul_cold_first_ms"] = cold[0]
    out["triton_matmul_cold_median_ms"] = sorted(cold[1:])[len(cold[1:]) // 2]
except Exception as exc:  # report, and fail
    out["triton"] = f"failed: {exc!r}"
    print(f"reference.py: Triton failed: {exc!r}", file=sys.stderr)
    status = 1

print(json.dumps(out, indent=2))
sys.exit(status)
