#!/usr/bin/env bash
# Runs Croqtile's end-to-end test programs (tests/gpu/end2end/*.co and
# tests/cpu/end2end/*.co of a Croqtile checkout: __co__ functions plus a
# host `main`) through libcroqjit, unchanged: `croq host` turns each into a
# C++ program, g++ builds it against the built library, and its output is
# checked against the file's `// CHECK:` lines (CHECK, CHECK-NEXT,
# CHECK-NOT, CHECK-DAG; --match-full-lines when the file's RUN line asks).
#
#   scripts/conformance_run.sh CROQTILE [--out DIR] [--build DIR] [--timeout SECONDS] [--jobs N] [--only REGEX] [--interpret]
#
# --interpret runs every program on the CPU (CROQ_INTERPRET=1: the tile IR
# interpreter, no GPU needed) and checks its output like a GPU run.
#
# CROQTILE is a Croqtile checkout or a bare git directory (its HEAD is read).
# Prints one line per program and the totals. A program that can run here:
#   ran-ok          it exited 0 and its output matched its CHECK lines
#   ran-unchecked   it exited 0 but has no CHECK lines: the pass rests on the
#                   exit status alone (these are listed after the totals)
#   wrong-output    its output did not match its CHECK lines
#   exit-error      its output matched (or it has no CHECK lines) but it
#                   exited non-zero without crashing
#   crashed         it died on a signal, or croq stopped it on an argument or
#                   CUDA error (exit 4, 5, 6), matched output or not
#   timeout         it ran past --timeout (matched output or not)
#   compile-error   croq rejected a __co__ function (its first diagnostic follows)
#   build-error     g++ could not build the program (its first error follows)
# and, reported apart and not counted among the runnable programs:
#   skipped-codegen its RUN (and RUN-COCR) lines check generated code, not a
#                   program's output (e.g. cpu/end2end/add.co): it cannot run
#   skipped-no-gpu  built and compiled, but there is no GPU to run it on
# Without a GPU each program is still generated and built, and its __co__
# functions compiled (CROQ_HOST_CHECK_ONLY=1), so compile errors show.
# DIR (default ./conformance-run-out) keeps each program's files and logs.
# Exit status: 0 when every runnable program is ran-ok or ran-unchecked, 1
# otherwise, 2 on a usage error. CROQ_CONFORMANCE_GPU=0|1 overrides the
# detection of a GPU (nvidia-smi); CXX the compiler.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
repo=${1:?usage: scripts/conformance_run.sh CROQTILE [--out DIR] [--build DIR] [--timeout SECONDS] [--jobs N] [--only REGEX]}
shift
out=$PWD/conformance-run-out
build=$root/build
limit=180
jobs=$(nproc 2>/dev/null || echo 2)
only=
interpret=0
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --interpret) interpret=1; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
out=$(mkdir -p "$out" && cd "$out" && pwd)
build=$(cd "$build" 2>/dev/null && pwd) || { echo "no build directory $build" >&2; exit 2; }
croq=$build/croq
[ -x "$croq" ] || { echo "no croq at $croq: build first (cmake --build build --target croq croqjit)" >&2; exit 2; }
libdir=$(dirname "$(find "$build" -maxdepth 1 -name 'libcroqjit.so*' | head -1)")
[ -n "$libdir" ] && [ -d "$libdir" ] || { echo "no libcroqjit.so in $build" >&2; exit 2; }
if git -C "$repo" rev-parse --git-dir > /dev/null 2>&1; then
  git_dir=$(git -C "$repo" rev-parse --absolute-git-dir)
else
  git_dir=$repo  # a bare repository
fi
command -v python3 > /dev/null || { echo "python3 is needed to match CHECK lines" >&2; exit 2; }

# The C++ compiler and, where the CUDA toolkit is, its runtime (host code
# that calls cudaMalloc; choreo.hpp then uses CUDA's element types).
cxx=${CXX:-g++}
cuda_home=${CUDA_HOME:-/usr/local/cuda}
cxx_flags=(-std=c++20 -O1 -w -pthread -I"$root/include")
link_flags=(-L"$libdir" -lcroqjit -Wl,-rpath,"$libdir")
if [ -f "$cuda_home/include/cuda_runtime.h" ]; then
  cudalib=$cuda_home/lib64
  [ -e "$cudalib/libcudart.so" ] || cudalib=$cuda_home/lib
  cxx_flags+=(-I"$cuda_home/include")
  link_flags+=(-L"$cudalib" -lcudart -Wl,-rpath,"$cudalib")
