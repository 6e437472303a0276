#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main sample (the tutorial's
# DMA matmul). Without a GPU it still builds, compiles the kernel and says
# why it cannot run.
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

find_cuda_toolkit  # first: no point installing anything without it
ensure_debian_packages "${croq_build_packages[@]}"
configure_and_build matmul_dma
"$croq_build/samples/matmul_dma"
