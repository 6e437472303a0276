#!/usr/bin/env bash
# FP8 attention figures (issue 33), for the lead on the GPU machine, from
# the repository root with croqjit built (build/python, or CROQ_BUILD_DIR):
# 1. the harness's own checks on a GPU: compare()'s per-element allowance and
#    the FP8 truth (rounded_p_attention) against the direct formula;
# 2. --self-test: the FP8 kernel passes its own truth, the same kernel with
#    K's key tiles moved is refused (and the other scripts' cases still hold);
# 3. the FP8 rows: croq fp8, croq f16 and cuDNN f16 times of one run, the
#    ratio fp8 / croq f16 (target >= 1.5 at D128), FA3's published figures.
# 0. (C++, built in build/) the e5m2 fragment chain under its new bound, and
#    the device's fp8 rounding against the interpreter's table.
set -euo pipefail
out=${OUT:-/tmp}
build/tests/croq_gpu_tests --gtest_filter='Fp8FragmentGpu.*:Fp8RoundingGpu.*'
python -m pytest -q tests/python/test_gpu_bench_harness.py -k "allowance or fp8_truth or bench_attention"
python bench/harness/bench_attention.py --self-test
python bench/harness/bench_attention.py --only e4m3 --json "$out/bench_attention_e4m3.json"
