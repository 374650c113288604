"""MSG family end to end: every figure set for every mechanism and size (or
the recorded limit that prevented it), the urgent-first verdict and its
negative control, peers as processes, and no message queue left behind by a
normal run or a killed one. No timing thresholds: counts, presence,
statuses and evidence only."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from probe_run import ProbeRun, metric, probe_path, run_probe, verdict

MECHS = ["mq", "pipe", "sysv", "unix"]
SIZES = [16, 1024, 5120, 16384]
QUICK_COUNT = 200  # count under --quick for SND, LAT, RTT, ALT
QUICK_ROUNDS = 5  # MSG-P-FIL rounds under --quick

FAMILY = "MSG-*"


def test_the_family_run_succeeds(quick: ProbeRun) -> None:
    assert quick.code == 0, quick.stderr


def figure_or_limit(test: dict[str, Any], what: str, mech: str, size: int, count: int) -> bool:
    """The figure set is there with its params, or the channel records why not."""
    chan = test["info"][f"channel.{mech}.s{size}"]
    if not chan["opened"]:
        # only a system limit below the size may prevent a figure, and it is said
        assert 0 < chan["size_limit"] < size, chan
        assert chan["limit"], chan
        assert any(mech in n and str(size) in n for n in test["notes"]), test["notes"]
        assert all(m["name"] != f"msg.{what}.{mech}.s{size}" for m in test["metrics"])
        return False
    m = metric(test, f"msg.{what}.{mech}.s{size}")
    assert m["count"] == count
    assert m["params"]["mechanism"] == mech and m["params"]["size"] == size
    assert m["unit"] == "ns" and m["min"] > 0
    return True


def test_every_mechanism_and_size(quick: ProbeRun) -> None:
    tests = quick.tests
    for tid in ["MSG-P-SND", "MSG-P-LAT", "MSG-P-RTT", "MSG-P-FIL", "MSG-P-ALT"]:
        assert tests[tid]["status"] == "ok", tests[tid]["reason"]
        assert tests[tid]["info"]["stale_queues_removed"] >= 0
    seen = 0
    for mech in MECHS:
        for size in SIZES:
            ok = figure_or_limit(tests["MSG-P-SND"], "send", mech, size, QUICK_COUNT)
            if ok:
                figure_or_limit(tests["MSG-P-SND"], "receive", mech, size, QUICK_COUNT)
            assert figure_or_limit(tests["MSG-P-LAT"], "latency", mech, size, QUICK_COUNT) == ok
            assert figure_or_limit(tests["MSG-P-RTT"], "roundtrip", mech, size, QUICK_COUNT) == ok
            # each side of the alternation records its hand-overs
            assert (
                figure_or_limit(tests["MSG-P-ALT"], "alternate", mech, size, 2 * QUICK_COUNT) == ok
            )
            for what in ("fill", "drain", "fill_urgent"):
                assert figure_or_limit(tests["MSG-P-FIL"], what, mech, size, QUICK_ROUNDS) == ok
            seen += ok
    # pipes and UNIX sockets carry every size on any Linux
    assert seen >= 8
    assert tests["MSG-P-LAT"]["info"]["messages_out_of_sequence"] == 0


def test_fill_capacity_and_urgent_first(quick: ProbeRun) -> None:
    fil = quick.tests["MSG-P-FIL"]
    for m in fil["metrics"]:
        mech, size = m["params"]["mechanism"], m["params"]["size"]
        chan = fil["info"][f"channel.{mech}.s{size}"]
        if m["name"].startswith("msg.fill."):
            assert m["params"]["messages"] == chan["capacity"] >= 1
    names = {v["name"] for v in fil["verdicts"]}
    # only the mechanisms with priorities are judged by default
    assert names == {"urgent_first.mq", "urgent_first.sysv"}
    for name in names:
        v = verdict(fil, name)
        assert v["pass"], v
        ev = v["evidence"]
        assert ev["mechanism_has_priorities"] and ev["rounds_failed"] == 0
        assert ev["rounds_judged"] >= QUICK_ROUNDS
        head = ev["received_order_head"]
        assert head[0] == "u0" and all(h.startswith("u") for h in head[: ev["urgent_per_round"]])
        assert ev["rounds_not_full_at_capacity"] == 0


def test_urgent_first_negative_control_fifo_pipe() -> None:
    """A pipe has no priorities: judged anyway, urgent-first must fail."""
    run = run_probe(
        "--quick",
        "--tests",
        "MSG-P-FIL",
        "--opt",
        "MSG-P-FIL.mechanism=pipe",
        "--opt",
        "MSG-P-FIL.size=16",
        "--opt",
        "MSG-P-FIL.urgent_verdict=all",
    )
    fil = run.tests["MSG-P-FIL"]
    assert run.code == 1 and fil["status"] == "fail"
    v = verdict(fil, "urgent_first.pipe")
    assert not v["pass"]
    assert not v["evidence"]["mechanism_has_priorities"]
    assert v["evidence"]["received_order_head"][0] == "n0"  # plain FIFO


def test_urgent_first_fails_when_urgent_is_sent_as_normal() -> None:
    """Hooks build: the urgent messages go out with the normal priority, so
    on the mechanisms with priorities urgent-first must fail."""
    run = run_probe(
        "--quick", "--tests", "MSG-P-FIL", "--opt", "MSG-P-FIL.size=16",
        "--opt", "MSG-P-FIL.fault=urgent_as_normal",
        hooks=True,
    )  # fmt: skip
    fil = run.tests["MSG-P-FIL"]
    assert run.code == 1 and fil["status"] == "fail"
    assert {v["name"] for v in fil["verdicts"]} == {"urgent_first.mq", "urgent_first.sysv"}
    for v in fil["verdicts"]:
        assert not v["pass"] and v["evidence"]["mechanism_has_priorities"]
        assert v["evidence"]["received_order_head"][0] == "n0"


@pytest.mark.parametrize(
    "tid,what,factor",
    [("MSG-P-LAT", "latency", 1), ("MSG-P-RTT", "roundtrip", 1), ("MSG-P-ALT", "alternate", 2)],
)
def test_process_peers(tid: str, what: str, factor: int) -> None:
    run = run_probe(
        "--quick",
        "--tests",
        tid,
        "--opt",
        f"{tid}.peer=process",
        "--opt",
        f"{tid}.size=1024",
        "--opt",
        f"{tid}.count=50",
    )
    t = run.tests[tid]
    assert run.code == 0 and t["status"] == "ok", t["reason"]
    assert t["info"]["peer"] == "process"
    for mech in MECHS:
        m = metric(t, f"msg.{what}.{mech}.s1024")
        assert m["count"] == 50 * factor and m["params"]["peer"] == "process"


def _sysv() -> dict[str, tuple[int, int]]:
    """System V queues: id -> (last sender, last receiver)."""
    lines = Path("/proc/sysvipc/msg").read_text().splitlines()[1:]
    return {f[1]: (int(f[5]), int(f[6])) for f in (x.split() for x in lines)}


def _mq_pids() -> set[int]:
    """The processes named by the probe's POSIX queues (rtg-msg-PID-N)."""
    names = os.listdir("/dev/mqueue") if os.path.isdir("/dev/mqueue") else []
    return {int(n.split("-")[2]) for n in names if n.startswith("rtg-msg-")}


