#!/usr/bin/env bash
# Fuzz smoke test (ctest label `fuzz`): builds a fuzzer with clang in its own
# build folder and runs it for a while on a fresh copy of its seed corpus.
#   run_smoke.sh REPO_DIR WORK_DIR [SECONDS] [FUZZER]
# FUZZER is croq_frontend_fuzzer (default) or croq_compiler_fuzzer.
# Exits 77 (ctest SKIP_RETURN_CODE) when clang++ with libFuzzer, or what the
# fuzzer needs to build, is missing.
set -euo pipefail
repo=$1
work=$2
seconds=${3:-60}
fuzzer=${4:-croq_frontend_fuzzer}
clang=${CROQ_FUZZ_CXX:-$(command -v clang++ || true)}

if [[ -z "$clang" ]]; then
  echo "fuzz smoke: no clang++ found; skipping"
  exit 77
fi
mkdir -p "$work"
# libFuzzer ships with clang's compiler-rt; a tiny program tells whether it is installed.
probe="$work/probe.cpp"
printf '#include <cstdint>\n#include <cstddef>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n' > "$probe"
if ! "$clang" -fsanitize=fuzzer "$probe" -o "$work/probe" > "$work/probe.log" 2>&1; then
  echo "fuzz smoke: $clang cannot link -fsanitize=fuzzer (libclang_rt.fuzzer missing); skipping"
  exit 77
fi

cmake -S "$repo/tests/fuzz" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER="$clang" -DCMAKE_BUILD_TYPE= > "$work/configure.log" 2>&1
if ! grep -q "^build $fuzzer:" "$work/build/build.ninja"; then
  echo "fuzz smoke: $fuzzer is not configured here (see $work/configure.log); skipping"
  exit 77
fi
cmake --build "$work/build" -j 2 --target "$fuzzer" > "$work/build-$fuzzer.log"

corpus="$work/corpus-$fuzzer"
artifacts="$work/artifacts-$fuzzer"
rm -rf "$corpus" "$artifacts"
mkdir -p "$corpus" "$artifacts"
cp "$repo"/tests/data/frontend/corpus/*.co "$repo"/tests/data/frontend/golden/*.co "$corpus/"
if [[ "$fuzzer" == croq_compiler_fuzzer ]]; then
  # The samples' kernels and the CLI's too; every seed ends in the 8
  # configuration bytes (zeros: sm_90a, every symbolic dim 256).
  for sample in "$repo"/samples/*.cpp; do
    sed -n '/R"croq(/,/)croq"/p' "$sample" | sed -e '1s/.*R"croq(//' -e '$s/)croq".*//' > "$corpus/sample_$(basename "$sample" .cpp).co"
  done
  cp "$repo"/tests/data/cli/*.co "$corpus/"
  for seed in "$corpus"/*; do
    [[ -s "$seed" ]] || { rm -f "$seed"; continue; }
    head -c 8 /dev/zero >> "$seed"
  done
fi
"$work/build/$fuzzer" "$corpus" -dict="$repo/tests/fuzz/croq.dict" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 2>&1 | tail -n 8
