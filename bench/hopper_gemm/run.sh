#!/usr/bin/env bash
# Builds and runs the prelude-only reference GEMM on a Hopper GPU machine:
#
#   bench/hopper_gemm/run.sh [variant ...]     (gemm_bench list: the variants)
#
# 1. writes croq::backend::cuda::hopper_prelude() to build-hopper-gemm/croq_hopper_prelude.cuh
#    (a tiny host program, so the kernel uses exactly the text the backend pastes);
# 2. nvcc -arch sm_90a gemm.cu (+ cuBLAS for the reference and the ratio);
# 3. runs each variant in its own process under a timeout (a hang in one
#    variant costs only that one), logging to $OUT (default build-hopper-gemm).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build-hopper-gemm
out=${OUT:-$build}
mkdir -p "$build" "$out"
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$cuda/bin/nvcc

# The prelude's text is src/backend/cuda/prelude/*.cuh, embedded as the library embeds it.
cmake -DDIR="$root/src/backend/cuda/prelude" -DOUT="$build/prelude_embedded.cpp" \
  -P "$root/cmake/CroqEmbedPrelude.cmake" || exit 1
g++ -std=c++20 -O1 -I "$root/src" "$here/dump_prelude.cpp" "$root/src/backend/cuda/hopper_prelude.cpp" \
  "$root/src/backend/cuda/prelude_files.cpp" "$build/prelude_embedded.cpp" -o "$build/dump_prelude" || exit 1
"$build/dump_prelude" > "$build/croq_hopper_prelude.cuh" || exit 1

if ! "$nvcc" -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -I "$build" -Xptxas -v \
    -o "$build/gemm_bench" "$here/gemm.cu" -lcublas -lcuda > "$out/gemm_build.log" 2>&1; then
  grep -E "error" -A3 "$out/gemm_build.log" | head -40
  exit 1
fi
grep -E "spill stores|registers" "$out/gemm_build.log" | sort | uniq -c | head -8
if command -v "$cuda/bin/cuobjdump" > /dev/null; then
  "$cuda/bin/cuobjdump" -sass "$build/gemm_bench" > "$build/gemm_bench.sass" 2>&1
  echo "HGMMA instructions in SASS: $(grep -c HGMMA "$build/gemm_bench.sass")" \
    "($(grep -o 'HGMMA\.64x[0-9]*x16\.F32\.[A-Z0-9]*' "$build/gemm_bench.sass" | sort -u | tr '\n' ' '))"
fi

variants=("$@")
[ ${#variants[@]} -eq 0 ] && mapfile -t variants < <("$build/gemm_bench" list)
status=0
for v in "${variants[@]}"; do
  timeout 60 "$build/gemm_bench" "$v" 2>&1 | tee -a "$out/gemm_bench.txt"
  rc=${PIPESTATUS[0]}
  [ "$rc" -ne 0 ] && { echo "variant $v: exit $rc"; status=1; }
done
exit $status
