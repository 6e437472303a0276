#!/usr/bin/env bash
# The wheel on the GPU machine: a fresh venv with only the wheel and,
# from DEPS_DIR (that machine has no package index), pip and whichever of
# numpy, pytest, ml_dtypes, tqdm and matplotlib torch's Python lacks; torch's site-packages
# (/opt/torch/.venv there: torch, CuPy, numpy) appended to its path; then
# tests/python against the installed package, CPU and GPU tests
# (scripts/wheel-check.sh). Logs go to $OUT (else ./wheel-gpu-logs).
#
#   scripts/wheel-gpu-check.sh --fetch DEPS_DIR [PYTHON_VERSION]
#       on a machine with PyPI: downloads pip, numpy, pytest, ml_dtypes, tqdm and matplotlib (and what
#       they need) as wheels for CPython PYTHON_VERSION (default 3.12,
#       the GPU machine's) on manylinux x86_64 into DEPS_DIR
#   scripts/wheel-gpu-check.sh WHEEL DEPS_DIR
#       on the GPU machine; exits 1 unless the GPU tests ran and passed
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = --fetch ]; then
  deps=${2:?usage: $0 --fetch DEPS_DIR [PYTHON_VERSION]}
  version=${3:-3.12}
  mkdir -p "$deps"
  python3 -m pip download --disable-pip-version-check --quiet --only-binary=:all: \
    --python-version "$version" --implementation cp --abi "cp${version/./}" --abi abi3 --abi none \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    --platform any -d "$deps" pip numpy pytest ml_dtypes tqdm matplotlib
  ls "$deps"
  exit 0
fi

wheel=${1:?usage: $0 WHEEL DEPS_DIR (or --fetch DEPS_DIR)}
deps=$(readlink -f "${2:?usage: $0 WHEEL DEPS_DIR}")
logs=${OUT:-$PWD/wheel-gpu-logs}
mkdir -p "$logs"
# torch's Python where there is one (the venv is made from it, so the
# versions match), else PYTHON or python3.
python=${PYTHON:-python3}
extra_site=
if [ -z "${PYTHON:-}" ] && [ -x /opt/torch/.venv/bin/python ]; then
  python=/opt/torch/.venv/bin/python
  extra_site=$("$python" -c 'import site; print("\n".join(site.getsitepackages()))')
fi
# numpy and pytest, and the optional ml_dtypes, tqdm and matplotlib (the
# dtype map, tune's progress bar, the roofline plots): torch's (its numpy is
# the one torch and CuPy were built against) where that site has them, else
# DEPS_DIR's.
missing=
for module in numpy pytest ml_dtypes tqdm matplotlib; do
  "$python" -c "import $module" 2> /dev/null || missing="$missing $module"
done
nvidia-smi -L > "$logs/nvidia-smi.txt" 2>&1 || true
work=$(mktemp -d "${TMPDIR:-/tmp}/croqjit-wheel-gpu.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
PYTHON=$python WHEEL_DEPS_DIR=$deps WHEEL_EXTRA_SITE=$extra_site WHEEL_REQUIREMENTS=$missing \
  "$root/scripts/wheel-check.sh" "$wheel" "$work/check" -v 2>&1 | tee "$logs/wheel-gpu-check.log" || status=$?
# The GPU tests must have run, not skipped: their module names hold "gpu".
passed_gpu=$(grep -c 'test_gpu_[a-z_]*\.py::.* PASSED' "$logs/wheel-gpu-check.log" || true)
echo "wheel-gpu-check: $passed_gpu GPU test(s) passed; log in $logs/wheel-gpu-check.log"
[ "$passed_gpu" -gt 0 ] || status=1
exit $status
