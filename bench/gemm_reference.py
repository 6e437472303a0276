"""torch.matmul (cuBLAS) on the shapes of gemm_bench, in the same device run,
and the ratios croq / cuBLAS. Usage: gemm_reference.py gemm_bench.json"""
import json
import sys

import torch

croq = json.load(open(sys.argv[1]))
print("  GEMM (C = A B^T, fp32 accumulate)      croq TFLOP/s   cuBLAS TFLOP/s   croq/cuBLAS")
for r in croq:
    dt = torch.float16 if r["dtype"] == "f16" else torch.bfloat16
    m, n, k = r["m"], r["n"], r["k"]
    a = torch.rand(m, k, device="cuda", dtype=dt) - 0.5
    b = torch.rand(n, k, device="cuda", dtype=dt) - 0.5
    for _ in range(3):
        torch.matmul(a, b.t())
    times = []
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        torch.matmul(a, b.t())
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    ms = times[len(times) // 2]
    tf = 2 * m * n * k / (ms * 1e-3) / 1e12
    print(f"  {r['dtype']:4s} {m:5d} x {n:5d} x {k:5d}            {r['tflops']:8.1f}       {tf:8.1f}        {r['tflops'] / tf:6.3f}")
