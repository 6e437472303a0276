#!/usr/bin/env bash
# How much of Croqtile's own test suite `croq check` agrees with: each .co
# file under tests/{parse,check,infer,gpu,cpu} of a Croqtile checkout is
# expected to be rejected when one of its `// RUN:` lines runs the compiler
# under `not` or a CHECK line expects an error, accepted otherwise
# (preprocessing-only files are left out). A file upstream only parses (every
# run dumps the AST, -e) is checked with `croq check --syntax-only`; the run
# that decides a file's verdict passes its target (-arch=sm_XY) and defines
# (-DNAME=V) on to `croq check`.
#
#   scripts/conformance.sh CROQTILE [--croq PATH] [--out DIR] [--audit TABLE] [--timeout SECONDS]
#
# CROQTILE is a Croqtile checkout or a bare git directory (its HEAD is read).
# Prints one line per folder (accepted of expected-accepted, rejected of
# expected-rejected, and the files on which `croq check` crashed or timed
# out) and writes the disagreeing files, with croq's first diagnostic, to
# DIR/false-rejects.txt and DIR/false-accepts.txt (default
# ./conformance-out), and each expected-rejected file with croq's errors
# (LINE:RULE, `syntax` for a parse error) to DIR/rejected.tsv. `croq check`
# exits 0 (accepted) or 1 (rejected); any other end (a signal, another exit
# status, or running past --timeout, default 20 s) is a crash or a timeout:
# its own class, never counted as a rejection, listed in DIR/crashes.txt,
# and the exit status is then 1.
# With an audit table (--audit TABLE, default tests/conformance/rejects.tsv
# when it exists: one row per error upstream reports, `file line rule note`),
# it also counts the rejected files whose every recorded error croq reports
# at that line under that rule, and lists the others in
# DIR/construct-mismatches.txt.
# Read the files to learn the language; never copy them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
repo=${1:?usage: scripts/conformance.sh CROQTILE [--croq PATH] [--out DIR] [--audit TABLE]}
shift
croq=$root/build/croq
out=$PWD/conformance-out
audit=$root/tests/conformance/rejects.tsv
[ -f "$audit" ] || audit=
limit=20
while [ $# -gt 0 ]; do
  case $1 in
    --croq) croq=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --audit) audit=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$croq" ] || { echo "no croq at $croq: build first (scripts/test.sh or cmake --build build --target croq)" >&2; exit 2; }
if git -C "$repo" rev-parse --git-dir > /dev/null 2>&1; then
  git_dir=$(git -C "$repo" rev-parse --absolute-git-dir)
else
  git_dir=$repo  # a bare repository
fi
revision=$(git --git-dir="$git_dir" rev-parse --short HEAD)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
: > "$out/false-rejects.txt"
: > "$out/false-accepts.txt"
: > "$out/rejected.tsv"
: > "$out/construct-mismatches.txt"
: > "$out/crashes.txt"

declare -A want_accept got_accept want_reject got_reject crashed
parse_only=0
folders=(parse check infer gpu cpu)
for folder in "${folders[@]}"; do
  want_accept[$folder]=0 got_accept[$folder]=0 want_reject[$folder]=0 got_reject[$folder]=0 crashed[$folder]=0
done

