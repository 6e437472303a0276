"""The ratio between libcroqjit's cold compile (bench/e2e_bench.cpp) and
Triton's (bench/reference.py), measured in the same run, and the hot-call
figure of e2e_bench. Exit status 1 when a figure is missing or over its
budget (cold compile at most 0.5x Triton's; hot call at most 1.25x raw).

    compare.py e2e_bench.json reference.json"""
import json
import sys

COLD_COMPILE_BUDGET = 0.5
HOT_CALL_BUDGET = 1.25

ours = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))
rows, failures = [], []
if "kernel_call_over_raw" in ours:
    r = ours["kernel_call_over_raw"]
    rows.append(("hot k(args) / raw cuLaunchKernel", f'{ours["kernel_call_us"]:.2f} / {ours["raw_launch_us"]:.2f} us',
                 f"{r:.3f}x (budget <= {HOT_CALL_BUDGET})"))
    if r > HOT_CALL_BUDGET:
        failures.append(f"hot call {r:.3f}x raw, over {HOT_CALL_BUDGET}")
else:
    failures.append("e2e_bench measured no hot call")
if "cold_compile_median_ms" in ours and "triton_matmul_cold_median_ms" in ref:
    r = ours["cold_compile_median_ms"] / ref["triton_matmul_cold_median_ms"]
    rows.append(("cold compile DMA matmul: croq / Triton",
                 f'{ours["cold_compile_median_ms"]:.1f} / {ref["triton_matmul_cold_median_ms"]:.1f} ms',
                 f"{r:.3f}x (budget <= {COLD_COMPILE_BUDGET})"))
    if r > COLD_COMPILE_BUDGET:
        failures.append(f"cold compile {r:.3f}x Triton's, over {COLD_COMPILE_BUDGET}")
else:
    failures.append("no cold-compile figure of croq or of Triton: " + ref.get("triton", "see e2e_bench"))
for name, fig, ratio in rows:
    print(f"  {name:42s} {fig:28s} {ratio}")
for f in failures:
    print(f"  FAILED: {f}")
sys.exit(1 if failures else 0)
