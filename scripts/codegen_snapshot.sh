#!/usr/bin/env bash
# Snapshot of what lowering produces for every kernel the CPU test suites
# generate: the IR after lowering and after each pass (CROQ_PRINT_IR_AFTER=all),
# in test order, so a refactoring of sema or lowering can be checked to leave
# the generated code byte-identical:
#
#   scripts/codegen_snapshot.sh BUILD_DIR OUT_DIR      # before the change
#   scripts/codegen_snapshot.sh BUILD_DIR OUT_DIR2     # after it
#   diff -r OUT_DIR OUT_DIR2
#
# One file per test binary (gtest's timings removed); the IR test binary
# lowers every sample. (CROQ_SEMA_FACTS_DUMP=1 also prints each kernel's CUDA where a local build
# instruments pipeline::generate_program to; without it, the IR only).
set -u
build=${1:?usage: codegen_snapshot.sh BUILD_DIR OUT_DIR}
out=${2:?usage: codegen_snapshot.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
for suite in ir specialize errors passes sema; do
  bin="$build/tests/croq_${suite}_tests"
  [ -x "$bin" ] || { echo "skip $suite (not built)"; continue; }
  LD_LIBRARY_PATH="${SNAPSHOT_LIB_DIR:-}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" CROQ_SEMA_FACTS_DUMP=1 CROQ_PRINT_IR_AFTER=all CROQ_VERIFY_IR=1 "$bin" --gtest_color=no 2>&1 |
    sed -E 's/ \([0-9]+ ms( total)?\)//; s/^\[==========\] .* ran\..*$/[ran]/' > "$out/$suite.txt"
  echo "$suite: $(grep -c '^// CROQ_PRINT_IR_AFTER: after lower' "$out/$suite.txt") kernels lowered," \
    "$(grep -c '^// CUDA of' "$out/$suite.txt") printed, $(grep -c '^\[  FAILED' "$out/$suite.txt") failed lines"
done
