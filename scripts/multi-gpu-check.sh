#!/usr/bin/env bash
# On a machine with several GPUs of one host (NVLink), one command:
# configure and build what the multi-GPU work needs, run the tests
# labelled `multigpu` (C++ gtests, the all-gather GEMM sample's checks, the
# torchrun MLP at a small size), then the figures: the all-gather + GEMM
# sample's --bench (fused against all-gather-then-GEMM, the Croqtile peer
# copy against cudaMemcpyPeerAsync) on all GPUs, torch's all-gather + GEMM
# in the same run, and the tensor-parallel MLP under torchrun with 2 and 4
# ranks (as many as there are GPUs) against torch.matmul + NCCL. Logs and
# JSON go to $OUT (default ./out-multigpu); a summary of the steps at the
# end, exit status 1 when any failed (a check, or a figure below its
# acceptance).
#
#   scripts/multi-gpu-check.sh [--only STEP]... [--size S] [--runs R]
#
# Build environment as scripts/gpu-check.sh (.devdeps carried along, built
# with ../shared/device/fetch-devdeps.sh; the build goes to build-gpu/).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/out-multigpu}
mkdir -p "$out"
rm -f "$out"/*.json
build=${CROQ_GPU_BUILD_DIR:-$root/build-gpu}
only=() size=8192 runs=15 check_name=multi-gpu-check
while [ $# -gt 0 ]; do
  case $1 in
    --only) only+=("$2"); shift 2 ;;
    --size) size=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "multi-gpu-check: unknown argument $1" >&2; exit 2 ;;
  esac
done
# shellcheck source=scripts/device_check_lib.sh
source "$root/scripts/device_check_lib.sh"
gpus=$(nvidia-smi --list-gpus 2>/dev/null | grep -c '^GPU')
echo "GPUs: $gpus"
nvidia-smi topo -m > "$out/topology.txt" 2>&1 && cat "$out/topology.txt"

build_targets() {
  local targets=(croq croqjit croq_multigpu_tests multi_gpu_allgather_gemm kernel_sources)
  grep -q "croqjit Python package: building" "$out/configure.log" && targets+=(_croqjit)
  cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
}
step configure - configure || { summary; exit 1; }
step build - build_targets || { summary; exit 1; }

export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" CROQ_KERNEL_SOURCES="$build/bench/kernel_sources"
step ctest_multigpu 600 ctest --test-dir "$build" --output-on-failure -L multigpu
step allgather_gemm_bench 300 "$build/samples/multi_gpu_allgather_gemm" --bench --size "$size" --runs "$runs" \
  --json "$out/allgather_gemm.json"
step torch_allgather_gemm 300 "$python" "$root/bench/multi_gpu_torch.py" --size "$size" --runs "$runs" \
  --json "$out/torch_allgather_gemm.json"
for ranks in 2 4; do
  [ "$gpus" -ge "$ranks" ] || continue
  step "tp_mlp_$ranks" 420 "$python" "$root/samples/python/tp_mlp.py" --ranks "$ranks" --bench --runs "$runs" \
    --json "$out/tp_mlp_$ranks.json"
done

# The acceptance figures, side by side (each step's log has the rest).
echo "== figures"
grep -h -E "fused speed-up|peer_copy / memcpy|allgather_then_gemm  |fused   |cudaMemcpyPeerAsync  |croq peer_copy  " \
  "$out/allgather_gemm_bench.log" 2>/dev/null
grep -h -E "^  torch (allgather_then_gemm|fused)" "$out/torch_allgather_gemm.log" 2>/dev/null
for ranks in 2 4; do
  [ -f "$out/tp_mlp_$ranks.log" ] && grep -h -E "tp_mlp bench|croqjit GEMMs|chunks overlapped|torch.matmul|croqjit \(|once per node|vs one GPU" "$out/tp_mlp_$ranks.log"
done
summary
