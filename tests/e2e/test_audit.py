"""The audit end to end: `rtgauge check` with the built probe on this
machine, over SSH and on the FreeRTOS board; a setting changed (the
transparent hugepage mode, restored on every path) and the audit following
it; two runs that differ in it shown under compare's "What differs", and
history marking the run where it changed."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from probe_run import probe_path

from rtgauge.audit.checks import FREERTOS, LINUX
from rtgauge.audit.linux_memory import chosen

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def check(cli: Any, *args: str) -> tuple[int, list[dict[str, Any]]]:
    code, out, err = cli("check", "--probe", str(probe_path()), "--format", "json", *args)
    assert code in (0, 1), err
    findings: list[dict[str, Any]] = json.loads(out)["findings"]
    return code, findings


def by_id(found: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in found}


def test_check_prints_every_check_with_its_evidence(cli: Any) -> None:
    code, out, err = cli("check", "--probe", str(probe_path()))
    assert code in (0, 1), err
    lines = out.splitlines()
    for c in LINUX:
        (i,) = [n for n, ln in enumerate(lines) if ln.split()[1:2] == [c.id]]
        status = lines[i].split()[0]
        assert status in ("FAIL", "WARN", "PASS", "N/A", "UNKNOWN")
        assert lines[i + 1].strip().startswith("evidence: ")
        if status in ("FAIL", "WARN"):
            block = lines[
                i + 1 : next(
                    (n for n in range(i + 1, len(lines)) if not lines[n].startswith(" ")),
                    len(lines),
                )
            ]
            assert any(b.strip().startswith("fix: ") for b in block), c.id
    assert (code == 1) == any(ln.startswith("FAIL") for ln in lines)


def test_check_reads_this_machine(cli: Any) -> None:
    """What the probe read here, as the files say it."""
    _, found = check(cli, "--cpus", "0")
    f = by_id(found)
    order = ["fail", "warn", "unknown", "pass", "n/a"]
    ranks = [order.index(x["status"]) for x in found]
    assert ranks == sorted(ranks)  # failures first
    rt = Path("/proc/sys/kernel/sched_rt_runtime_us").read_text().strip()
    assert f"/proc/sys/kernel/sched_rt_runtime_us: {rt}" in f["rt-throttling"]["evidence"]
    source = Path("/sys/devices/system/clocksource/clocksource0/current_clocksource").read_text()
    assert f["clocksource"]["value"] == source.strip()
    assert f["irq-affinity"]["details"]["cpus"] == [0]


def test_an_unknown_cpu_is_one_line_and_exit_2(cli: Any) -> None:
    code, out, err = cli("check", "--probe", str(probe_path()), "--cpus", "4096")
    assert code == 2 and out == "" and err.count("\n") == 1 and "4096" in err


@contextmanager
def thp_mode(mode: str) -> Iterator[None]:
    """The transparent hugepage mode set for the block, restored on every path out."""
    if not THP.exists():
        pytest.skip("skipped: this kernel has no transparent hugepages")
    before = chosen(THP.read_text())
    assert before
    try:
        THP.write_text(mode)
    except OSError as exc:
        pytest.skip(f"skipped: {THP} cannot be written here ({exc.strerror})")
    try:
        yield
    finally:
        THP.write_text(before)


def test_the_audit_follows_the_thp_mode(cli: Any) -> None:
    before = THP.read_text() if THP.exists() else None
    try:
        with thp_mode("always"):
            _, found = check(cli)
            thp = by_id(found)["thp"]
            assert thp["status"] in ("warn", "fail") and thp["value"].startswith("always")
            assert f"{THP}: {THP.read_text().strip()}" in thp["evidence"]
            assert thp["fix"] and "madvise" in thp["fix"]
        with thp_mode("never"):
            _, found = check(cli)
            thp = by_id(found)["thp"]
            assert thp["status"] == "pass" and thp["value"].startswith("never")
    finally:
        assert before is None or THP.read_text() == before  # restored


def _run(cli: Any, results: Path) -> Path:
    code, _, err = cli(
        "run", "--probe", str(probe_path()), "--quick", "--tests", "CLK-P-RES", "--cpus", "0",
        "--results-dir", str(results), "--no-report",
    )  # fmt: skip
    assert code == 0, err
    return max(results.glob("*/*.json"), key=lambda p: p.stat().st_mtime)


def test_two_runs_that_differ_in_a_setting(cli: Any, tmp_path: Path) -> None:
    """Every run carries its audit facts; compare shows the changed setting
    under "What differs", history marks the run where it changed."""
    results = tmp_path / "results"
    with thp_mode("always"):
        first = _run(cli, results)
    with thp_mode("never"):
        second = _run(cli, results)
    code, md, err = cli("compare", str(first), str(second), "--format", "md")
    assert code == 0, err
    section = md[md.index("## What differs between these systems") :]
    differing = section[: section.index("Alike in every system")]
    assert "| settings | THP enabled | always | never |" in differing
    assert "| audit | thp |" in differing
    code, text, err = cli("history", "--results-dir", str(results))
    assert code == 0, err
    assert "THP enabled: always → never" in text and "SETTING" in text


def test_check_over_ssh(cli: Any, sshd: tuple[int, Path]) -> None:
    """The same facts, read by the static probe copied to the target."""
    port, key = sshd
    code, out, err = cli(
        "check", "--target", f"ssh://root@127.0.0.1:{port}", "--identity", str(key),
        "--ssh-option", "StrictHostKeyChecking=no", "--ssh-option", "UserKnownHostsFile=/dev/null",
        "--ssh-option", "LogLevel=ERROR", "--format", "json",
    )  # fmt: skip
    assert code in (0, 1), err
    found = json.loads(out)["findings"]
    assert [f["id"] for f in found if f["id"] in {c.id for c in LINUX}] and len(found) == len(LINUX)
    assert by_id(found)["preempt-model"]["status"] != "unknown"


def test_check_on_the_freertos_board(cli: Any) -> None:
    """The firmware's own record: its checks, and the emulator said as such."""
    code, out, err = cli("check", "--target", "freertos-qemu", "--format", "json")
    assert code == 1, err  # an emulated CPU fails the hypervisor check
    f = by_id(json.loads(out)["findings"])
    assert set(f) == {c.id for c in FREERTOS}
    assert f["hypervisor"]["status"] == "fail" and f["hypervisor"]["value"] == "emulated"
    for ok in ("rtos-preemption", "rtos-time-slicing", "rtos-tick-rate", "rtos-assertions",
               "rtos-stack-check", "rtos-trace-hooks", "rtos-heap"):  # fmt: skip
        assert f[ok]["status"] == "pass", (ok, f[ok])
    assert f["rtos-timer-task"]["status"] == "n/a"  # the firmware has no software timers
    assert f["rtos-mpu"]["status"] == "warn"  # the core has one, the port does not use it
    assert any("at the run's end" in e for e in f["rtos-heap"]["evidence"])


