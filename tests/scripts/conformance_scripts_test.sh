#!/usr/bin/env bash
# The classification of scripts/conformance_run.sh and scripts/conformance.sh,
# without a GPU: a fake Croqtile checkout (a git repository of small .co
# files), a stub `croq` and a stub C++ compiler whose "programs" print, exit,
# crash or hang as each file says (`// SH:` lines become the program).
#   conformance_scripts_test.sh PROJECT_SOURCE_DIR
source "$(dirname "$0")/script_test_lib.sh"

# --- the stubs ---------------------------------------------------------------
build=$work/build
mkdir -p "$build/bin"
: > "$build/libcroqjit.so"
cat > "$build/croq" << 'STUB'
#!/bin/sh
# croq host FILE -o OUT | croq check [flags] FILE
command=$1; shift
if [ "$command" = host ]; then
  file=$1 out=$3
  if grep -q STUB-HOST-ERROR "$file"; then echo "$file:2:1: error: stub rejects this [stub-rule]" >&2; exit 1; fi
  cp "$file" "$out"; exit 0
fi
for file; do :; done  # the last argument
grep -q STUB-CRASH "$file" && kill -SEGV $$
grep -q STUB-HANG "$file" && exec sleep 30
grep -q STUB-EXIT3 "$file" && exit 3
if grep -q STUB-REJECT "$file"; then echo "$file:1:1: error: stub rejects [stub-rule]" >&2; exit 1; fi
exit 0
STUB
cat > "$build/bin/fake-cxx" << 'STUB'
#!/bin/sh
# Builds "program.cpp" into a shell script made of its `// SH:` lines.
src= out=
while [ $# -gt 0 ]; do
  case $1 in -o) out=$2; shift 2 ;; *.cpp) src=$1; shift ;; *) shift ;; esac
done
if grep -q STUB-BUILD-ERROR "$src"; then echo "$src:3: error: stub build error" >&2; exit 1; fi
{
  echo '#!/bin/sh'
  echo '[ -n "${CROQ_HOST_CHECK_ONLY:-}" ] && exit 0'
  sed -n 's|^// SH: ||p' "$src"
} > "$out"
chmod +x "$out"
STUB
chmod +x "$build/croq" "$build/bin/fake-cxx"

# --- a fake Croqtile checkout --------------------------------------------------
upstream=$work/croqtile
e2e=$upstream/tests/gpu/end2end
mkdir -p "$e2e" "$upstream/tests/cpu/end2end" "$upstream/tests/check"
program() {  # NAME BODY...: an end-to-end program whose RUN line executes it
  local name=$1; shift
  { echo "// RUN: choreo -gs %s | bash -s -- --execute | FileCheck %s"; printf '%s\n' "$@"; } > "$e2e/$name.co"
}
program ok '// SH: echo "result 42"' '// CHECK: result 42'
program unchecked '// SH: echo "nothing to see"'
program wrong '// SH: echo "result 41"' '// CHECK: result 42'
program crash_after_match '// SH: echo "result 42"' '// SH: kill -SEGV $$' '// CHECK: result 42'
program timeout_after_match '// SH: echo "result 42"' '// SH: exec sleep 30' '// CHECK: result 42'
program exit_after_match '// SH: echo "result 42"' '// SH: exit 1' '// CHECK: result 42'
program cuda_error '// SH: echo "CUDA error: out of memory" >&2' '// SH: exit 5' '// CHECK: result 42'
program compile_error '// STUB-HOST-ERROR' '// CHECK: result 42'
program build_error '// STUB-BUILD-ERROR' '// CHECK: result 42'
printf '%s\n' '// RUN: choreo -t cc -es %s | FileCheck %s' '// CHECK: void ele_add' > "$upstream/tests/cpu/end2end/add.co"
# conformance.sh's files: expected verdicts from the RUN lines.
check=$upstream/tests/check
printf '%s\n' '// RUN: choreo %s' > "$check/accepted.co"
printf '%s\n' '// RUN: not choreo %s' '// STUB-REJECT' > "$check/rejected.co"
printf '%s\n' '// RUN: not choreo %s' '// STUB-CRASH' > "$check/crash.co"
printf '%s\n' '// RUN: choreo %s' '// STUB-HANG' > "$check/hang.co"
printf '%s\n' '// RUN: not choreo %s' '// STUB-EXIT3' > "$check/odd_exit.co"
printf '%s\n' '// RUN: choreo %s' '// STUB-REJECT' > "$check/false_reject.co"
git -C "$upstream" init -q
git -C "$upstream" add -A
git -C "$upstream" -c user.name=test -c user.email=test@example.com commit -q -m fake

# --- conformance_run.sh, with a GPU ------------------------------------------
log=$work/run.log
CROQ_CONFORMANCE_GPU=1 CXX=$build/bin/fake-cxx "$root/scripts/conformance_run.sh" "$upstream" --build "$build" \
  --out "$work/run-out" --timeout 2 --jobs 2 > "$log" 2>&1
