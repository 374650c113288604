#!/usr/bin/env bash
# TMR-P-LAT next to cyclictest (Debian's rt-tests): same period, priority,
# duration and CPUs, run back to back as cyclictest, rtgauge, cyclictest so
# the spread between the two cyclictest runs shows the noise of this machine.
# Usage: bench/timer_vs_cyclictest.sh [SECONDS]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
probe=${RTGAUGE_PROBE:-build/rtgauge-probe}
out=${BENCH_OUT:-bench/out}
mkdir -p "$out"

if ! command -v cyclictest >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rt-tests >/dev/null
  else
    echo "timer_vs_cyclictest: cyclictest is missing (apt-get install rt-tests)" >&2; exit 2
  fi
fi
[ -x "$probe" ] || { echo "timer_vs_cyclictest: $probe not built (make probe)" >&2; exit 2; }

cyclic() { # $1: output file; one thread per CPU, pinned, like TMR-P-LAT
  cyclictest -m -p95 -i1000 -d0 -D"${secs}" -q -S >"$1"
}
ours() {
  "$probe" --tests TMR-P-LAT --prio 95 --opt TMR-P-LAT.period_us=1000 \
    --opt "TMR-P-LAT.duration_ms=$((secs * 1000))" >"$1"
}

cyclic "$out/cyclictest-1.txt"
ours "$out/rtgauge.jsonl"
cyclic "$out/cyclictest-2.txt"

python3 - "$out" <<'PY'
import json, re, sys, pathlib
out = pathlib.Path(sys.argv[1])

def cyclic(path):
    rows = [tuple(int(x) for x in m.groups())
            for m in re.finditer(r"C:\s*(\d+).*?Min:\s*(\d+).*?Avg:\s*(\d+).*?Max:\s*(\d+)",
                                 path.read_text())]
    n = sum(r[0] for r in rows)
    return {"min": min(r[1] for r in rows), "avg": sum(r[0] * r[2] for r in rows) / n,
            "max": max(r[3] for r in rows), "count": n}

def ours(path):
    for line in path.read_text().splitlines():
        r = json.loads(line)
        if r.get("id") == "TMR-P-LAT":
            m = next(m for m in r["metrics"] if m["name"].endswith(".all"))
            return {"min": m["min"] / 1e3, "avg": m["mean"] / 1e3, "max": m["max"] / 1e3,
                    "count": m["count"]}
    raise SystemExit("no TMR-P-LAT record")

c1, c2, us = cyclic(out / "cyclictest-1.txt"), cyclic(out / "cyclictest-2.txt"), ours(out / "rtgauge.jsonl")
print(f"{'':14}{'min us':>10}{'avg us':>10}{'max us':>10}{'samples':>10}")
for name, r in (("cyclictest #1", c1), ("rtgauge", us), ("cyclictest #2", c2)):
    print(f"{name:14}{r['min']:10.1f}{r['avg']:10.1f}{r['max']:10.1f}{r['count']:10d}")
cavg = (c1["avg"] + c2["avg"]) / 2
noise = abs(c1["avg"] - c2["avg"])
print(f"ratio rtgauge/cyclictest: min {us['min'] / max((c1['min'] + c2['min']) / 2, 1e-9):.2f}"
      f"  avg {us['avg'] / cavg:.2f}  max {us['max'] / ((c1['max'] + c2['max']) / 2):.2f}")
diff = abs(us["avg"] - cavg)
print(f"avg difference {diff:.1f} us; spread between the cyclictest runs {noise:.1f} us: "
      + ("within the noise" if diff <= max(noise, 1.0) else "BEYOND the noise"))
PY
