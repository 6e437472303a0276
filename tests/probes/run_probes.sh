#!/usr/bin/env bash
# Every checked-in probe (tests/probes/*.co: hostile inputs the reliability
# rounds found) through `croq check`, `croq compile` (CUDA, and PTX through
# NVRTC) and `croq host`, each under 10 seconds and 2 GiB of address space.
# A crash, a timeout or running out of memory fails the run, and so does any
# output that shows a host file (/etc/passwd's `root:` line) or a message
# located in one (NVRTC read it).
#   run_probes.sh CROQ PROBE_DIR WORK_DIR
# A probe's `// probe-compile: ARGS` line gives `croq compile` its arguments
# (--shape, --define).
set -u
croq=$1
probes=$2
work=$3
mkdir -p "$work"
failed=0
count=0
for probe in "$probes"/*.co; do
  compile_args=$(sed -n 's|^// probe-compile: ||p' "$probe" | head -n 1)
  for command in "check" "compile --emit cuda" "compile --emit ptx" "host"; do
    args=""
    [[ $command == compile* ]] && args=$compile_args
    out="$work/$(basename "$probe" .co).${command// /_}.txt"
    # shellcheck disable=SC2086  # the arguments are words
    ( ulimit -v 2097152; exec timeout --kill-after=2 10 "$croq" $command "$probe" $args ) > "$out" 2>&1
    status=$?
    count=$((count + 1))
    why=""
    if (( status == 124 || status == 137 )); then why="took more than 10 s"
    elif (( status > 2 )); then why="exit status $status (a crash or out of memory)"
    elif grep -q "root:.*:0:0:" "$out"; then why="printed a host file"
    elif grep -Eq "/etc/passwd[:(][0-9]" "$out"; then why="read a host file (a message located in it)"
    fi
    if [[ -n $why ]]; then
      echo "FAIL $(basename "$probe") [croq $command $args]: $why"
      tail -n 5 "$out"
      failed=$((failed + 1))
    fi
  done
done
echo "$count runs of $(ls "$probes"/*.co | wc -l) probes, $failed failed"
(( failed == 0 ))