else
  cxx_flags+=(-DCROQ_CHOREO_NO_CUDA)
fi
have_gpu=0
if command -v nvidia-smi > /dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then have_gpu=1; fi
case ${CROQ_CONFORMANCE_GPU:-} in 0|1) have_gpu=$CROQ_CONFORMANCE_GPU ;; esac
# Interpret mode runs the programs on the CPU, as a GPU run would.
if [ $interpret = 1 ]; then have_gpu=1; export CROQ_INTERPRET=1; fi

# The first error line of a log: croq's `file:line:col: error: ...`, g++'s
# `file:line: error: ...`, or else its first line.
first_error() {
  local line
  line=$(grep -m1 -E '(^|: )(fatal )?error' "$1" 2>/dev/null || true)
  [ -n "$line" ] || line=$(grep -m1 -v '^[[:space:]]*$' "$1" 2>/dev/null || true)
  printf '%s' "${line:0:300}"
}

# Phase 1, in parallel: generate and build each program. Writes
# DIR/NAME/{status,detail} when it stops early, else leaves DIR/NAME/prog.
prepare() {
  local path=$1 dir=$2
  mkdir -p "$dir"
  rm -f "$dir/status" "$dir/detail" "$dir/prog"
  git --git-dir="$git_dir" show "HEAD:$path" > "$dir/source.co"
  cp "$dir/source.co" "$dir/${path##*/}"  # croq's messages name the file as upstream does
  # RUN (or RUN-COCR, upstream's runs through its other driver) lines that execute.
  if ! grep -qE '^[[:space:]]*//[[:space:]]*RUN(-COCR)?:.*(--execute|\.exe|run\.sh)' "$dir/source.co"; then
    echo skipped-codegen > "$dir/status"
    return
  fi
  if ! (cd "$dir" && "$croq" host "${path##*/}" -o program.cpp 2> host.err); then
    echo compile-error > "$dir/status"
    first_error "$dir/host.err" > "$dir/detail"
    return
  fi
  if ! "$cxx" "${cxx_flags[@]}" "$dir/program.cpp" -o "$dir/prog" "${link_flags[@]}" > "$dir/build.err" 2>&1; then
    echo build-error > "$dir/status"
    first_error "$dir/build.err" > "$dir/detail"
    rm -f "$dir/prog"
  fi
}

# Checks DIR/stdout against the CHECK lines of DIR/source.co; prints why not.
check_output() {
  python3 - "$1/source.co" "$1/stdout" << 'EOF'
import re, sys
source, output = open(sys.argv[1], errors="replace").read(), open(sys.argv[2], errors="replace").read()
runs = [l for l in source.splitlines() if re.match(r"\s*//\s*RUN(-COCR)?:", l)]
# The flags of the first run that checks with the default prefix.
default_runs = [r for r in runs if "FileCheck" in r and "--check-prefix" not in r.split("FileCheck", 1)[1]]
full_lines = bool(default_runs) and "--match-full-lines" in default_runs[0].split("FileCheck", 1)[1]
checks = []
for l in source.splitlines():
    m = re.match(r"\s*//\s*CHECK(-NEXT|-NOT|-DAG)?:(.*)$", l)
    if m: checks.append(((m.group(1) or "")[1:] or "PLAIN", m.group(2).strip()))
lines = output.splitlines()
norm = lambda s: re.sub(r"[ \t]+", " ", s.strip())
def matches(pattern, line):
    return norm(line) == norm(pattern) if full_lines else norm(pattern) in norm(line)
def find(pattern, start, end):
    for i in range(start, end):
        if matches(pattern, lines[i]): return i
    return -1
pos, last, pending_not, dag_used = 0, -1, [], set()
def fail(msg):
    print(msg); sys.exit(1)
def close_nots(upto):
    for p in pending_not:
        hit = find(p, pos, upto)
        if hit >= 0: fail("CHECK-NOT: %r found on output line %d" % (p, hit + 1))
    pending_not.clear()
for kind, pattern in checks:
    if kind == "NOT":
        pending_not.append(pattern); continue
    if kind == "DAG":
        for i in range(pos, len(lines)):
            if i not in dag_used and matches(pattern, lines[i]):
                dag_used.add(i); last = max(last, i); break
        else: fail("CHECK-DAG: %r not found" % pattern)
        continue
    if dag_used:
        pos = max(dag_used) + 1; dag_used = set()
    if kind == "NEXT":
        if last + 1 >= len(lines) or not matches(pattern, lines[last + 1]):
            got = lines[last + 1] if last + 1 < len(lines) else "<end of output>"
            fail("CHECK-NEXT: %r expected on output line %d, got %r" % (pattern, last + 2, got))
        hit = last + 1
    else:
        hit = find(pattern, pos, len(lines))
        if hit < 0: fail("CHECK: %r not found after output line %d" % (pattern, pos))
    close_nots(hit)
    pos, last = hit + 1, hit
close_nots(len(lines))
EOF
}

