"""Prints the ratios between libcroqjit's figures and the references
measured in the same run (bench/e2e_bench.cpp and bench/reference.py)."""
import json
import sys

ours = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))
rows = []
if "add_f32_2p28_tbps" in ours:
    r = ours["add_f32_2p28_tbps"] / ref["torch_add_f32_2p28_tbps"]
    rows.append(("f32 add 2^28: croq / torch.add bandwidth", f'{ours["add_f32_2p28_tbps"]:.2f} / {ref["torch_add_f32_2p28_tbps"]:.2f} TB/s', f"{r:.3f}x (goal >= 0.9)"))
if "kernel_call_over_raw" in ours:
    rows.append(("hot k(args) / raw cuLaunchKernel", f'{ours["kernel_call_us"]:.2f} / {ours["raw_launch_us"]:.2f} us', f'{ours["kernel_call_over_raw"]:.3f}x (goal <= 1.25)'))
if "cold_compile_median_ms" in ours and "triton_matmul_cold_median_ms" in ref:
    r = ours["cold_compile_median_ms"] / ref["triton_matmul_cold_median_ms"]
    rows.append(("cold compile DMA matmul: croq / Triton", f'{ours["cold_compile_median_ms"]:.1f} / {ref["triton_matmul_cold_median_ms"]:.1f} ms', f"{r:.3f}x (goal <= 0.5)"))
for name, fig, ratio in rows:
    print(f"  {name:42s} {fig:28s} {ratio}")