def _alive(pid: int) -> bool:
    return pid > 0 and Path(f"/proc/{pid}").exists()


def orphaned_queues() -> set[str]:
    """Queues that no live process uses: what a run left behind. Other
    runs on the machine (their queues in use) are not counted."""
    sysv = {q for q, pids in _sysv().items() if pids != (0, 0) and not any(map(_alive, pids))}
    return {f"sysv {q}" for q in sysv} | {f"mq of {p}" for p in _mq_pids() if not _alive(p)}


def _until(done: Callable[[], bool], what: str, timeout: float = 120) -> None:
    """Polls done until true; fails saying what never happened."""
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, f"not within {timeout} s: {what}"
        time.sleep(0.02)  # a polling interval


def _descendants(pid: int) -> set[int]:
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        out.add(p)
        try:  # a process that ended meanwhile has no children left
            tasks = list(Path(f"/proc/{p}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
    return out


def _ours_open(pid: int, mech: str, ours: set[str]) -> bool:
    """Whether a queue of this probe is open and in use (adds it to ours:
    System V ids, or "mq" for a POSIX descriptor)."""
    procs = _descendants(pid)
    if mech == "sysv":
        ours |= {q for q, pids in _sysv().items() if set(pids) & procs}
    else:  # unlinked at once: only a descriptor shows it
        for p in procs:
            for fd in Path(f"/proc/{p}/fd").glob("*"):
                try:
                    if os.readlink(fd).startswith("/rtg-msg-"):
                        ours.add("mq")
                except OSError:
                    continue
    return bool(ours)


def _sysv_gone(ids: set[str]) -> bool:
    return not ids & set(_sysv())


def test_no_queue_left_after_a_run_or_a_kill() -> None:
    before = orphaned_queues()
    run = run_probe("--quick", "--tests", "MSG-*", "--opt", "MSG-P-LAT.count=20")
    assert run.code == 0
    assert orphaned_queues() <= before
    # A SIGKILL of the whole probe while System V and POSIX queues are open:
    # the janitor removes the System V ids, POSIX names are already unlinked.
    # Each kill waits for a queue of its kind to be open and in use.
    for mech in ("sysv", "mq"):
        proc = subprocess.Popen(
            [
                str(probe_path()),
                "--tests",
                "MSG-P-LAT,MSG-P-RTT",
                "--opt",
                f"MSG-P-LAT.mechanism={mech}",
                "--opt",
                "MSG-P-LAT.count=5000000",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        ours: set[str] = set()
        try:
            _until(partial(_ours_open, proc.pid, mech, ours), f"a {mech} queue of the probe open")
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        # The janitor (a process of its own, woken by the probe's death) cleans.
        _until(partial(_sysv_gone, ours), f"the probe's {mech} queues removed after the kill")
        assert orphaned_queues() <= before, mech
