#!/usr/bin/env bash
# Installs what is missing (redis-server too: the remote cache tests start
# private instances on loopback ports), builds, and runs the whole test
# suite (C++ and the Python package's). GPU tests
# (ctest label `gpu`) skip themselves without a device. Extra arguments go
# to ctest (e.g. -R frontend, -L gpu).
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

find_cuda_toolkit  # first: no point installing anything without it
ensure_debian_packages "${croq_build_packages[@]}" "${croq_fuzz_packages[@]}" "${croq_python_packages[@]}" \
  "${croq_test_packages[@]}"
ensure_python_venv
configure_and_build all
ctest --test-dir "$croq_build" --output-on-failure -j "$croq_jobs" "$@"