# "TEXT" followed by ": " and the first error of FILE, when it has one.
with_error() {
  local err
  err=$(first_error "$2")
  if [ -n "$err" ]; then printf '%s: %s\n' "$1" "$err"; else printf '%s\n' "$1"; fi
}

# Classifies one program's run (see the list at the top) from its exit
# status and whether its output matched its CHECK lines.
run_one() {
  local dir=$1 rc
  if [ $have_gpu = 0 ]; then
    CROQ_HOST_CHECK_ONLY=1 timeout --kill-after=10 "$limit" "$dir/prog" > "$dir/stdout" 2> "$dir/stderr"
    rc=$?
    if [ $rc = 3 ]; then echo compile-error > "$dir/status"; first_error "$dir/stderr" > "$dir/detail"
    elif [ $rc = 0 ]; then echo skipped-no-gpu > "$dir/status"
    elif [ $rc = 124 ] || [ $rc = 137 ]; then echo timeout > "$dir/status"; echo "timed out after ${limit}s while compiling" > "$dir/detail"
    else echo crashed > "$dir/status"; echo "exit $rc while compiling: $(first_error "$dir/stderr")" > "$dir/detail"
    fi
    return
  fi
  (cd "$dir" && CHOREO_DISABLE_TIMING=1 timeout --kill-after=10 "$limit" ./prog --disable-timing > stdout 2> stderr)
  rc=$?
  if [ $rc = 3 ]; then
    echo compile-error > "$dir/status"; first_error "$dir/stderr" > "$dir/detail"; return
  fi
  local checks=0 matched=0 status
  if grep -qE '^[[:space:]]*//[[:space:]]*CHECK(-NEXT|-NOT|-DAG)?:' "$dir/source.co"; then
    checks=1
    check_output "$dir" > "$dir/check.txt" && matched=1
  fi
  local after=""
  [ $matched = 1 ] && after=" (after its CHECK lines matched)"
  if [ $rc = 124 ] || [ $rc = 137 ]; then
    echo timeout > "$dir/status"
    with_error "timed out after ${limit}s$after" "$dir/stderr" > "$dir/detail"
  elif [ $rc -gt 128 ] || { [ $rc -ge 4 ] && [ $rc -le 6 ]; }; then
    echo crashed > "$dir/status"
    local why="exit $rc"
    [ $rc -gt 128 ] && why="signal $((rc - 128))"
    with_error "$why$after" "$dir/stderr" > "$dir/detail"
  elif [ $checks = 1 ] && [ $matched = 0 ]; then
    echo wrong-output > "$dir/status"
    { cat "$dir/check.txt" 2>/dev/null; [ $rc != 0 ] && echo " (exit $rc: $(first_error "$dir/stderr"))"; } | tr '\n' ' ' > "$dir/detail"
  elif [ $rc != 0 ]; then
    echo exit-error > "$dir/status"
    with_error "exit $rc$after" "$dir/stderr" > "$dir/detail"
  else
    status=ran-ok
    [ $checks = 0 ] && status=ran-unchecked
    echo $status > "$dir/status"
  fi
}

