# Sourced by scripts/gpu-check.sh and scripts/multi-gpu-check.sh, the
# device machine's one-command runs: the Python interpreter, the build
# environment (.devdeps, the system g++), the steps with their logs and
# statuses, the summary and the configure step. The sourcing script sets
# root, out, build and only (steps to run; empty: all), and check_name
# (how the summary names the run).
python=${CROQ_PYTHON:-}
[ -n "$python" ] || { [ -x /opt/torch/.venv/bin/python ] && python=/opt/torch/.venv/bin/python; } || python=python3
export CPATH="$root/.devdeps/include:$root/.devdeps/usr/include:$root/.devdeps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}"
# The GPU machine's default CXX (/opt/gcc) links libstdc++ statically into
# shared objects, which the Python package refuses (python/CMakeLists.txt);
# its system g++ links it dynamically.
if [ -x /usr/bin/g++ ] && [ "${CXX:-}" != /usr/bin/g++ ]; then export CC=/usr/bin/gcc CXX=/usr/bin/g++; fi
started=$SECONDS

# step NAME TIMEOUT COMMAND...: runs COMMAND (under `timeout` unless TIMEOUT
# is `-`: shell functions), shows and logs its output ($out/NAME.log) and
# records its status for the summary.
steps=() statuses=()
wanted() {
  [ ${#only[@]} -eq 0 ] && return 0
  case $1 in configure|build) return 0 ;; esac
  local s
  for s in "${only[@]}"; do [ "$s" = "$1" ] && return 0; done
  return 1
}
step() {
  local name=$1 limit=$2 rc
  shift 2
  wanted "$name" || return 0
  echo "== $name ($((SECONDS - started)) s into the run)"
  if [ "$limit" = - ]; then "$@" 2>&1 | tee "$out/$name.log"
  else timeout --kill-after=30 "$limit" "$@" 2>&1 | tee "$out/$name.log"; fi
  rc=${PIPESTATUS[0]}
  steps+=("$name")
  case $rc in
    0) statuses+=(ok) ;;
    124|137) statuses+=("TIMEOUT after ${limit}s") ;;
    *) statuses+=("FAILED (exit $rc)") ;;
  esac
  return "$rc"
}
summary() {
  echo "== summary ($((SECONDS - started)) s; logs in $out)"
  local i failed=0
  for i in "${!steps[@]}"; do
    printf '  %-26s %s\n' "${steps[$i]}" "${statuses[$i]}"
    [ "${statuses[$i]}" = ok ] || failed=$((failed + 1))
  done
  if [ $failed -gt 0 ]; then
    echo "${check_name:-gpu-check}: $failed step(s) failed"
    return 1
  fi
  echo "${check_name:-gpu-check}: every step passed"
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader \
  > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
echo "python: $python"

configure() {
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$root/.devdeps;$root/.devdeps/usr" \
    -DPython_EXECUTABLE="$(command -v "$python")"
}
