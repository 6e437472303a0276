#!/usr/bin/env bash
# scripts/multi-gpu-check.sh without a GPU: stub cmake, ctest, nvidia-smi
# (4 GPUs), Python and the sample in a fake build directory. Every step
# runs (the torchrun MLP with 2 and 4 ranks), its status reaches the
# summary and the exit status, and a failing figure fails the run.
#   multi_gpu_check_test.sh PROJECT_SOURCE_DIR
source "$(dirname "$0")/script_test_lib.sh"

stubs=$work/bin build=$work/build
mkdir -p "$stubs" "$build/samples"
cat > "$stubs/cmake" << 'STUB'
#!/bin/sh
case " $* " in *" --build "*) echo "stub build $*"; exit 0 ;; esac
echo "-- croqjit Python package: building with stub python"
STUB
printf '#!/bin/sh\necho "stub ctest $*"\nexit "${STUB_CTEST_RC:-0}"\n' > "$stubs/ctest"
cat > "$stubs/nvidia-smi" << 'STUB'
#!/bin/sh
case "$*" in
  *--list-gpus*) for i in 0 1 2 3; do echo "GPU $i: Stub H100 (UUID: GPU-$i)"; done ;;
  *topo*) echo "stub topology" ;;
  *) echo "Stub GPU, 580.00, 81559 MiB" ;;
esac
STUB
cat > "$stubs/python" << 'STUB'
#!/bin/sh
name=$(basename "$1")
echo "stub python $name $*"
case " ${STUB_FAIL:-} " in *" $name "*) exit 1 ;; esac
exit 0
STUB
printf '#!/bin/sh\necho "stub sample $*"\necho "  fused speed-up          1.400x"\nexit "${STUB_SAMPLE_RC:-0}"\n' \
  > "$build/samples/multi_gpu_allgather_gemm"
chmod +x "$stubs"/* "$build/samples/multi_gpu_allgather_gemm"

run() {  # NAME [ENV...]: the script with the stubs; its output in $work/NAME.log
  local name=$1; shift
  env PATH="$stubs:$PATH" CROQ_PYTHON="$stubs/python" CROQ_GPU_BUILD_DIR="$build" OUT="$work/out-$name" "$@" \
    "$root/scripts/multi-gpu-check.sh" --runs 3 > "$work/$name.log" 2>&1
}

run all-pass
rc=$?
[ $rc = 0 ] || fail "every step passing: exit $rc"
expect_line "$work/all-pass.log" '^multi-gpu-check: every step passed$'
expect_line "$work/all-pass.log" 'stub ctest .*-L multigpu'
expect_line "$work/all-pass.log" 'stub sample --bench --size 8192 --runs 3 --json'
expect_line "$work/all-pass.log" 'stub python tp_mlp.py .*--ranks 4 --bench --runs 3'
expect_line "$work/all-pass.log" 'fused speed-up +1.400x'
for step in configure build ctest_multigpu allgather_gemm_bench torch_allgather_gemm tp_mlp_2 tp_mlp_4; do
  expect_line "$work/all-pass.log" "^  $step +ok$"
done

run fails STUB_FAIL="tp_mlp.py" STUB_SAMPLE_RC=1
rc=$?
[ $rc = 1 ] || fail "failing steps: exit $rc, expected 1"
expect_line "$work/fails.log" '^  allgather_gemm_bench +FAILED \(exit 1\)$'
expect_line "$work/fails.log" '^  tp_mlp_4 +FAILED \(exit 1\)$'
expect_line "$work/fails.log" '^  torch_allgather_gemm +ok$'
expect_line "$work/fails.log" '^multi-gpu-check: 3 step\(s\) failed$'

finish "multi-gpu-check.sh: every step's status reached the summary and the exit status" "$work"/*.log
