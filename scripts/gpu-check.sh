#!/usr/bin/env bash
# On a machine with a GPU, one command: configure, build, run the `gpu`
# tests, the C++ benchmarks of the C++-only figures, every reference, the
# harness's self-tests (deliberately broken kernels must be refused) and the
# harness's kernel comparisons with torch (bench/harness), writing every log
# and JSON to $OUT (default ./out). Every step's exit status counts: the
# script prints a summary of the steps and exits 1 when any failed.
#
#   scripts/gpu-check.sh [--quick] [--no-tests] [--all-tests] [--no-bench]
#                        [--only STEP]... [--conformance CROQTILE]
#
#   --quick        fewer shapes and rounds in the harness, no bench/hopper_gemm (the budget run)
#   --no-tests     skip the ctest step;  --all-tests: every test, not only `gpu`
#   --no-bench     skip the benchmarks, references and harness
#   --only STEP    run only these steps (names as in the summary, e.g. bench_gemm)
#   --conformance CROQTILE   also run scripts/conformance_run.sh on that checkout
#
# The GPU machine lacks xxHash headers: put them in .devdeps/include first
# (../shared/device/fetch-devdeps.sh) and carry .devdeps along. It lacks
# hiredis and utfcpp too (and maybe OpenSSL's headers): unpack Debian's packages into
# .devdeps here, whose usr/ this script searches:
#   (d=$(mktemp -d) && cd "$d" && apt-get download libhiredis-dev libhiredis0.14 libutfcpp-dev \
#      libssl-dev libssl3 && for p in *.deb; do dpkg-deb -x "$p" "$OLDPWD/.devdeps"; done)
#   rm -rf .devdeps/usr/share .devdeps/usr/lib/x86_64-linux-gnu/*.a   # 8 MB instead of 19
# Python: the
# CROQ_PYTHON interpreter, else /opt/torch/.venv/bin/python (the GPU
# machine's torch), else python3; the croqjit package is built for it.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/out}
mkdir -p "$out"
rm -f "$out"/*.json  # no figure of an earlier run may stand in for a step that failed
build=${CROQ_GPU_BUILD_DIR:-$root/build-gpu}
quick=() run_tests=1 all_tests=0 run_bench=1 only=() upstream=
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=(--quick); shift ;;
    --no-tests) run_tests=0; shift ;;
    --all-tests) all_tests=1; shift ;;
    --no-bench) run_bench=0; shift ;;
    --only) only+=("$2"); shift 2 ;;
    --conformance) upstream=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument $1" >&2; exit 2 ;;
  esac
done
# shellcheck source=scripts/device_check_lib.sh
source "$root/scripts/device_check_lib.sh"

build_targets() {
  local targets=(croq croqjit croq_gpu_tests croq_multigpu_tests kernel_sources e2e_bench jit_bench program_bench parse_bench)
  local src
  for src in "$root"/samples/*.cpp; do targets+=("$(basename "$src" .cpp)"); done
  grep -q "croqjit Python package: building" "$out/configure.log" && targets+=(_croqjit)
  if [ $all_tests = 1 ]; then cmake --build "$build" -j"$(nproc)"
  else cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"; fi
}
step configure - configure || { summary; exit 1; }
step build - build_targets || { summary; exit 1; }
if ! grep -q "croqjit Python package: building" "$out/configure.log"; then
  echo "gpu-check: the croqjit Python package is not built for $python (see configure.log): the harness cannot run"
  steps+=(python-package) statuses+=("FAILED (not built)")
fi

if [ $run_tests = 1 ]; then
  labels=(-L gpu)
  [ $all_tests = 1 ] && labels=(-E install_consumer)
  # The harness's self-tests run below as steps of their own: the pytest
  # that runs them too (tests/python/test_gpu_bench_harness.py) skips here.
  harness_self_test=run
  [ $run_bench = 1 ] && harness_self_test=skip
  step ctest 1800 env CROQ_HARNESS_SELF_TEST=$harness_self_test \
    ctest --test-dir "$build" --output-on-failure -j 8 "${labels[@]}"
fi

if [ $run_bench = 1 ]; then
  # The C++-only figures; cold compiles keep the disk cache out of them.
  for name in e2e_bench jit_bench program_bench; do
    step "$name" 300 env CROQ_CACHE=0 "$build/bench/$name" --json "$out/$name.json"
  done
  step parse_bench 300 "$build/bench/parse_bench"
  step triton_compile_reference 300 sh -c "'$python' '$root/bench/reference.py' > '$out/reference.json'"
  [ -f "$out/e2e_bench.json" ] && [ -f "$out/reference.json" ] &&
    step compare_cold_compile 60 "$python" "$root/bench/compare.py" "$out/e2e_bench.json" "$out/reference.json"
  export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" CROQ_KERNEL_SOURCES="$build/bench/kernel_sources"
  step python_launch_overhead 300 "$python" "$root/bench/python/launch_overhead.py" --check \
    --json "$out/launch_overhead.json"
  # The harness: first each script's self-test (broken kernels refused at
  # the timed shapes), then the comparisons.
  for script in bench_add bench_elementwise bench_rows bench_gemm bench_gemm_shapes bench_fp8_gemm bench_attention; do
    step "$script-self-test" 600 "$python" "$root/bench/harness/$script.py" --self-test
  done
  for script in bench_add bench_elementwise bench_rows bench_gemm bench_gemm_shapes bench_fp8_gemm bench_attention; do
    step "$script" 1800 "$python" "$root/bench/harness/$script.py" "${quick[@]}" --json "$out/$script.json"
  done
  # The hand-written prelude GEMM against cuBLAS (nvcc; not in --quick).
  [ ${#quick[@]} -eq 0 ] && step hopper_gemm 900 env OUT="$out/hopper_gemm" "$root/bench/hopper_gemm/run.sh"
fi

if [ -n "$upstream" ]; then
  step conformance_run 1800 "$root/scripts/conformance_run.sh" "$upstream" --build "$build" --out "$out/conformance-run"
fi
summary
