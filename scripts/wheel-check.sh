#!/usr/bin/env bash
# Installs a croqjit wheel into a fresh venv and runs the Python tests of
# this tree (tests/python) against the installed package, from a folder
# outside the source tree, with no build folder on any path. First checks
# that every shared library the installed extension needs resolves inside
# the wheel (croqjit.libs) or is part of the system a manylinux wheel may
# count on (glibc, libstdc++, libgcc_s): libcuda and NVRTC are loaded at
# run time, so they are not needed at all.
#
#   scripts/wheel-check.sh WHEEL WORKDIR [PYTEST_ARGS...]
#
# WORKDIR is emptied and holds the venv and the run's files. Settings:
#   PYTHON            the interpreter the venv is made from (default python3)
#   WHEEL_EXTRA       an extra to install with the wheel (e.g. cuda:
#                     NVRTC and the CUDA headers from PyPI)
#   WHEEL_DEPS_DIR    install offline, from the wheels in this folder only
#                     (pip itself may be one of them: a venv made without pip
#                     runs pip from its wheel file)
#   WHEEL_EXTRA_SITE  site-packages folders (one a line) appended to the venv's path
#                     (the GPU machine's torch; the venv's own come first)
#   WHEEL_REQUIREMENTS what is installed beside the wheel (default
#                     "numpy pytest"; empty where WHEEL_EXTRA_SITE has them)
# Exits with pytest's status (5, no test collected, counts as a failure).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 WHEEL WORKDIR [PYTEST_ARGS...]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
wheel=$(readlink -f "$1")
work=$2
shift 2
[ -f "$wheel" ] || { echo "wheel-check: no wheel $wheel" >&2; exit 2; }
case "$(readlink -f "$(dirname "$work")")/" in
  "$root"/*) echo "wheel-check: WORKDIR must be outside the source tree $root" >&2; exit 2 ;;
esac
rm -rf "$work"
mkdir -p "$work"
work=$(readlink -f "$work")
venv=$work/venv
python=${PYTHON:-python3}

"$python" -m venv --without-pip "$venv"
pip_command=("$venv/bin/python" -m pip)
pip_args=(--disable-pip-version-check --quiet)
if [ -n "${WHEEL_DEPS_DIR:-}" ]; then
  pip_args+=(--no-index --find-links "$WHEEL_DEPS_DIR")
  pip_wheel=$(ls "$WHEEL_DEPS_DIR"/pip-*.whl 2> /dev/null | head -n 1 || true)
  [ -n "$pip_wheel" ] && pip_command=("$venv/bin/python" "$pip_wheel/pip")
fi
if ! "${pip_command[@]}" --version > /dev/null 2>&1; then
  "$venv/bin/python" -m ensurepip --upgrade > /dev/null
  pip_command=("$venv/bin/python" -m pip)
fi
requirement=$wheel
[ -n "${WHEEL_EXTRA:-}" ] && requirement="croqjit[$WHEEL_EXTRA] @ file://$wheel"
read -r -a requirements <<< "${WHEEL_REQUIREMENTS-numpy pytest}"
"${pip_command[@]}" install "${pip_args[@]}" "$requirement" "${requirements[@]}"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
if [ -n "${WHEEL_EXTRA_SITE:-}" ]; then
  echo "$WHEEL_EXTRA_SITE" > "$site/zz-wheel-check-extra-site.pth"
fi

# Every library the extension needs: inside the wheel, or the system's.
extension=$(ls "$site"/croqjit/_croqjit*.so)
echo "wheel-check: ldd $extension"
ldd "$extension" | tee "$work/ldd.txt"
bad=
while read -r name arrow path _; do
  case "$name" in linux-vdso.so.* | */ld-linux* | ld-linux*) continue ;; esac
  case "$name" in libc.so.* | libm.so.* | libstdc++.so.* | libgcc_s.so.* | libpthread.so.* | libdl.so.* | librt.so.*) continue ;; esac
  if [ "$arrow" != "=>" ] || [ "$path" = not ] ||
     [ "$(dirname "$(readlink -f "$path")")" != "$(readlink -f "$site/croqjit.libs")" ]; then
    bad="$bad$name $arrow $path"$'\n'
  fi
done < "$work/ldd.txt"
if [ -n "$bad" ]; then
  echo "wheel-check: these libraries do not come from the wheel nor from glibc/libstdc++:" >&2
  echo "$bad" >&2
  exit 1
fi

# From WORKDIR, with nothing of a build on the paths; the harness tests
# (bench/harness) are the source tree's tools, not the package's.
cd "$work"
status=0
env -u PYTHONPATH -u LD_LIBRARY_PATH -u CROQ_BUILD_DIR -u CROQ_KERNEL_SOURCES PYTHONDONTWRITEBYTECODE=1 \
  CROQJIT_EXPECT_PACKAGE_DIR="$site/croqjit" \
  "$venv/bin/python" -m pytest -p no:cacheprovider --rootdir "$work" -c /dev/null \
  --ignore "$root/tests/python/test_bench_harness.py" --ignore "$root/tests/python/test_gpu_bench_harness.py" \
  -rs "$@" "$root/tests/python" || status=$?
exit $status