def test_check_in_a_preempt_rt_guest(cli: Any) -> None:
    """A Debian PREEMPT_RT kernel under QEMU, isolated CPU on its command line:
    the guest's own facts, judged on the host."""
    code, out, err = cli(
        "check", "--target", "qemu", "--kernel-package", "linux-image-rt-amd64",
        "--append", "isolcpus=1 nohz_full=1", "--cpus", "1", "--format", "json",
    )  # fmt: skip
    assert code in (0, 1), err
    f = by_id(json.loads(out)["findings"])
    assert f["preempt-model"]["status"] == "pass" and f["preempt-model"]["value"] == "rt"
    assert f["cpu-isolation"]["status"] == "pass"
    assert f["hypervisor"]["status"] in ("warn", "fail")  # a guest: KVM, or TCG's emulation


def test_another_programs_real_time_task_is_named_and_the_run_warns(
    cli: Any, tmp_path: Path
) -> None:
    """A SCHED_FIFO thread this test starts (another program, to the probe)
    that may run on the measured CPU: check names it, a run warns at its
    start; with it gone, the same check passes (the control)."""
    sleeper = subprocess.Popen(["chrt", "-f", "10", "sleep", "120"])
    try:
        # chrt sets the policy before it execs sleep: wait until it has
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if Path(f"/proc/{sleeper.pid}/comm").read_text().strip() == "sleep":
                break
            time.sleep(0.05)
        code, found = check(cli, "--cpus", "1")
        f = by_id(found)["rt-tasks"]
        assert (
            f["status"] in ("warn", "fail") and f"sleep/{sleeper.pid} SCHED_FIFO 10" in f["summary"]
        )
        code, out, err = cli(
            "run", "--probe", str(probe_path()), "--quick", "--tests", "CLK-P-RES",
            "--cpus", "1", "--no-report", "--store", str(tmp_path / "store"),
        )  # fmt: skip
        assert code == 0, err
        (warning,) = [x for x in err.splitlines() if "other programs' real-time threads" in x]
        assert "may run on the measured CPUs: " in warning  # others' may be named first
        assert f"sleep/{sleeper.pid} SCHED_FIFO 10" in warning
    finally:
        sleeper.kill()
        sleeper.wait()
    code, found = check(cli, "--cpus", "1")
    f = by_id(found)["rt-tasks"]
    assert f"sleep/{sleeper.pid}" not in f["summary"]
