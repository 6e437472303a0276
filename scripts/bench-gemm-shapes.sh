#!/usr/bin/env bash
# On the GPU machine, one command for the GEMM across model shapes and the
# long softmax rows (issue 34): configure and build what they need (the
# croqjit package, kernel_sources, the GPU tests, the gemm_any and
# row_norms samples), run their GPU tests (C++ and croqjit.gemm's), the
# harness's self-tests of bench_gemm_shapes and bench_rows (broken kernels
# must be refused), then
# bench_gemm_shapes (every model shape, f16 and bf16, against cuBLAS) and
# bench_rows' softmax rows; every log, JSON and table goes to $OUT (default
# ./out). Exit 1 when any step failed (the summary says which).
#
#   scripts/bench-gemm-shapes.sh [--quick] [--only STEP]... [-- BENCH_GEMM_SHAPES_ARGS...]
#
# Steps: configure, build, tests, python_tests, bench_gemm_shapes-self-test,
# bench_rows-self-test, bench_gemm_shapes, bench_rows, bench_rows-1024-threads
# (--quick softmax rows with rows of 16384 in their former form). Needs what
# scripts/gpu-check.sh needs (.devdeps, see there). The build directory is
# CROQ_GPU_BUILD_DIR (default build-gpu), shared with gpu-check.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/out}
mkdir -p "$out"
rm -f "$out"/bench_gemm_shapes.json "$out"/bench_rows.json "$out"/bench_rows_1024_threads.json
build=${CROQ_GPU_BUILD_DIR:-$root/build-gpu}
quick=() only=() extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=(--quick); shift ;;
    --only) only+=("$2"); shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "bench-gemm-shapes: unknown argument $1" >&2; exit 2 ;;
  esac
done
check_name=bench-gemm-shapes
# shellcheck source=scripts/device_check_lib.sh
source "$root/scripts/device_check_lib.sh"

build_targets() {
  local targets=(croq croqjit croq_gpu_tests kernel_sources gemm_any row_norms)
  grep -q "croqjit Python package: building" "$out/configure.log" && targets+=(_croqjit)
  cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
}
step configure - configure || { summary; exit 1; }
step build - build_targets || { summary; exit 1; }

step tests 900 ctest --test-dir "$build" --output-on-failure -j 4 -R 'GemmAny|RowNorm|sample_gemm_any|sample_row_norms'
export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" CROQ_KERNEL_SOURCES="$build/bench/kernel_sources"
step python_tests 600 "$python" -m pytest -q -p no:cacheprovider "$root/tests/python/test_gpu_gemm_any.py" \
  "$root/tests/python/test_gemm_any.py"
for script in bench_gemm_shapes bench_rows; do
  step "$script-self-test" 600 "$python" "$root/bench/harness/$script.py" --self-test
done
step bench_gemm_shapes 1800 "$python" "$root/bench/harness/bench_gemm_shapes.py" "${quick[@]}" "${extra[@]}" \
  --json "$out/bench_gemm_shapes.json"
step bench_rows 1800 "$python" "$root/bench/harness/bench_rows.py" "${quick[@]}" --only softmax \
  --json "$out/bench_rows.json"
# The former form of rows of 16384 (1024 threads of 16 elements), on the same device.
step bench_rows-1024-threads 600 "$python" "$root/bench/harness/bench_rows.py" --quick --only softmax \
  --softmax-chunks 2 --json "$out/bench_rows_1024_threads.json"
summary
