"""DLN family end to end: the admission verdicts and their evidence, the
negative control (answers claimed admitted) failing, the deadline figure
sets beside the SCHED_FIFO reference, and "not offered" as nobody.
No timing thresholds: counts, names, statuses and evidence only."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from probe_run import ProbeRun, counted, probe_path, run_probe, validate, verdict

FAMILY = "DLN-*"
IDS = ["DLN-B-ADM", "DLN-P-LAT"]
SHORT = ("--opt", "DLN-B-ADM.periods=10", "--opt", "DLN-P-LAT.periods=50")
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="SCHED_DEADLINE needs CAP_SYS_NICE")


def offered(run: ProbeRun) -> None:
    for t in run.tests.values():
        if t["status"] == "skipped":
            assert t["reason"].startswith("not offered:"), t["reason"]
            pytest.skip(t["reason"])


@root_only
def test_every_test_ran(quick: ProbeRun) -> None:
    offered(quick)
    assert list(quick.tests) == IDS
    assert quick.tests["DLN-B-ADM"]["status"] == "pass"
    assert quick.tests["DLN-P-LAT"]["status"] == "ok"
    assert quick.code == 0


@root_only
def test_admission_evidence(quick: ProbeRun) -> None:
    offered(quick)
    t = quick.tests["DLN-B-ADM"]
    over = verdict(t, "oversubscribed_set_refused")["evidence"]
    answers = [a["answer"] for a in over["asked"]]
    assert "admitted" in answers and any(a != "admitted" for a in answers)
    asked = sum(a["runtime_ns"] / a["period_ns"] for a in over["asked"])
    assert asked > over["cpus"]
    served = verdict(t, "set_below_capacity_admitted_and_served")["evidence"]
    assert all(a["answer"] == "admitted" for a in served["asked"])
    assert all(k["periods_run"] == t["info"]["periods"] for k in served["tasks"])


@root_only
def test_claimed_admission_control_fails() -> None:
    run = run_probe("--quick", "--tests", "DLN-B-ADM", *SHORT[:2],
                    "--opt", "DLN-B-ADM.control=claim_admitted")  # fmt: skip
    offered(run)
    t = run.tests["DLN-B-ADM"]
    assert t["status"] == "fail" and run.code == 1
    assert verdict(t, "oversubscribed_set_refused")["pass"] is False


@root_only
def test_overrun_fault_fails_the_served_verdict() -> None:
    """Hooks build, fault=overrun: each task below capacity works twice its
    runtime, so it cannot end a period's work by the deadline."""
    run = run_probe(
        "--quick", "--tests", "DLN-B-ADM", *SHORT[:2], "--opt", "DLN-B-ADM.fault=overrun",
        hooks=True,
    )  # fmt: skip
    offered(run)
    t = run.tests["DLN-B-ADM"]
    assert t["status"] == "fail" and run.code == 1
    assert any("fault=overrun" in n for n in t["notes"])
    v = verdict(t, "set_below_capacity_admitted_and_served")
    assert v["pass"] is False
    tasks = v["evidence"]["tasks"]
    # Failed for what the OS did: misses outside any hypervisor pause.
    stolen = "missed_while_the_hypervisor_stole_time"
    assert sum(k["missed"] - k[stolen] for k in tasks) > 0
    stalls = v["evidence"]["machine_stalls"]
    assert isinstance(stalls["steal_ns"], int) and stalls["failed"] > stalls["stretches"] // 10


@root_only
def test_latency_beside_fifo(quick: ProbeRun) -> None:
    offered(quick)
    t = quick.tests["DLN-P-LAT"]
    assert [m["name"] for m in t["metrics"]] == [
        "deadline.activation.sched_deadline",
        "deadline.activation.sched_fifo_sleep",
    ]
    dl, fifo = t["metrics"]
    counted(fifo)
    # Activations after a skipped period are counted, not timed.
    assert dl["count"] + t["info"]["untimed_after_skip"] == 49
    if dl["count"]:
        counted(dl)
    assert t["info"]["periods_run"] == 50
    assert t["info"]["missed_deadlines"] >= t["info"]["grid_re_anchored"]


@root_only
def test_nobody_is_told_not_offered() -> None:
    setpriv = shutil.which("setpriv")
    if not setpriv:
        pytest.skip("setpriv (util-linux) is not installed")
    tmp = Path(tempfile.mkdtemp(prefix="rtgauge-nobody-"))  # pytest's are 0700
    os.chmod(tmp, 0o755)
    probe = tmp / "rtgauge-probe"
    shutil.copy(probe_path(), probe)
    proc = subprocess.run(
        [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--inh-caps=-all",
         str(probe), "--quick", "--tests", "DLN-*", *SHORT],
        capture_output=True, text=True, timeout=300, cwd=tmp,
    )  # fmt: skip
    shutil.rmtree(tmp, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(x) for x in proc.stdout.splitlines()]
    for r in records:
        validate(r)
    tests = [r for r in records if r["record"] == "test"]
    assert [r["id"] for r in tests] == IDS
    for r in tests:
        assert r["status"] == "skipped"
        assert r["reason"].startswith("not offered: needs CAP_SYS_NICE")
