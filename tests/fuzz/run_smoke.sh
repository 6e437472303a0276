#!/usr/bin/env bash
# Fuzz smoke test (ctest label `fuzz`): builds the frontend fuzzer with clang
# in its own build folder and runs it for a while on a copy of the corpus.
#   run_smoke.sh REPO_DIR WORK_DIR [SECONDS]
# Exits 77 (ctest SKIP_RETURN_CODE) when clang++ with libFuzzer is missing.
set -euo pipefail
repo=$1
work=$2
seconds=${3:-60}
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

cmake -S "$repo/tests/fuzz" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER="$clang" -DCMAKE_BUILD_TYPE= > "$work/configure.log"
cmake --build "$work/build" -j 2 > "$work/build.log"

rm -rf "$work/corpus" "$work/artifacts"
mkdir -p "$work/corpus" "$work/artifacts"
cp "$repo"/tests/data/frontend/corpus/*.co "$repo"/tests/data/frontend/golden/*.co "$work/corpus/"
"$work/build/croq_frontend_fuzzer" "$work/corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 2>&1 | tail -n 8
