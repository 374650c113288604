"""The probe's foundation, end to end: contract, system record, bad input,
watchdog, crash isolation, interruption, unprivileged runs."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema
import pytest
from live_probe import LiveProbe, wait_for_wakeups
from probe_run import ROOT, SCHEMA, metric, probe_path, run_probe, validate

QUICK_LAT = ("--opt", "TMR-P-LAT.duration_ms=300")


def test_list_json_describes_every_test() -> None:
    out = subprocess.run(
        [str(probe_path()), "--list-json"], capture_output=True, text=True, check=True
    ).stdout
    entries = [json.loads(line) for line in out.splitlines()]
    ids = [e["id"] for e in entries]
    assert "CLK-P-RES" in ids and "TMR-P-LAT" in ids
    assert len(ids) == len(set(ids))
    for e in entries:
        assert e["kind"] in "BPS"
        for o in e["options"]:
            if o["type"] != "enum":
                assert o["min"] <= o["default"] <= o["max"], (e["id"], o)
        jsonschema.validate(e, {"$ref": "#/$defs/catalogue", "$defs": SCHEMA["$defs"]})


def test_the_probe_says_what_the_host_needs_to_know_of_a_test() -> None:
    """Each test's family title and which of its figures are latencies from a
    release instant, in --list-json and in the test's own record alike: the
    host keeps no list of tests."""
    out = subprocess.run(
        [str(probe_path()), "--list-json"], capture_output=True, text=True, check=True
    ).stdout
    listed = {e["id"]: e for e in map(json.loads, out.splitlines())}
    assert all(e["family_title"] for e in listed.values())
    assert listed["TMR-P-LAT"]["family_title"] == "Timers and wake-up latency"
    latency = {i: e["release_latency"] for i, e in listed.items() if e["release_latency"]}
    assert {
        "TMR-P-LAT": "timer.wakeup.",
        "TMR-P-LOAD": "timer.wakeup.",
        "IRQ-P-LAT": "irq.",
        "THR-P-PRE": "thread.preempt.",
        "THR-P-WKL": "thread.preempt.",
    }.items() <= latency.items()
    assert "SEM-B-LCK" not in latency and "CLK-P-RES" not in latency
    run = run_probe("--quick", "--tests", "CLK-P-RES,TMR-P-LAT", *QUICK_LAT)
    for tid, rec in run.tests.items():
        said = (rec["family_title"], rec["release_latency"])
        assert said == (listed[tid]["family_title"], listed[tid]["release_latency"]), tid
    lat = run.tests["TMR-P-LAT"]
    assert lat["metrics"] and all(m["name"].startswith("timer.wakeup.") for m in lat["metrics"])


def test_quick_run_is_valid_and_complete() -> None:
    run = run_probe("--quick", "--tests", "CLK-P-RES,TMR-P-LAT", *QUICK_LAT)
    assert run.code == 0, run.stderr
    kinds = [r["record"] for r in run.records]
    assert kinds == ["system", "test", "test", "end"]
    sysrec = run.system
    assert sysrec["run"]["tests"] == ["CLK-P-RES", "TMR-P-LAT"]
    assert sysrec["clock"]["floor_ns"]["count"] > 0
    assert sysrec["kernel"]["preempt_model"] in ("rt", "full", "lazy", "voluntary", "none", None)
    assert sysrec["probe"]["build"]["test_hooks"] is False
    lat = run.tests["TMR-P-LAT"]
    assert lat["status"] == "ok"
    cpus = sysrec["cpu"]["selected"]
    total = 0
    for cpu in cpus:
        m = metric(lat, f"timer.wakeup.clock_nanosleep.cpu{cpu}")
        assert m["count"] > 0 and m["min"] <= m["mean"] <= m["max"]
        assert sum(b[2] for b in m["hist"]["buckets"]) + m["hist"]["overflow"] == m["count"]
        total += m["count"]
    assert metric(lat, "timer.wakeup.clock_nanosleep.all")["count"] == total
    res = run.tests["CLK-P-RES"]
    assert metric(res, "clock.read_pair.monotonic")["count"] == 20000
    assert set(res["info"]) >= {"probe_clock", "monotonic", "realtime"}
    assert run.end == {**run.end, "status": "complete", "tests": 2, "exit_code": 0}


def test_same_arguments_give_the_same_set_of_records() -> None:
    def shape(run):  # type: ignore[no-untyped-def]
        return [
            (r["record"], r.get("id"), tuple(m["name"] for m in r.get("metrics", [])))
            for r in run.records
        ]

    args = ("--quick", "--tests", "CLK-P-RES,TMR-P-LAT", *QUICK_LAT)
    assert shape(run_probe(*args)) == shape(run_probe(*args))


@pytest.mark.parametrize(
    "args, message",
    [
        (["--tests", "NOPE"], "no test matches 'NOPE'"),
        (["--opt", "TMR-P-LAT.period_us=1"], "outside 50.."),
        (["--opt", "TMR-P-LAT.nope=1"], "has no option 'nope'"),
        (["--opt", "TMR-P-LAT.variant=<script>"], "is not one of"),
        (["--cpus", "4096"], "does not exist"),
        (["--cpus", "0-"], "not a CPU list"),
        (["--prio", "99"], "outside 1..98"),
        (["--prio", "-5"], "outside"),
        (["--duration-scale", "abc"], "not a number"),
        (["--out", ""], "empty file name"),
        (["--out", "/nonexistent/dir/x.jsonl"], "cannot write"),
        (["--frobnicate"], "unknown argument"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    proc = subprocess.run([str(probe_path()), *args], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rtgauge-probe: error: ")
    assert message in lines[0]


@pytest.mark.parametrize("mode", ["block", "spin", "deaf"])
def test_watchdog_ends_a_hung_test_and_the_run_goes_on(mode: str) -> None:
    run = run_probe(
        "--tests",
        "DBG-P-HANG,CLK-P-RES",
        "--quick",
        "--opt",
        f"DBG-P-HANG.mode={mode}",
        "--opt",
        "DBG-P-HANG.bound_s=0.5",
        hooks=True,
        timeout=300,
    )
    assert run.code == 3
    hang = run.tests["DBG-P-HANG"]
    assert hang["status"] == "error"
    assert hang["reason"].startswith("watchdog: overran its bound of 0.5 s")
    if mode == "deaf":  # ignores the stop request: killed, nothing to keep
        assert "killed" in hang["reason"]
    else:  # stopped: what it had measured is kept
        assert "partial results kept" in hang["reason"]
        assert metric(hang, "debug.hang.partial")["count"] == 1
    assert run.tests["CLK-P-RES"]["status"] == "ok"
    assert run.end and run.end["errors"] == 1


def test_crash_is_recorded_and_the_run_goes_on() -> None:
    run = run_probe("--tests", "DBG-P-CRASH,CLK-P-RES", "--quick", hooks=True)
    assert run.code == 3
    assert run.tests["DBG-P-CRASH"]["status"] == "error"
    assert run.tests["DBG-P-CRASH"]["reason"] == "crashed (SIGSEGV)"
    assert run.tests["CLK-P-RES"]["status"] == "ok"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_keeps_partial_samples_and_marks_the_run(sig: signal.Signals) -> None:
    """The signal comes once TMR-P-LAT has samples: after CLK-P-RES's record,
    when a measuring thread of TMR-P-LAT has woken 20 times (a busy machine
    may take long to set the test up; nothing is timed)."""
    probe = LiveProbe(
        "--tests", "CLK-P-RES,TMR-P-LAT", "--quick", "--opt", "TMR-P-LAT.duration_ms=600000",
    )  # fmt: skip
    try:
        system = probe.next_record()
        probe.wait_for_test("CLK-P-RES")
        wait_for_wakeups(
            probe.proc.pid, system["cpu"]["selected"], system["privileges"]["sched_fifo"]
        )
        probe.proc.send_signal(sig)
        code = probe.finish()
    finally:
        probe.kill()
    records = probe.records
    assert code == 3
    lat = next(r for r in records if r.get("id") == "TMR-P-LAT")
    assert lat["status"] == "interrupted"
    assert metric(lat, "timer.wakeup.clock_nanosleep.all")["count"] > 0
    assert records[-1]["record"] == "end" and records[-1]["status"] == "interrupted"
    assert records[1]["status"] == "ok"  # the finished test is kept as it was


def test_output_file_option_writes_the_same_records(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "run.jsonl"
    run = run_probe("--quick", "--tests", "CLK-P-RES", "--out", str(out))
    assert run.code == 0 and run.records == []
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    for r in lines:
        validate(r)
    assert [r["record"] for r in lines] == ["system", "test", "end"]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to switch to nobody")
def test_unprivileged_run_says_what_it_lacked() -> None:
    """As nobody: no SCHED_FIFO, no mlockall; every test still ends cleanly."""
    setpriv = shutil.which("setpriv")
    if not setpriv:
        pytest.skip("setpriv (util-linux) is not installed")
    tmp_path = Path(tempfile.mkdtemp(prefix="rtgauge-nobody-"))  # pytest's are 0700
    os.chmod(tmp_path, 0o755)
    probe = tmp_path / "rtgauge-probe"
    shutil.copy(probe_path(), probe)
    proc = subprocess.run(
        [
            setpriv,
            "--reuid=nobody",
            "--regid=nogroup",
            "--clear-groups",
            "--inh-caps=-all",
            str(probe),
            "--quick",
            *QUICK_LAT,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    records = [json.loads(x) for x in proc.stdout.splitlines()]
    for r in records:
        validate(r)
    shutil.rmtree(tmp_path, ignore_errors=True)
    unfinished = [
        (r["id"], r["status"], r["reason"], [v for v in r["verdicts"] if not v["pass"]][:2])
        for r in records[1:-1]
        if r["status"] not in ("ok", "pass", "skipped")
    ]
    assert proc.returncode == 0, (proc.stderr, unfinished)
    sysrec = records[0]
    assert sysrec["privileges"]["sched_fifo"] is False
    assert sysrec["privileges"]["euid"] != 0
    assert any("SCHED_FIFO" in w for w in sysrec["warnings"])
    # The whole catalogue: what needs privileges is skipped with the reason,
    # the rest runs at SCHED_OTHER and says so; nothing ends in error.
    for r in records[1:-1]:
        assert r["status"] in ("ok", "pass", "skipped"), (r["id"], r["status"], r.get("reason"))
        if r["status"] == "skipped":
            assert r["reason"], r["id"]
        else:
            assert r["conditions"]["policy"] == "SCHED_OTHER", r["id"]
            assert any("without SCHED_FIFO" in n for n in r["notes"]), r["id"]


def test_asan_build_runs_clean() -> None:
    asan = os.environ.get("RTGAUGE_PROBE_ASAN") or str(ROOT / "build-asan" / "rtgauge-probe")
    if not os.path.exists(asan):
        pytest.skip("no ASan build (make probe-asan)")
    proc = subprocess.run(
        [asan, "--quick", "--tests", "CLK-P-RES,TMR-P-LAT", *QUICK_LAT],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "runtime error" not in proc.stderr and "AddressSanitizer" not in proc.stderr


# Counts on CPU 0 from "counting" until its stdin closes (a thread watches
# it, so the count never blocks), then prints its longest stall in seconds.
COUNTER = """import os,sys,threading,time
os.sched_setaffinity(0,{0})
done=threading.Event()
threading.Thread(target=lambda:(sys.stdin.read(),done.set()),daemon=True).start()
print("counting",flush=True)
last=time.monotonic();gap=0.0;end=last+600
while not done.is_set() and last<end:
  now=time.monotonic();gap=max(gap,now-last);last=now
