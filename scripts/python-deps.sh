#!/usr/bin/env bash
# Creates (or reuses) the Python virtual environment that builds and tests
# the `croqjit` Python package: BUILD_DIR/python-venv with nanobind,
# scikit-build-core, pytest and numpy, and where the index has them
# ml_dtypes (NumPy's bfloat16, fp8, fp6, fp4 and int4 dtypes), tqdm
# (croqjit.tune's progress bar) and matplotlib (croqjit.report's plots),
# whose tests skip without them. CMake configured into BUILD_DIR picks
# this venv's interpreter, so the Python tests join ctest (label `python`).
# It also installs the documentation site's MkDocs (docs/requirements.txt);
# without it (no PyPI) only the site's build test skips, saying why.
#
#   scripts/python-deps.sh [BUILD_DIR]     (default: ./build, relative to the current directory)
#
# Prints the venv's python on stdout. Idempotent: a venv that already has
# the packages is reused without touching the network. Exits 1 with a
# message on stderr when no usable python3 (with venv and headers) exists;
# callers that treat the Python package as optional may ignore that.
set -euo pipefail
build=${1:-build}
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
venv="$build/python-venv"
python=${PYTHON:-python3}
packages=(nanobind scikit-build-core pytest numpy)
modules=(nanobind scikit_build_core pytest numpy)
docs_requirements=$(cd "$(dirname "$0")/.." && pwd)/docs/requirements.txt
# Optional: tried once per venv (the marker), so that a machine without a
# package index (the GPU machine) neither fails nor waits on every run.
optional=(ml_dtypes tqdm matplotlib)
# The marker names the list, so that a package added to it is tried again.
optional_tried=".croq-optional-tried-$(IFS=-; echo "${optional[*]}")"

have_packages() {
  "$venv/bin/python" - "${@:-${modules[@]}}" <<'PY' 2>/dev/null
import importlib.util, sys
sys.exit(0 if all(importlib.util.find_spec(m) for m in sys.argv[1:]) else 1)
PY
}

# The site's packages are optional: a failure is a warning, not an error.
ensure_docs_packages() {
  "$venv/bin/python" -c 'import mkdocs, material' 2>/dev/null && return 0
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --retries 1 --timeout 30 \
    -r "$docs_requirements" >&2 ||
    echo "python-deps: pip could not install $docs_requirements; the documentation site's build test (docs_build) will skip" >&2
}

install_optional() {
  [ -e "$venv/$optional_tried" ] || have_packages "${optional[@]}" && return 0
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --retries 0 --timeout 15 \
    "${optional[@]}" >/dev/null 2>&1 ||
    echo "python-deps: could not install ${optional[*]} (optional; their tests skip)" >&2
  touch "$venv/$optional_tried"
}

if [ -x "$venv/bin/python" ] && have_packages; then
  ensure_docs_packages
  install_optional
  echo "$venv/bin/python"
  exit 0
fi

if ! command -v "$python" >/dev/null; then
  echo "python-deps: no $python on PATH; the Python package is skipped" >&2
  exit 1
fi
# nanobind compiles against Python.h; Debian ships it in python3-dev.
if ! "$python" -c 'import sysconfig, os, sys; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")) else 1)'; then
  echo "python-deps: $python has no development headers (Python.h; Debian: python3-dev)" >&2
  exit 1
fi
mkdir -p "$build"
if [ ! -x "$venv/bin/python" ]; then
  # --system-site-packages lets a machine's own packages serve: the GPU
  # machine has torch, CuPy, Triton, nanobind, ... and no network. Without
  # ensurepip (Debian's python3-venv) the venv still works with the
  # system's pip, if any.
  if ! "$python" -m venv --system-site-packages "$venv" >/dev/null 2>&1 &&
     ! { rm -rf "$venv"; "$python" -m venv --system-site-packages --without-pip "$venv" >&2; }; then
    rm -rf "$venv"
    echo "python-deps: '$python -m venv' failed (Debian: python3-venv)" >&2
    exit 1
  fi
fi
if ! have_packages; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}" >&2 || {
    echo "python-deps: pip could not install ${packages[*]} into $venv" >&2
    exit 1
  }
fi
ensure_docs_packages
install_optional
echo "$venv/bin/python"
