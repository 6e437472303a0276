#!/usr/bin/env bash
# Croqtile's end-to-end programs in interpret mode (scripts/conformance_run.sh
# --interpret: every __co__ call on the CPU, the host programs' own CUDA
# runtime calls on host memory), with at least MIN of them run correctly
# (ran-ok or ran-unchecked: exit 0, CHECK lines matched where they have any).
#
#   conformance_interpret_test.sh PROJECT_SOURCE_DIR PROJECT_BINARY_DIR MIN
#
# The Croqtile checkout is $CROQ_UPSTREAM, else PROJECT_SOURCE_DIR/.upstream
# (a checkout or a bare git directory). Without one the test is skipped
# (exit 77, ctest's SKIP_RETURN_CODE): the project does not ship Croqtile's
# programs.
set -uo pipefail
root=${1:?usage: conformance_interpret_test.sh PROJECT_SOURCE_DIR PROJECT_BINARY_DIR MIN}
build=${2:?usage: conformance_interpret_test.sh PROJECT_SOURCE_DIR PROJECT_BINARY_DIR MIN}
min=${3:?usage: conformance_interpret_test.sh PROJECT_SOURCE_DIR PROJECT_BINARY_DIR MIN}
upstream=${CROQ_UPSTREAM:-$root/.upstream}
if ! git --git-dir="$upstream" rev-parse HEAD > /dev/null 2>&1 && ! git -C "$upstream" rev-parse HEAD > /dev/null 2>&1; then
  echo "skipped: no Croqtile checkout at $upstream (set CROQ_UPSTREAM to one)"
  exit 77
fi
out=$build/tests/conformance-interpret
rm -rf "$out"
"$root/scripts/conformance_run.sh" "$upstream" --build "$build" --out "$out" --interpret --jobs 2 --timeout 600
totals=$(grep -E '^runnable [0-9]+:' "$out/summary.txt" | tail -1)
ok=$(sed -nE 's/.* ran-ok ([0-9]+),.*/\1/p' <<< "$totals")
unchecked=$(sed -nE 's/.* ran-unchecked ([0-9]+),.*/\1/p' <<< "$totals")
total=$(sed -nE 's/^total ([0-9]+) programs$/\1/p' "$out/summary.txt" | tail -1)
if [ -z "$ok" ] || [ -z "$unchecked" ] || [ -z "$total" ]; then
  echo "FAIL: no totals in $out/summary.txt"
  exit 1
fi
passed=$((ok + unchecked))
echo "interpret mode: $passed of $total programs ran correctly (ran-ok $ok, ran-unchecked $unchecked); at least $min expected"
[ "$passed" -ge "$min" ] || { echo "FAIL: fewer than $min"; exit 1; }