rc=$?
[ $rc = 1 ] || fail "conformance_run.sh with failing programs: exit $rc, expected 1"
expect_line "$log" '^ran-ok +gpu/end2end/ok\.co$'
expect_line "$log" '^ran-unchecked +gpu/end2end/unchecked\.co$'
expect_line "$log" '^wrong-output +gpu/end2end/wrong\.co: CHECK: .result 42. not found'
expect_line "$log" '^crashed +gpu/end2end/crash_after_match\.co: signal 11 \(after its CHECK lines matched\)$'
expect_line "$log" '^timeout +gpu/end2end/timeout_after_match\.co: timed out after 2s \(after its CHECK lines matched\)'
expect_line "$log" '^exit-error +gpu/end2end/exit_after_match\.co: exit 1 \(after its CHECK lines matched\)'
expect_line "$log" '^crashed +gpu/end2end/cuda_error\.co: exit 5: CUDA error: out of memory'
expect_line "$log" '^compile-error +gpu/end2end/compile_error\.co: .*error: stub rejects this'
expect_line "$log" '^build-error +gpu/end2end/build_error\.co: .*error: stub build error'
expect_line "$log" '^skipped-codegen +cpu/end2end/add\.co$'
expect_line "$log" '^runnable 9: ran-ok 1, ran-unchecked 1, wrong-output 1, exit-error 1, crashed 2, timeout 1, compile-error 1, build-error 1$'
expect_line "$log" '^not run 1 \(not counted above\): skipped-codegen 1, skipped-no-gpu 0$'
expect_line "$log" '^total 10 programs$'
expect_line "$log" '^passes resting on the exit status alone \(no CHECK lines\): gpu/end2end/unchecked\.co$'

# Only passing programs: exit 0.
CROQ_CONFORMANCE_GPU=1 CXX=$build/bin/fake-cxx "$root/scripts/conformance_run.sh" "$upstream" --build "$build" \
  --out "$work/run-ok" --only '(/ok|unchecked|add)\.co$' > "$work/run-ok.log" 2>&1
rc=$?
[ $rc = 0 ] || { fail "conformance_run.sh with passing programs only: exit $rc"; cat "$work/run-ok.log"; }
expect_line "$work/run-ok.log" '^runnable 2: ran-ok 1, ran-unchecked 1, wrong-output 0,'

# Without a GPU: built and compiled, not run; exit 0 unless something failed to build.
CROQ_CONFORMANCE_GPU=0 CXX=$build/bin/fake-cxx "$root/scripts/conformance_run.sh" "$upstream" --build "$build" \
  --out "$work/run-nogpu" --only '(/ok|wrong|compile_error)\.co$' > "$work/nogpu.log" 2>&1
rc=$?
[ $rc = 1 ] || fail "conformance_run.sh without a GPU and a compile error: exit $rc, expected 1"
expect_line "$work/nogpu.log" '^skipped-no-gpu +gpu/end2end/ok\.co$'
expect_line "$work/nogpu.log" '^skipped-no-gpu +gpu/end2end/wrong\.co$'
expect_line "$work/nogpu.log" '^runnable 1: ran-ok 0, ran-unchecked 0, wrong-output 0, exit-error 0, crashed 0, timeout 0, compile-error 1,'
expect_line "$work/nogpu.log" '^not run 2 \(not counted above\): skipped-codegen 0, skipped-no-gpu 2$'

# --- conformance.sh -------------------------------------------------------------
log=$work/check.log
"$root/scripts/conformance.sh" "$upstream" --croq "$build/croq" --out "$work/check-out" --audit "" --timeout 2 \
  > "$log" 2>&1
rc=$?
[ $rc = 1 ] || fail "conformance.sh with a crash and a hang: exit $rc, expected 1"
expect_line "$log" '^check +1 / 3 +1 / 3 +3$'
expect_line "$log" '^total +11 / 13 +1 / 3 +3$'
expect_line "$log" 'crashed or timed out on 3 file\(s\) \(not counted as rejections\)'
crashes=$work/check-out/crashes.txt
expect_line "$crashes" $'^tests/check/crash\\.co\tcrash\tsignal 11\t'
expect_line "$crashes" $'^tests/check/hang\\.co\ttimeout\ttimed out after 2s\t'
expect_line "$crashes" $'^tests/check/odd_exit\\.co\tcrash\texit 3\t'
[ "$(wc -l < "$crashes")" = 3 ] || fail "crashes.txt: $(wc -l < "$crashes") lines, expected 3"
[ "$(cut -f1 "$work/check-out/false-rejects.txt")" = tests/check/false_reject.co ] ||
  fail "false-rejects.txt: $(cat "$work/check-out/false-rejects.txt")"
[ ! -s "$work/check-out/false-accepts.txt" ] || fail "false-accepts.txt: $(cat "$work/check-out/false-accepts.txt")"

# Without crashes: exit 0.
git -C "$upstream" rm -q tests/check/crash.co tests/check/hang.co tests/check/odd_exit.co
git -C "$upstream" -c user.name=test -c user.email=test@example.com commit -q -m "no crashes"
"$root/scripts/conformance.sh" "$upstream" --croq "$build/croq" --out "$work/check-ok" --audit "" > "$work/check-ok.log" 2>&1
rc=$?
[ $rc = 0 ] || { fail "conformance.sh without crashes: exit $rc"; cat "$work/check-ok.log"; }
expect_line "$work/check-ok.log" '^check +1 / 2 +1 / 1 +0$'

finish "conformance scripts: every classification as expected" "$work/run.log" "$work/check.log"
