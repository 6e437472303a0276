#!/usr/bin/env bash
# Generated-code identity check for changes to the middle end (lowering,
# passes, backend): dumps every kernel the chosen tests and the croq
# command generate (CROQ_DUMP_GENERATED) into a folder, or compares two
# such folders byte for byte.
#
#   scripts/compare_generated.sh dump DIR [BUILD]   run the IR, pass, specialize, errors, limits
#                                                   and API tests and `croq compile` over the
#                                                   samples and tests/data/**/*.co into DIR
#   scripts/compare_generated.sh diff BEFORE AFTER  exit 1 listing the kernels that differ
#                                                   or exist on one side only
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  dump)
    dir=$(realpath -m "$2")
    build=${3:-build}
    rm -rf "$dir"
    mkdir -p "$dir"
    export CROQ_DUMP_GENERATED=$dir CROQ_VERIFY_IR=1
    for t in croq_ir_tests croq_passes_tests croq_specialize_tests croq_errors_tests croq_limits_tests croq_api_tests; do
      if [[ -x $build/tests/$t ]]; then
        "$build/tests/$t" --gtest_brief=1 >"$dir.$t.log" 2>&1 || echo "note: $t failed (see $dir.$t.log)"
      fi
    done
    for arch in sm_90a sm_80; do
      for f in $(find tests/data -name '*.co' | sort); do
        "$build/croq" compile "$f" --emit cuda --arch "$arch" >/dev/null 2>&1 || true
      done
      for s in $(cd samples && ls *.cpp | sed 's/\.cpp$//'); do
        src=$(mktemp --suffix=.co)
        if "$build/bench/kernel_sources" sample "$s" >"$src" 2>/dev/null; then
          "$build/croq" compile "$src" --emit cuda --arch "$arch" >/dev/null 2>&1 || true
        fi
        rm -f "$src"
      done
    done
    echo "$(ls "$dir" | wc -l) kernels in $dir"
    ;;
  diff)
    before=$2 after=$3
    if diff -rq "$before" "$after"; then
      echo "identical: $(ls "$before" | wc -l) kernels"
    else
      exit 1
    fi
    ;;
  *)
    echo "usage: $0 dump DIR [BUILD] | diff BEFORE AFTER" >&2
    exit 2
    ;;
esac
