#!/usr/bin/env bash
# On the GPU machine: run the GEMM samples (their own small shapes, random
# data, host reference check) under compute-sanitizer's memcheck, racecheck
# and synccheck. Each tool must report 0 errors and the sample must pass.
#
#   scripts/sanitize-samples.sh BUILD_DIR [SAMPLE...]
#
# Logs go to $OUT (default ./out). The disk cache is off so every kernel is
# compiled and launched under the tool. SANITIZE_TOOLS picks the tools
# (default: memcheck racecheck synccheck); SAMPLE_ARGS is passed to every
# sample (e.g. "f16 128": the attention samples' element type and head dim,
# since racecheck slows a kernel down by two orders of magnitude).
set -uo pipefail
build=${1:?usage: sanitize-samples.sh BUILD_DIR [SAMPLE...]}
shift
samples=("$@")
[ ${#samples[@]} -eq 0 ] && samples=(matmul_tma matmul_wgmma matmul_persistent)
out=${OUT:-$PWD/out}
mkdir -p "$out"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

status=0
for s in "${samples[@]}"; do
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    log="$out/sanitize-$s-$tool.log"
    CROQ_CACHE=0 "$sanitizer" --tool "$tool" --error-exitcode 99 "$build/samples/$s" ${SAMPLE_ARGS:-} > "$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    passed=$(grep -c "Test Passed" "$log")
    echo "$s $tool: rc=$rc ${summary:-no summary} (sample passed: $passed)"
    [ $rc -eq 0 ] && [ "$passed" -ge 1 ] || status=1
  done
done
exit $status
