#!/usr/bin/env bash
# Session 16, helper "fp8" (issue 33): what to run on the H200 after merging
# s16-fp8. From the repository root:  bash scratch/fp816/time.sh
#   1. the GPU tests of the fp8 register-fragment lowering and of the FP8
#      forward (random data, host references; they skip without a Hopper);
#   2. the FP8 rows of bench/harness/bench_attention.py: croq FP8 (V^T made
#      inside the timed call, and the kernel alone) against croq's own f16
#      forward and SDPA cuDNN f16 on the same (dequantized) values, D 64,
#      128, 256, causal and not; each row also says whether torch's SDPA took
#      float8 inputs through cuDNN (`cudnn_fp8` in the JSON, and the line);
# Goal (issue 33): fp8/croq-f16 >= 1.5 at B4 H16 S4096 D128.
set -uo pipefail
root=$(pwd); out=${OUT:-$root/out}; build=$root/build-gpu; only=(); check_name=fp816
mkdir -p "$out"
source scripts/device_check_lib.sh
step configure - configure || { summary; exit 1; }
step build - cmake --build "$build" -j16 --target croq croqjit _croqjit kernel_sources croq_gpu_tests || { summary; exit 1; }
export PYTHONPATH="$build/python" CROQ_KERNEL_SOURCES="$build/bench/kernel_sources"
step gputests 300 "$build/tests/croq_gpu_tests" --gtest_filter='Fp8FragmentGpu.*:AttentionFp8Gpu.*:Fp8MmaGpu.*:FragmentGpu.*'
step fp8bench 420 "$python" bench/harness/bench_attention.py --only e4m3 --rounds 3 --json "$out/attn_fp8.json"
summary
