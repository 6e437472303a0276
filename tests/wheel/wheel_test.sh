#!/usr/bin/env bash
# ctest `wheel` (labels wheel, slow): the wheel that installs anywhere.
#  1. scripts/wheel.sh builds and repairs it;
#  2. `auditwheel show` must find it consistent with a manylinux tag and
#     name no system library beyond glibc, libstdc++ and libgcc_s (libcuda
#     and NVRTC are loaded at run time, so never named at all);
#  3. scripts/wheel-check.sh installs it with its `cuda` extra (NVRTC and
#     the CUDA headers from PyPI) into a fresh venv and runs tests/python
#     against it, from a temporary folder, in a private mount namespace
#     where the CUDA toolkit and /usr/include (every -dev package's headers)
#     are hidden: what a machine without them sees. Without the privilege
#     for a mount namespace it runs unhidden and says so.
# CROQ_WHEEL_PYTHON names the interpreter; else the newest 3.12+ found.
#   tests/wheel/wheel_test.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: $0 BUILD_DIR}
work=$(mktemp -d "${TMPDIR:-/tmp}/croqjit-wheel-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The newest Python 3.12+ found builds a cp312-abi3 wheel, the one for
# every later Python (the GPU machine has 3.12); else python3's own.
python=${CROQ_WHEEL_PYTHON:-}
if [ -z "$python" ]; then
  pyenv_root=$(pyenv root 2> /dev/null || true)
  for candidate in python3.14 python3.13 python3.12 ${pyenv_root:+"$pyenv_root"/versions/3.1[2-9]*/bin/python3}; do
    if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2> /dev/null; then
      python=$candidate
      break
    fi
  done
fi
export PYTHON=${python:-python3}
echo "wheel-test: Python $("$PYTHON" -c 'import sys; print(sys.version.split()[0])') ($PYTHON)"

start=$SECONDS
# Kept in BUILD_DIR/wheel-dist: the wheel to carry to another machine.
wheel=$(BUILD_ROOT=$build "$root/scripts/wheel.sh" "$build/wheel-dist" | tail -n 1)
echo "wheel-test: built $wheel in $((SECONDS - start)) s"

tools=$build/wheel-tools-$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
show=$("$tools/bin/auditwheel" show "$wheel")
echo "$show"
echo "$show" | tr '\n' ' ' | grep -q 'is consistent with the following platform tag: "manylinux_' || {
  echo "wheel-test: auditwheel finds no manylinux tag for the wheel" >&2
  exit 1
}
# The libraries auditwheel says the wheel takes from the system, less
# those it carries itself (croqjit.libs/, renamed by the repair).
system_libs=$(echo "$show" | tr '\n' ' ' |
  sed -n 's/.*system-provided shared libraries:\(.*\)This constrains.*/\1/p' |
  grep -oE '[A-Za-z0-9_.+-]+\.so(\.[0-9]+)* with versions' | awk '{print $1}' | sort -u)
bundled=$(python3 -m zipfile -l "$wheel" | awk '{print $1}' | sed -n 's|^croqjit\.libs/||p')
[ -n "$system_libs" ] || { echo "wheel-test: auditwheel show named no system library (its output changed?)" >&2; exit 1; }
for lib in $system_libs; do
  grep -qxF "$lib" <<< "$bundled" && continue
  case "$lib" in
    libc.so.* | libm.so.* | libstdc++.so.* | libgcc_s.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
    *) echo "wheel-test: the wheel expects $lib from the system" >&2; exit 1 ;;
  esac
done
if echo "$show" | grep -q 'external shared libraries are required'; then
  echo "wheel-test: auditwheel finds libraries the wheel needs but does not carry" >&2
  exit 1
fi

check=("$root/scripts/wheel-check.sh" "$wheel" "$work/check")
export WHEEL_EXTRA=cuda
toolkit=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")
if unshare --mount --fork true 2> /dev/null; then
  echo "wheel-test: hiding $toolkit and /usr/include"
  # shellcheck disable=SC2016
  unshare --mount --fork bash -c '
    set -e
    mount -t tmpfs none "$1"
    mount -t tmpfs none /usr/include
    shift
    exec "$@"' hide "$toolkit" "${check[@]}"
else
  echo "wheel-test: note: no mount namespace here (unshare refused); the toolkit and /usr/include stay visible"
  "${check[@]}"
fi
echo "wheel-test: done in $((SECONDS - start)) s"