while IFS= read -r path; do
  folder=$(cut -d/ -f2 <<< "$path")
  file="$work/$(tr '/' '_' <<< "$path")"
  git --git-dir="$git_dir" show "HEAD:$path" > "$file"
  runs=$(grep -E '^[[:space:]]*//[[:space:]]*RUN:' "$file" || true)
  [ -n "$runs" ] || continue
  # Preprocessing only (-E): nothing for a checker to say.
  if ! grep -qvE 'RUN:.*[[:space:]]-E([[:space:]]|$)' <<< "$runs"; then continue; fi
  expect=accept
  grep -qE 'RUN:[[:space:]]*not[[:space:]]+(choreo|cocc)' <<< "$runs" && expect=reject
  # Some tests pipe the errors into FileCheck instead: a positive CHECK line
  # that expects an error means the file is rejected.
  # CHECK-COUNT-N: expects an error N times (N > 0) just as well.
  grep -qE '//[[:space:]]*CHECK(-NEXT|-SAME|-DAG|-COUNT-[1-9][0-9]*)?:.*(error:|errors have been detected|Parsing failed)' "$file" &&
    expect=reject
  # Upstream only parses a file whose every compiler run dumps the AST (-e):
  # its test says nothing of the semantic rules, so neither do we.
  mode=()
  if ! grep -E '(choreo|cocc)' <<< "$runs" | grep -qvE '[[:space:]]-e([[:space:]]|$)'; then
    mode=(--syntax-only)
    parse_only=$((parse_only + 1))
  fi
  # The run that decides (the first under `not` for a rejected file, else the
  # first compiler run) may name a target (-arch=sm_90a) and defines (-DX=1):
  # check with the same.
  deciding=$(grep -m1 -E 'RUN:[[:space:]]*not[[:space:]]+(choreo|cocc)' <<< "$runs" || true)
  [ "$expect" = reject ] && [ -n "$deciding" ] || deciding=$(grep -m1 -E '(choreo|cocc)' <<< "$runs" || true)
  arch=$(grep -oE -- '-?-arch[= ](sm|compute)_[0-9]+[af]?' <<< "$deciding" | head -1 | sed -E 's/.*[= ]//' || true)
  [ -n "$arch" ] && mode+=(--arch "$arch")
  for define in $(grep -oE -- '(^|[[:space:]])-D[[:space:]]*[A-Za-z_][A-Za-z0-9_]*(=[^[:space:]]*)?' <<< "$deciding" |
                  sed -E 's/^[[:space:]]*-D[[:space:]]*//' || true); do
    mode+=(-D "$define")
  done
  rc=0
  report=$(timeout --kill-after=5 "$limit" "$croq" check "${mode[@]}" "$file" 2>&1 > /dev/null) || rc=$?
  case $rc in
    0) verdict=accept ;;
    1) verdict=reject ;;
    124|137) verdict=timeout ;;
    *) verdict=crash ;;
  esac
  first=$(grep -m1 -E 'error|fatal|timed out' <<< "$report" || true)
  if [ "$verdict" = timeout ] || [ "$verdict" = crash ]; then
    # Neither an acceptance nor a rejection: a bug of croq check.
    crashed[$folder]=$((crashed[$folder] + 1))
    why="exit $rc"
    [ "$verdict" = timeout ] && why="timed out after ${limit}s"
    [ $rc -gt 128 ] && [ "$verdict" = crash ] && why="signal $((rc - 128))"
    printf '%s\t%s\t%s\t%s\n' "$path" "$verdict" "$why" "$(head -c 300 <<< "$report" | tr '\n\t' '  ')" >> "$out/crashes.txt"
  fi
  # Each error as LINE:RULE; a parse error has no rule: `syntax`.
  errors=$(grep -E "^$file:[0-9]+:[0-9]+: error: " <<< "$report" |
           sed -E "s|^$file:([0-9]+):[0-9]+: error: .*\[([a-z0-9-]+)\]\$|\1:\2|; s|^$file:([0-9]+):[0-9]+: error: .*|\1:syntax|" |
           tr '\n' ' ' || true)
  [ "$expect" = reject ] && printf '%s\t%s\n' "$path" "${errors% }" >> "$out/rejected.tsv"
  if [ "$expect" = accept ]; then
    want_accept[$folder]=$((want_accept[$folder] + 1))
    if [ "$verdict" = accept ]; then got_accept[$folder]=$((got_accept[$folder] + 1))
    elif [ "$verdict" = reject ]; then printf '%s\t%s\n' "$path" "${first#"$work/"}" >> "$out/false-rejects.txt"; fi
  else
    want_reject[$folder]=$((want_reject[$folder] + 1))
    if [ "$verdict" = reject ]; then got_reject[$folder]=$((got_reject[$folder] + 1))
    elif [ "$verdict" = accept ]; then printf '%s\n' "$path" >> "$out/false-accepts.txt"; fi
  fi
done < <(git --git-dir="$git_dir" ls-tree -r --name-only HEAD tests | grep -E "^tests/($(IFS='|'; echo "${folders[*]}"))/.*\.co$")

printf 'Croqtile %s: `croq check` against the expectations of its tests\n' "$revision"
printf '%-8s %22s %22s %18s\n' folder "accepted / should be" "rejected / should be" "crashed or timed out"
ta=0 tA=0 tr=0 tR=0 tc=0
for folder in "${folders[@]}"; do
  printf '%-8s %14d / %-5d %14d / %-5d %18d\n' "$folder" "${got_accept[$folder]}" "${want_accept[$folder]}" \
    "${got_reject[$folder]}" "${want_reject[$folder]}" "${crashed[$folder]}"
  ta=$((ta + got_accept[$folder])) tA=$((tA + want_accept[$folder]))
  tr=$((tr + got_reject[$folder])) tR=$((tR + want_reject[$folder])) tc=$((tc + crashed[$folder]))
done
printf '%-8s %14d / %-5d %14d / %-5d %18d\n' total "$ta" "$tA" "$tr" "$tR" "$tc"
echo "$parse_only files are only parsed upstream (RUN -e): checked with --syntax-only"
echo "disagreements: $out/false-rejects.txt, $out/false-accepts.txt"
status=0
if [ "$tc" -gt 0 ]; then
  echo "croq check crashed or timed out on $tc file(s) (not counted as rejections): $out/crashes.txt"
  status=1
fi
[ -n "$audit" ] || exit $status

# The audit: a file agrees when croq reports each of its recorded errors
# (LINE:RULE) among its own; a `not-rejected` row never agrees.
awk -F'\t' -v mismatches="$out/construct-mismatches.txt" '
  FNR == NR { if ($0 ~ /^#/ || NF < 3) next
              want[$1] = want[$1] " " $2 ":" $3; if (!($1 in first)) first[$1] = $2 ":" $3; next }
  { files++; split($2, got_list, " "); delete got
    for (i in got_list) got[got_list[i]] = 1
    if (!($1 in want)) { printf "%s\tno row in the audit table\tcroq: %s\n", $1, $2 > mismatches; next }
    if (first[$1] in got) first_ok++
    n = split(substr(want[$1], 2), rows, " "); missing = ""
    for (i = 1; i <= n; i++) { rows_total++; if (rows[i] in got) rows_ok++; else missing = missing " " rows[i] }
    if (missing == "") all_ok++
    else printf "%s\tmissing:%s\tcroq: %s\n", $1, missing, $2 > mismatches }
  END { printf "rejected at the same construct and rule: %d / %d (every recorded error)\n", all_ok, files
        printf "  the first recorded error: %d / %d files; recorded errors reported: %d / %d\n", first_ok, files, rows_ok, rows_total
        print "mismatches: " mismatches }
' "$audit" "$out/rejected.tsv"
exit $status
