#!/usr/bin/env bash
# make bench: install the peers (Debian's rt-tests, stress-ng) and run every pair,
# then time the host tool's commands.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cyclictest >/dev/null || ! command -v stress-ng >/dev/null || [ ! -x /usr/bin/time ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rt-tests stress-ng time
fi
python3 bench/bench.py "$@"
# The probe's footprint beside cyclictest's: peak RSS of a default run and of
# each test, the static probes' sizes, before and after (bench/probe_footprint.py).
python3 bench/probe_footprint.py
# How soon the host tool answers: a default run, then its commands timed
# against the baseline commit (bench/host_speed.py).
exec python3 bench/host_speed.py