print(gap)
"""


def test_machine_stays_responsive_while_a_test_spins_at_sched_fifo() -> None:
    """A SCHED_OTHER process on the spinning CPU keeps getting CPU time (RT
    throttling, never changed by rtgauge), and the watchdog ends the spin.
    The longest stall of that process must be shorter than the spin itself:
    it was not starved for the whole of it."""
    counter = subprocess.Popen(
        [sys.executable, "-c", COUNTER], stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True
    )
    assert counter.stdout is not None and counter.stdin is not None
    try:
        assert counter.stdout.readline().strip() == "counting"  # on CPU 0 from here on
        run = run_probe(
            "--tests", "DBG-P-HANG", "--cpus", "0", "--opt", "DBG-P-HANG.mode=spin",
            "--opt", "DBG-P-HANG.bound_s=2.5", hooks=True, timeout=300,
        )  # fmt: skip
        counter.stdin.close()  # the spin is over: it says its longest stall
        out = counter.stdout.read()
        counter.wait(timeout=60)
    finally:
        counter.kill()
        counter.wait()
    hang = run.tests["DBG-P-HANG"]
    assert hang["reason"].startswith("watchdog: overran")
    assert hang["conditions"]["policy"] == "SCHED_FIFO"
    assert float(out) < 2.5  # never starved for the whole 2.5 s spin
