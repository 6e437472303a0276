#!/usr/bin/env bash
# On the GPU machine, one command for the memory-bound kernels (issue 34):
# configure and build what they need (the croqjit package, kernel_sources,
# the GPU tests, the row_norms sample), run the element-wise and row-
# reduction GPU tests, the harness's self-tests of bench_elementwise and
# bench_rows (broken kernels must be refused), then bench_elementwise,
# bench_rows and bench_add; every log, JSON and the tables go to $OUT
# (default ./out). Exit 1 when any step failed (the summary says which).
#
#   scripts/bench-memory-bound.sh [--quick] [--only STEP]...
#
# Needs what scripts/gpu-check.sh needs (.devdeps, see there). The build
# directory is CROQ_GPU_BUILD_DIR (default build-gpu), shared with gpu-check.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/out}
mkdir -p "$out"
rm -f "$out"/bench_elementwise.json "$out"/bench_rows.json "$out"/bench_add.json
build=${CROQ_GPU_BUILD_DIR:-$root/build-gpu}
quick=() only=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=(--quick); shift ;;
    --only) only+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "bench-memory-bound: unknown argument $1" >&2; exit 2 ;;
  esac
done
check_name=bench-memory-bound
# shellcheck source=scripts/device_check_lib.sh
source "$root/scripts/device_check_lib.sh"

build_targets() {
  local targets=(croq croqjit croq_gpu_tests croq_lower_tests croq_passes_tests kernel_sources row_norms ele_add)
  grep -q "croqjit Python package: building" "$out/configure.log" && targets+=(_croqjit)
  cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
}
step configure - configure || { summary; exit 1; }
step build - build_targets || { summary; exit 1; }

step tests 900 ctest --test-dir "$build" --output-on-failure -j 4 \
  -R 'Elementwise|RowNorm|BenchTranspose|vectorize_elementwise|tile_transposes|row_norms|sample_ele_add'
export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" CROQ_KERNEL_SOURCES="$build/bench/kernel_sources"
for script in bench_elementwise bench_rows; do
  step "$script-self-test" 600 "$python" "$root/bench/harness/$script.py" --self-test
done
for script in bench_elementwise bench_rows bench_add; do
  step "$script" 1800 "$python" "$root/bench/harness/$script.py" "${quick[@]}" --json "$out/$script.json"
done
summary
