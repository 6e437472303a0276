#!/usr/bin/env bash
# Session 16, helper "bwd": what the lead runs on the GPU machine (H200)
# after merging s16-bwd, from the repository root. Logs and JSON go to $OUT
# (default ./out-bwd16).
#
# 1. Configure and build as scripts/gpu-check.sh does (no tests, no bench).
# 2. The GPU tests of this branch: WGMMA with an M-major lhs (mma.col.col,
#    mma.col.row: FragmentGpu.ColumnMajorLhsGemm..., a tile staged by
#    mma.store and read so: FragmentGpu.StagedTileAsAnMMajorLhs...), then the
#    attention samples (dense, packed, causal, tails: the backward with dQ
#    atomics) and the Python GPU tests (croqjit.attention's training path).
# 3. The backward bench: its self-test, then every row. Each row checks and
#    times two configurations of ours for selection: "croq" (dQ accumulated
#    in f32 with atomics by the key-tile kernel, five products) and
#    "croq dQ pass" (the earlier form, dQ from a third kernel that walks the
#    key tiles again, seven products). A row's line ends with
#    "selection ms croq: X, croq dQ pass: Y" (old vs new at that shape); the
#    row's ratios are the faster one's. D=256 rows are new: a reference that
#    refuses D=256 is named ("refused: cuDNN"), a row none runs is printed
#    "not measured"; neither is a failure. The acceptance is croq/cuDNN >=
#    0.85 at D128 S4096 (the --quick rows).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/out-bwd16}
build=${CROQ_GPU_BUILD_DIR:-$root/build-gpu}
python=${CROQ_PYTHON:-/opt/torch/.venv/bin/python}
[ -x "$python" ] || python=python3
mkdir -p "$out"
cd "$root"

OUT="$out/build" "$root/scripts/gpu-check.sh" --no-tests --no-bench

"$build/tests/croq_gpu_tests" --gtest_filter='FragmentGpu.*' 2>&1 | tee "$out/fragment_gpu.txt"
for sample in flash_attention flash_attention_backward; do
  bin=$(find "$build" -name "$sample" -type f -perm -u+x | head -1)
  [ -n "$bin" ] && "$bin" 2>&1 | tee "$out/$sample.txt"
done
ctest --test-dir "$build" -R '^python_gpu$' --output-on-failure 2>&1 | tail -30 | tee "$out/python_gpu.txt"

export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" CROQ_KERNEL_SOURCES="$build/bench/kernel_sources"
"$python" bench/harness/bench_attention_backward.py --self-test 2>&1 | tee "$out/bwd_self_test.txt"
# The acceptance rows first (D128, f16 and bf16, causal or not), then all.
"$python" bench/harness/bench_attention_backward.py --quick --json "$out/bwd_quick.json" 2>&1 | tee "$out/bwd_quick.txt"
"$python" bench/harness/bench_attention_backward.py --json "$out/bwd_all.json" 2>&1 | tee "$out/bwd_all.txt"
