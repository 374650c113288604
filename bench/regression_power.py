"""How often `rtgauge history --check` cries wolf, and how often it catches a
real worsening.

False alarms: N quick runs of TMR-P-LAT on an unchanged system, one label,
each newer run checked against the one before it (N - 1 checks).
Detection: then K times a run with a periodic SCHED_FIFO hog on the measured
CPU (spinning HOG_MS every HOG_PERIOD_MS at a priority above the probe's),
checked against the clean run before it, followed by a clean run checked
against that hog run (a falling tail: must never be flagged).

Writes its section of bench/RESULTS.md (one for quick runs, one for
default-length runs). Usage (root, for SCHED_FIFO):
    .venv/bin/python bench/regression_power.py [N] [K] [quick|default] [HOG_MS/PERIOD_MS]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from results_file import write_section

ROOT = Path(__file__).resolve().parents[1]
RTGAUGE = str(ROOT / ".venv" / "bin" / "rtgauge")
PROBE = os.environ.get("RTGAUGE_PROBE", str(ROOT / "build" / "rtgauge-probe"))
CPU = 1
PROBE_PRIO = 95
HOG_PRIO = 98  # above the probe's tests
# the hog: 2 ms every 100 ms by default; "1/1000" (argv[4]) spins 1 ms a
# second: some ten more samples above a default run's p99.9 (ten), twice
# the rate, the weakest disturbance the check is asked to catch
HOG = sys.argv[4] if len(sys.argv) > 4 else "2/100"
HOG_MS, HOG_PERIOD_MS = (float(x) for x in HOG.split("/"))
LABEL = "regression-power"
MODE = sys.argv[3] if len(sys.argv) > 3 else "quick"
SUFFIX = ("" if MODE == "quick" else f" {MODE}") + ("" if HOG == "2/100" else f" hog {HOG}")
BEGIN = f"<!-- regression_power{SUFFIX} begin -->"
END = f"<!-- regression_power{SUFFIX} end -->"
# quick, default, or a length for --duration (e.g. 2m): how long a run must
# be to catch the weakest disturbance is measured at that length
LENGTH = {"quick": ["--quick"], "default": []}.get(MODE, ["--duration", MODE])


def run_once(store: Path) -> None:
    cmd = [RTGAUGE, "run", *LENGTH, "--tests", "TMR-P-LAT", "--cpus", str(CPU)]
    cmd += ["--prio", str(PROBE_PRIO), "--label", LABEL, "--store", str(store)]
    cmd += ["--probe", PROBE, "--no-report", "--no-explain"]
    subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=600)


def check(store: Path) -> tuple[bool, str]:
    """(flagged, the regression lines) for the newest run against the one before."""
    cmd = [RTGAUGE, "history", "--label", LABEL, "--store", str(store), "--check"]
    cmd += ["--test", "TMR-P-LAT"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode not in (0, 1):
        raise RuntimeError(done.stderr.strip())
    lines = [x.strip() for x in done.stdout.splitlines() if "REGRESSION " in x]
    newest = lines[-1] if lines and done.returncode == 1 else ""
    return done.returncode == 1, newest


HOG_CODE = f"""
import ctypes, os, signal, time
ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: never outlives the bench
os.sched_setaffinity(0, {{{CPU}}})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param({HOG_PRIO}))
spin, period = {HOG_MS / 1e3}, {HOG_PERIOD_MS / 1e3}
nxt = time.monotonic()
while True:
    end = time.monotonic() + spin
    while time.monotonic() < end:
        pass
    nxt += period
    time.sleep(max(0.0, nxt - time.monotonic()))
"""


def with_hog(store: Path) -> None:
    hog = subprocess.Popen([sys.executable, "-c", HOG_CODE])
    try:
        time.sleep(0.3)  # it has set its policy and spins before the probe starts
        if hog.poll() is not None:
            raise RuntimeError("the hog did not start (SCHED_FIFO needs root)")
        run_once(store)
    finally:
        hog.kill()
        hog.wait()


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    false_alarms: list[str] = []
    detected, after_hog_flags = 0, []
    kept = os.environ.get("RTGAUGE_BENCH_STORE")
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(kept or tmp)
        store.mkdir(parents=True, exist_ok=True)
        for i in range(n):
            run_once(store)
            if i:
                flagged, line = check(store)
                print(f"clean {i + 1}/{n}: {'FLAGGED ' + line if flagged else 'ok'}", flush=True)
                if flagged:
                    false_alarms.append(line)
        for i in range(k):
            with_hog(store)
            flagged, line = check(store)
            detected += flagged
            print(f"hog {i + 1}/{k}: {'flagged' if flagged else 'MISSED'} {line}", flush=True)
            run_once(store)
            flagged, line = check(store)
            print(f"after hog {i + 1}/{k}: {'FLAGGED ' + line if flagged else 'ok'}", flush=True)
            if flagged:
                after_hog_flags.append(line)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = [
        BEGIN,
        f"## Regression check, {MODE} runs, hog {HOG} ms: false alarms and detection "
        "(bench/regression_power.py)",
        "",
        f"{when}, `{os.uname().release}`, {os.cpu_count()} CPUs: "
        f"`.venv/bin/python bench/regression_power.py {n} {k} {MODE} {HOG}` (as root). Each run: "
        f"`rtgauge run {''.join(x + ' ' for x in LENGTH)}--tests TMR-P-LAT --cpus {CPU} --prio {PROBE_PRIO} "
        f"--label {LABEL} --no-report --no-explain` "
        + (
            "(1000 wake-ups, 1 ms period, about ten 100 ms blocks); each check: "
            if MODE == "quick"
            else "(the default length: 10 s of 1 ms wake-ups, about a hundred 100 ms blocks); "
            "each check: "
            if MODE == "default"
            else f"({MODE} of 1 ms wake-ups in blocks of 100 ms, doubled whenever 1,024 are full); "
            "each check: "
        )
        + f"`rtgauge history --label {LABEL} --test TMR-P-LAT --check` (the newest run "
        "against the one before it).",
        "",
        "| what | checks | flagged |",
        "|---|---|---|",
        f"| unchanged system, consecutive runs (false alarms) | {n - 1} | {len(false_alarms)} |",
        f"| hog on CPU {CPU}: SCHED_FIFO {HOG_PRIO}, {HOG_MS:g} ms every "
        f"{HOG_PERIOD_MS:g} ms, against the clean run before (detection) | {k} | {detected} |",
        f"| clean run after a hog run (a falling tail) | {k} | {len(after_hog_flags)} |",
        "",
    ]
    body += [f"- false alarm: {x}" for x in false_alarms]
    body += [f"- falling tail flagged: {x}" for x in after_hog_flags]
    body.append(END)
    write_section(ROOT / "bench" / "RESULTS.md", BEGIN, END, "\n".join(body) + "\n")
    print(
        f"false alarms {len(false_alarms)}/{n - 1}, detected {detected}/{k}, "
        f"falling tails flagged {len(after_hog_flags)}/{k}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
