#!/usr/bin/env bash
# On the GPU machine: the GEMM and attention benchmarks of two trees in one
# run, so a refactoring that must not change speed is measured against the
# tree before it on the same card, minutes apart. Both trees are built here
# (Release, the Python package and kernel_sources); then, for each round,
# bench/harness/bench_gemm.py and bench_attention.py run against the BEFORE
# build and then against this tree's, alternating, each with its torch
# reference (cuBLAS / cuDNN) in the same process. The summary compares, row
# by row, ours' median time after / before and the reference ratio of each.
#
#   scripts/bench-before-after.sh BEFORE_TREE [--rounds N] [--only f16|bf16] [--full]
#
#   BEFORE_TREE   a source tree of the earlier commit (git archive REV | tar -x -C DIR);
#                 carry it along to the device when it is an ignored folder
#   --rounds N    alternations of before and after (default 2)
#   --only T      one element type (default f16)
#   --full        every shape of the scripts, not their --quick set
#
# Writes $OUT (default ./out)/before-after/*.json and summary.txt; exits 1 if
# a build or a benchmark fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/out}/before-after
mkdir -p "$out"
before_src= rounds=2 dtype=f16 quick=(--quick)
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --only) dtype=$2; shift 2 ;;
    --full) quick=(); shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "bench-before-after: unknown argument $1" >&2; exit 2 ;;
    *) before_src=$(cd "$1" && pwd); shift ;;
  esac
done
[ -n "$before_src" ] && [ -f "$before_src/CMakeLists.txt" ] ||
  { echo "bench-before-after: give the earlier tree (a folder with CMakeLists.txt)" >&2; exit 2; }
only=()
build=
# shellcheck source=scripts/device_check_lib.sh
source "$root/scripts/device_check_lib.sh"
# Both trees use this tree's .devdeps (the earlier one may not carry them).
export CPATH

build_tree() {  # build_tree SOURCE BUILD
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$root/.devdeps;$root/.devdeps/usr" \
    -DPython_EXECUTABLE="$(command -v "$python")" > "$out/configure-$(basename "$2").log" 2>&1 &&
    cmake --build "$2" -j"$(nproc)" --target croqjit kernel_sources _croqjit
}
step build_before - build_tree "$before_src" "$root/build-before" || { summary; exit 1; }
step build_after - build_tree "$root" "$root/build-gpu" || { summary; exit 1; }

run_bench() {  # run_bench TREE BUILD SCRIPT ROUND
  local tree=$1 bdir=$2 script=$3 round=$4
  env PYTHONPATH="$bdir/python" CROQ_KERNEL_SOURCES="$bdir/bench/kernel_sources" \
    CROQ_CACHE_DIR="$out/cache-$(basename "$bdir")" \
    "$python" "$root/bench/harness/$script.py" "${quick[@]}" --only "$dtype" \
    --json "$out/$script-$tree-$round.json"
}
for round in $(seq 1 "$rounds"); do
  for script in bench_gemm bench_attention; do
    step "$script-before-$round" - run_bench before "$root/build-before" "$script" "$round"
    step "$script-after-$round" - run_bench after "$root/build-gpu" "$script" "$round"
  done
done

"$python" - "$out" <<'EOF' | tee "$out/summary.txt"
import glob, json, statistics, sys
out = sys.argv[1]
for script in ("bench_gemm", "bench_attention"):
    rows = {}
    for tree in ("before", "after"):
        for path in sorted(glob.glob(f"{out}/{script}-{tree}-*.json")):
            data = json.load(open(path))
            device = data.get("device", {}).get("card", "?")
            for row in data["rows"]:
                if "ours" not in row:
                    continue
                r = rows.setdefault(row["label"], {"before": [], "after": [], "ratio_before": [], "ratio_after": []})
                r[tree].append(row["ours"]["median_ms"])
                r[f"ratio_{tree}"].append(next(iter(row["ratios"].values())))
    print(f"{script} on {device}: median over rounds; after/before < 1 means faster after")
    print(f"  {'row':52s} {'before ms':>10s} {'after ms':>10s} {'after/before':>13s} {'ref ratio before':>17s} {'after':>7s}")
    for label, r in rows.items():
        if not r["before"] or not r["after"]:
            print(f"  {label:52s} (missing on one side)")
            continue
        b, a = statistics.median(r["before"]), statistics.median(r["after"])
        print(f"  {label:52s} {b:10.4f} {a:10.4f} {a / b:13.3f} {statistics.median(r['ratio_before']):17.3f} "
              f"{statistics.median(r['ratio_after']):7.3f}")
EOF
check_name=bench-before-after; summary
