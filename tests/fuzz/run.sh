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
mkdir -p "$out"
# The POSIX port on Linux as core/osal/posix/port.cmake names it.
srcs="core/src/cli.c core/src/registry.c core/src/test_context.c core/src/test_options.c
      core/src/test_record.c core/src/msg_calls.c core/src/stats.c core/src/hist.c
      core/src/json.c core/src/metric.c core/src/blocks.c core/src/stop.c core/src/sys_facts.c
      core/osal/*.c core/osal/posix/*.c core/osal/linux/*.c core/osal/cpu_counter/*.c
      $(find core/catalogue -name '*.c' -not -path '*/dbg/*' | sort)"
# shellcheck disable=SC2086
"$cc" -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -DRTG_TEST_HOOKS=0 -DRTG_VERSION="\"$(cat VERSION)\"" -Icore/include -Icore/src/include \
  -Icore/osal/posix/include -Icore/catalogue \
  tests/fuzz/fuzz_cli.c $srcs -o "$out/fuzz_cli" -lpthread -lrt -lm
work=$(mktemp -d)
cp tests/fuzz/corpus_cli/* "$work/"
"$out/fuzz_cli" -max_total_time="$secs" -max_len=512 -print_final_stats=1 \
  -artifact_prefix="$out/" "$work" \
  2>"$out/fuzz_cli.log" || { tail -40 "$out/fuzz_cli.log"; exit 1; }
grep -E "stat::number_of_executed_units|stat::new_units_added" "$out/fuzz_cli.log"
rm -rf "$work"
echo "fuzz: command line: no crash in ${secs} s"
