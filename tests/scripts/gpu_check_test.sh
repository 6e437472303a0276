#!/usr/bin/env bash
# scripts/gpu-check.sh without a GPU: stub cmake, ctest, nvidia-smi, Python
# and benchmark programs on PATH and in a fake build directory. Every step's
# exit status must reach the summary and the script's own exit status
# (through `tee`), and a failure of any one step makes the run fail.
#   gpu_check_test.sh PROJECT_SOURCE_DIR
source "$(dirname "$0")/script_test_lib.sh"

stubs=$work/bin build=$work/build
mkdir -p "$stubs" "$build/bench" "$build/python"
cat > "$stubs/cmake" << 'STUB'
#!/bin/sh
case " $* " in *" --build "*) echo "stub build $*"; exit "${STUB_BUILD_RC:-0}" ;; esac
echo "-- croqjit Python package: building with stub python"
STUB
cat > "$stubs/ctest" << 'STUB'
#!/bin/sh
echo "stub ctest $* (CROQ_HARNESS_SELF_TEST=${CROQ_HARNESS_SELF_TEST:-unset})"
exit "${STUB_CTEST_RC:-0}"
STUB
printf '#!/bin/sh\necho "Stub GPU, 580.00, 81559 MiB"\n' > "$stubs/nvidia-smi"
# The Python stub fails the scripts named in STUB_FAIL (by file name).
cat > "$stubs/python" << 'STUB'
#!/bin/sh
name=$(basename "$1")
echo "stub python $name $*"
case " ${STUB_FAIL:-} " in *" $name "*) echo "$name: WRONG RESULT"; exit 1 ;; esac
[ "$name" = reference.py ] && echo '{"triton_matmul_cold_median_ms": 50}'
exit 0
STUB
for b in e2e_bench jit_bench program_bench parse_bench; do
  printf '#!/bin/sh\necho "stub %s $*"\ncase " ${STUB_FAIL:-} " in *" %s "*) exit 1 ;; esac\nfor a; do [ "$prev" = --json ] && echo {} > "$a"; prev=$a; done\n' \
    "$b" "$b" > "$build/bench/$b"
done
chmod +x "$stubs"/* "$build"/bench/*

run() {  # NAME [ENV...]: gpu-check.sh with the stubs; its output in $work/NAME.log
  local name=$1; shift
  env PATH="$stubs:$PATH" CROQ_PYTHON="$stubs/python" CROQ_GPU_BUILD_DIR="$build" OUT="$work/out-$name" "$@" \
    "$root/scripts/gpu-check.sh" --quick > "$work/$name.log" 2>&1
}

run all-pass
rc=$?
[ $rc = 0 ] || fail "every step passing: exit $rc"
expect_line "$work/all-pass.log" '^gpu-check: every step passed$'
expect_line "$work/all-pass.log" 'stub ctest .*-L gpu.*\(CROQ_HARNESS_SELF_TEST=skip\)'
for step in configure build ctest e2e_bench jit_bench program_bench parse_bench triton_compile_reference \
            compare_cold_compile python_launch_overhead bench_add-self-test bench_gemm-self-test \
            bench_fp8_gemm-self-test bench_attention-self-test bench_add bench_gemm bench_fp8_gemm bench_attention; do
  expect_line "$work/all-pass.log" "^  $step +ok$"
done
expect_line "$work/all-pass.log" 'stub python bench_gemm.py .*--quick --json'

run harness-fails STUB_FAIL="bench_gemm.py"
rc=$?
[ $rc = 1 ] || fail "a failing harness script: exit $rc, expected 1"
expect_line "$work/harness-fails.log" '^  bench_gemm +FAILED \(exit 1\)$'
expect_line "$work/harness-fails.log" '^  bench_attention +ok$'
expect_line "$work/harness-fails.log" '^  bench_gemm-self-test +FAILED \(exit 1\)$'
expect_line "$work/harness-fails.log" '^gpu-check: 2 step\(s\) failed$'

run bench-fails STUB_FAIL="program_bench bench_attention.py" STUB_CTEST_RC=8
rc=$?
[ $rc = 1 ] || fail "failing tests and benchmarks: exit $rc, expected 1"
expect_line "$work/bench-fails.log" '^  ctest +FAILED \(exit 8\)$'
expect_line "$work/bench-fails.log" '^  program_bench +FAILED \(exit 1\)$'
expect_line "$work/bench-fails.log" '^  bench_attention-self-test +FAILED \(exit 1\)$'
expect_line "$work/bench-fails.log" '^gpu-check: 4 step\(s\) failed$'

run build-fails STUB_BUILD_RC=1
rc=$?
[ $rc = 1 ] || fail "a failing build: exit $rc, expected 1"
expect_line "$work/build-fails.log" '^  build +FAILED \(exit 1\)$'
grep -q "stub ctest" "$work/build-fails.log" && fail "tests ran after a failed build"

finish "gpu-check.sh: every step's status reached the summary and the exit status" "$work"/*.log
