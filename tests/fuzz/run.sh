#!/usr/bin/env bash
# Builds the libFuzzer harness of the probe's command line (clang, ASan,
# UBSan) and runs it from the corpus for a bounded time.
# Usage: tests/fuzz/run.sh [SECONDS]   (default 20)
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-20}
cc=$(command -v clang || command -v clang-14 || true)
[ -n "$cc" ] || { echo "fuzz: clang is not installed (make deps-fuzz)" >&2; exit 2; }
out=build-fuzz
# Built by CMake from the probe's own objects (RTG_FUZZ), so the harness
# always links what the port's port.cmake names.
CC="$cc" cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=Debug -DRTG_FUZZ=ON >/dev/null
cmake --build "$out" -j "$(nproc 2>/dev/null || echo 2)" --target fuzz_cli >/dev/null
work=$(mktemp -d)
cp tests/fuzz/corpus_cli/* "$work/"
"$out/fuzz_cli" -max_total_time="$secs" -max_len=512 -print_final_stats=1 \
  -artifact_prefix="$out/" "$work" \
  2>"$out/fuzz_cli.log" || { tail -40 "$out/fuzz_cli.log"; exit 1; }
grep -E "stat::number_of_executed_units|stat::new_units_added" "$out/fuzz_cli.log"
rm -rf "$work"
echo "fuzz: command line: no crash in ${secs} s"
