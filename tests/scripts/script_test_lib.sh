# Shared by the tests of the scripts (sourced): the project's source
# directory (the test's first argument) as $root, a scratch directory $work
# removed at exit, and the checks.
set -uo pipefail
root=${1:?usage: $(basename "$0") PROJECT_SOURCE_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_line() {  # FILE REGEX: some line of FILE matches
  grep -qE -- "$2" "$1" || fail "$(basename "$1"): no line matches /$2/"
}
# finish MESSAGE LOG...: after a failure, prints the logs and exits 1;
# otherwise prints MESSAGE.
finish() {
  local message=$1
  shift
  if [ $failures -gt 0 ]; then
    local log
    for log; do echo "--- $log"; cat "$log"; done
    echo "$failures check(s) failed"
    exit 1
  fi
  echo "$message"
}
