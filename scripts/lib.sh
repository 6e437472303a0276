# shellcheck shell=bash disable=SC2034  # its variables are for the scripts that source it
# Shared by scripts/sample.sh and scripts/test.sh (sourced, not run):
# find the CUDA toolkit, install what is missing, configure and build.
# Each step does nothing when its work is already done.
set -euo pipefail

croq_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
croq_build=${CROQ_BUILD_DIR:-$croq_root/build}
croq_jobs=${CROQ_JOBS:-$(nproc 2>/dev/null || echo 2)}

# Debian packages: what the library, samples and tests build with (hiredis
# and OpenSSL's libcrypto for the remote kernel cache), and
# clang with libFuzzer for the fuzz smoke test (ctest skips it without them).
croq_build_packages=(cmake ninja-build g++ libspdlog-dev nlohmann-json3-dev libxxhash-dev libutfcpp-dev libhiredis-dev
  libssl-dev libgtest-dev)
croq_fuzz_packages=(clang libclang-rt-14-dev)
# The remote kernel cache tests start private redis-server instances on
# loopback ports of their own (they skip, saying why, without it).
croq_test_packages=(redis-server)
# The croqjit Python package's build and tests (its own packages come from
# PyPI into a venv: scripts/python-deps.sh).
croq_python_packages=(python3-dev python3-venv)

croq_die() {
  printf '\n' >&2
  printf '%s\n' "$@" >&2
  exit 1
}

# ensure_debian_packages PKG...: installs the missing ones with apt-get when
# running as root; otherwise prints the apt-get line to run and stops.
ensure_debian_packages() {
  command -v dpkg-query > /dev/null || {
    echo "Not a Debian system: install the equivalents of $* yourself (CMake names what it cannot find)."
    return 0
  }
  local missing=() p
  for p in "$@"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    croq_die "Missing Debian packages: ${missing[*]}" \
      "Install them, then run this command again:" "" \
      "  sudo apt-get install ${missing[*]}" ""
  fi
  echo "Installing Debian packages: ${missing[*]}"
  local log
  log=$(mktemp)
  if ! { apt-get update && DEBIAN_FRONTEND=noninteractive \
           apt-get install -y --no-install-recommends "${missing[@]}"; } > "$log" 2>&1; then
    tail -n 20 "$log" >&2
    croq_die "apt-get failed (full output: $log)."
  fi
  rm -f "$log"
}

# find_cuda_toolkit: sets croq_cuda to the toolkit's root, from CUDA_HOME or
# CUDA_PATH if set, else nvcc on PATH, else /usr/local/cuda.
find_cuda_toolkit() {
  local candidates=() var nvcc dir
  for var in CUDA_HOME CUDA_PATH; do
    if [ -n "${!var:-}" ]; then
      [ -f "${!var}/include/nvrtc.h" ] || croq_die \
        "$var=${!var} does not hold a CUDA toolkit: ${!var}/include/nvrtc.h is missing." \
        "Point $var at the toolkit's root (the folder with bin/nvcc and include/nvrtc.h), or unset it."
      candidates+=("${!var}")
    fi
  done
  if nvcc=$(command -v nvcc); then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$nvcc")")")")
  fi
  candidates+=(/usr/local/cuda)
  for dir in "${candidates[@]}"; do
    if [ -f "$dir/include/nvrtc.h" ] && [ -f "$dir/include/cuda.h" ]; then
      croq_cuda=$dir
      return 0
    fi
  done
  croq_die "No CUDA toolkit found: libcroqjit needs NVRTC and the CUDA headers (nvrtc.h, cuda.h)." \
    "Looked at: \$CUDA_HOME, \$CUDA_PATH, nvcc on PATH, /usr/local/cuda." \
    "Install NVIDIA's CUDA toolkit (https://developer.nvidia.com/cuda-downloads;" \
    "no GPU or driver is needed to build), then run this command again. If it is" \
    "not in /usr/local/cuda, set CUDA_HOME to its root (the folder with bin/nvcc)," \
    "e.g. CUDA_HOME=/opt/cuda-13.0 $0"
}

# NVRTC dlopens libnvrtc-builtins, which only the loader's path finds: when
# the toolkit's library folder is not on it (a runfile install without an
# ld.so.conf entry, say), this run adds it to LD_LIBRARY_PATH and says so.
put_cuda_libraries_on_loader_path() {
  local dir="" candidate known ldconfig
  for candidate in "$croq_cuda/lib64" "$croq_cuda/lib" "$croq_cuda"/targets/*/lib; do
    if [ -e "$candidate/libnvrtc.so" ]; then dir=$candidate; break; fi
  done
  [ -n "$dir" ] || return 0  # a distribution layout: the system's path has it
  ldconfig=$(PATH=$PATH:/sbin:/usr/sbin command -v ldconfig || true)
  if [ -n "$ldconfig" ]; then
    while read -r known; do
      [ "$(readlink -f "$(dirname "$known")")" = "$(readlink -f "$dir")" ] && return 0
    done < <("$ldconfig" -p | sed -n 's/^\s*libnvrtc-builtins\.so\..* => //p')
  fi
  case ":${LD_LIBRARY_PATH:-}:" in *":$dir:"*) return 0 ;; esac
  echo "note: $dir is not on the dynamic loader's path, so NVRTC would not find"
  echo "libnvrtc-builtins; this run puts it on LD_LIBRARY_PATH. For your own programs:"
  echo "  echo $dir | sudo tee /etc/ld.so.conf.d/cuda.conf && sudo ldconfig"
  export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

# Cache settings the build folder must have (-DNAME=VALUE); configure_and_build
# configures again when one is missing (e.g. a folder first configured by
# sample.sh, before the Python venv existed).
croq_cmake_args=()

# ensure_python_venv: the venv the Python package builds and tests with
# (BUILD/python-venv). Without it, or without PyPI, the C++ suite still
# runs and the Python tests are left out, said loudly.
ensure_python_venv() {
  local python
  if python=$("$croq_root/scripts/python-deps.sh" "$croq_build"); then
    croq_cmake_args+=("-DPython_EXECUTABLE=$python")
  else
    echo "warning: the croqjit Python package and its tests are left out of this run (see above)." >&2
  fi
}

# configure_and_build TARGET...: configures the build folder once with the
# toolkit find_cuda_toolkit found (later builds re-run CMake themselves when
# needed), then builds incrementally (TARGET `all` for everything).
configure_and_build() {
  put_cuda_libraries_on_loader_path
  local configure=0 arg name
  [ -f "$croq_build/build.ninja" ] || [ -f "$croq_build/Makefile" ] || configure=1
  for arg in "${croq_cmake_args[@]}"; do
    name=${arg#-D}
    name=${name%%=*}
    grep -qxF -- "$name:FILEPATH=${arg#*=}" "$croq_build/CMakeCache.txt" 2> /dev/null ||
      grep -qxF -- "$name:UNINITIALIZED=${arg#*=}" "$croq_build/CMakeCache.txt" 2> /dev/null || configure=1
  done
  if [ $configure = 1 ]; then
    local generator=()
    [ -f "$croq_build/CMakeCache.txt" ] || generator=(-G Ninja)
    cmake -S "$croq_root" -B "$croq_build" "${generator[@]}" -DCUDAToolkit_ROOT="$croq_cuda" "${croq_cmake_args[@]}"
  fi
  cmake --build "$croq_build" -j "$croq_jobs" --target "$@"
}
