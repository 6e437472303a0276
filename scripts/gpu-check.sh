#!/usr/bin/env bash
# On a machine with a GPU: configure, build, run every test (the `gpu`
# label included) and the benchmarks, writing logs to $OUT (default ./out).
#
#   scripts/gpu-check.sh [--no-bench] [--bench-only NAME...]
#
# The GPU machine lacks xxHash headers: put them in .devdeps/include first
# (../shared/device/fetch-devdeps.sh) and carry .devdeps along. It lacks
# hiredis too (and maybe OpenSSL's headers): unpack Debian's packages into
# .devdeps here, whose usr/ this script searches:
#   (d=$(mktemp -d) && cd "$d" && apt-get download libhiredis-dev libhiredis0.14 \
#      libssl-dev libssl3 && for p in *.deb; do dpkg-deb -x "$p" "$OLDPWD/.devdeps"; done)
#   rm -rf .devdeps/usr/share .devdeps/usr/lib/x86_64-linux-gnu/*.a   # 8 MB instead of 19
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/out}
mkdir -p "$out"
build=${CROQ_GPU_BUILD_DIR:-$root/build-gpu}
run_bench=1
[ "${1:-}" = "--no-bench" ] && run_bench=0

export CPATH="$root/.devdeps/include:$root/.devdeps/usr/include:$root/.devdeps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}"
# The GPU machine's default CXX (/opt/gcc) links libstdc++ statically into
# shared objects, which the Python package refuses (python/CMakeLists.txt);
# its system g++ links it dynamically.
if [ -x /usr/bin/g++ ] && [ "${CXX:-}" != /usr/bin/g++ ]; then export CC=/usr/bin/gcc CXX=/usr/bin/g++; fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$root/.devdeps;$root/.devdeps/usr" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" > "$out/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$out/build.log" | head -60; exit 1; }
echo "build ok"

status=0
( cd "$build" && ctest --output-on-failure -j4 -E install_consumer ) > "$out/ctest.log" 2>&1 || status=1
grep -E "tests passed|tests failed|\*\*\*Failed|Skipped" "$out/ctest.log" | head -40
( cd "$build" && ctest -L gpu --output-on-failure ) > "$out/ctest-gpu.log" 2>&1 || status=1
grep -E "tests passed|tests failed|Failed" "$out/ctest-gpu.log" | head -20

if [ $run_bench = 1 ]; then
  for b in "$build"/bench/*; do
    [ -x "$b" ] && [ -f "$b" ] || continue
    name=$(basename "$b")
    echo "== $name"
    # Benchmarks measure cold compiles: keep the disk cache out of them.
    json_args=(--json "$out/$name.json")
    [ "$name" = parse_bench ] && json_args=()  # prints its own table only
    CROQ_CACHE=0 "$b" "${json_args[@]}" 2>&1 | tee "$out/$name.txt"
  done
  echo "== reference (torch, Triton) in the same run"
  python3 "$root/bench/reference.py" > "$out/reference.json" 2> "$out/reference.err" || cat "$out/reference.err"
  [ -f "$out/e2e_bench.json" ] && python3 "$root/bench/compare.py" "$out/e2e_bench.json" "$out/reference.json"
  [ -f "$out/gemm_bench.json" ] && python3 "$root/bench/gemm_reference.py" "$out/gemm_bench.json" --json "$out/gemm_reference.json"
fi
exit $status