mapfile -t paths < <(git --git-dir="$git_dir" ls-tree -r --name-only HEAD -- tests/gpu/end2end tests/cpu/end2end |
                     grep -E '\.co$' | { if [ -n "$only" ]; then grep -E "$only"; else cat; fi; })
[ ${#paths[@]} -gt 0 ] || { echo "no end-to-end programs found in $repo" >&2; exit 2; }
echo "croqtile $(git --git-dir="$git_dir" rev-parse --short HEAD): ${#paths[@]} programs; gpu: $([ $have_gpu = 1 ] && echo yes || echo no)"

dir_of() { local p=${1#tests/}; echo "$out/${p//\//_}"; }
running=0
for path in "${paths[@]}"; do
  prepare "$path" "$(dir_of "$path")" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

declare -A total
runnable_statuses=(ran-ok ran-unchecked wrong-output exit-error crashed timeout compile-error build-error)
other_statuses=(skipped-codegen skipped-no-gpu)
for s in "${runnable_statuses[@]}" "${other_statuses[@]}"; do total[$s]=0; done
unchecked=()
: > "$out/summary.txt"
for path in "${paths[@]}"; do
  dir=$(dir_of "$path")
  [ -f "$dir/status" ] || run_one "$dir"
  status=$(cat "$dir/status")
  total[$status]=$((total[$status] + 1))
  [ "$status" = ran-unchecked ] && unchecked+=("${path#tests/}")
  line=$(printf '%-15s %s' "$status" "${path#tests/}")
  [ -s "$dir/detail" ] && line="$line: $(cat "$dir/detail")"
  echo "$line" | tee -a "$out/summary.txt"
done
runnable=0 not_runnable=0
for s in "${runnable_statuses[@]}"; do runnable=$((runnable + total[$s])); done
for s in "${other_statuses[@]}"; do not_runnable=$((not_runnable + total[$s])); done
{
  summary="runnable $runnable:"
  for s in "${runnable_statuses[@]}"; do summary="$summary $s ${total[$s]},"; done
  echo "${summary%,}"
  summary="not run $not_runnable (not counted above):"
  for s in "${other_statuses[@]}"; do summary="$summary $s ${total[$s]},"; done
  echo "${summary%,}"
  echo "total ${#paths[@]} programs"
  if [ ${#unchecked[@]} -gt 0 ]; then
    echo "passes resting on the exit status alone (no CHECK lines): ${unchecked[*]}"
  fi
} | tee -a "$out/summary.txt"
failed=$((runnable - ${total[ran-ok]} - ${total[ran-unchecked]}))

# Upstream README's persistent GEMM, as written there (only its #defines
# added): tests/gpu/block_accumulator_gpu_test.cpp reads it from the README.
test_bin=$build/tests/croq_gpu_tests
readme=$out/upstream-README.md
if [ -z "$only" ] && git --git-dir="$git_dir" show HEAD:README.md > "$readme" 2> /dev/null && [ -x "$test_bin" ]; then
  if [ $interpret = 1 ]; then
    echo "skipped-no-gpu  README.md persistent GEMM (a GPU test: not run in interpret mode)" | tee -a "$out/summary.txt"
  elif [ $have_gpu = 1 ]; then
    if CROQ_UPSTREAM_README=$readme "$test_bin" --gtest_filter='UpstreamReadmeGemmGpu.*' > "$out/readme-gemm.log" 2>&1 &&
       grep -q '\[  PASSED  \] 1 test' "$out/readme-gemm.log" && ! grep -q SKIPPED "$out/readme-gemm.log"; then
      echo "ran-ok          README.md persistent GEMM" | tee -a "$out/summary.txt"
    else
      echo "wrong-output    README.md persistent GEMM: see $out/readme-gemm.log" | tee -a "$out/summary.txt"
      failed=$((failed + 1))
    fi
  else
    echo "skipped-no-gpu  README.md persistent GEMM" | tee -a "$out/summary.txt"
  fi
fi
[ "$failed" -eq 0 ]
