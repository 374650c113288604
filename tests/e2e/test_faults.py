"""Resource exhaustion: refused mlockall, refused threads, a full disk. Each is
a clear record or message; nothing measured before is lost."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from probe_run import probe_path, validate

ARGS = ["--quick", "--tests", "CLK-P-RES,TMR-P-LAT", "--opt", "TMR-P-LAT.duration_ms=200"]
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="needs root")


@pytest.fixture
def nobody_dir() -> Iterator[Path]:
    """A directory that nobody can enter (pytest's own tmp dirs are 0700)."""
    d = Path(tempfile.mkdtemp(prefix="rtgauge-nobody-"))
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _records(text: str) -> list[dict]:  # type: ignore[type-arg]
    out = []
    for line in text.splitlines():
        r = json.loads(line)
        validate(r)
        out.append(r)
    return out


@root_only
def test_refused_mlockall_is_recorded_and_tests_still_run() -> None:
    # root bypasses RLIMIT_MEMLOCK through CAP_IPC_LOCK: drop it first.
    cmd = [
        "setpriv",
        "--bounding-set=-ipc_lock",
        "--inh-caps=-ipc_lock",
        "prlimit",
        "--memlock=0:0",
        str(probe_path()),
        *ARGS,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    recs = _records(proc.stdout)
    assert recs[0]["privileges"]["mlockall"] is False
    assert "mlockall" in recs[0]["privileges"]["mlockall_reason"]
    assert any("mlockall" in w for w in recs[0]["warnings"])
    for r in recs[1:-1]:
        assert r["status"] == "ok" and r["conditions"]["mlockall"] is False
        assert any(n.startswith("ran without mlockall") for n in r["notes"])


@root_only
def test_refused_threads_are_an_error_record_and_the_run_goes_on(nobody_dir: Path) -> None:
    # RLIMIT_NPROC does not bind root; as nobody, two tasks are the parent
    # and the test process: the measuring threads are refused.
    probe = nobody_dir / "rtgauge-probe"
    shutil.copy(probe_path(), probe)
    cmd = [
        "setpriv",
        "--reuid=nobody",
        "--regid=nogroup",
        "--clear-groups",
        "prlimit",
        "--nproc=2:2",
        str(probe),
        *ARGS,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=nobody_dir)
    assert proc.returncode == 3
    recs = _records(proc.stdout)
    by_id = {r.get("id"): r for r in recs}
    assert by_id["CLK-P-RES"]["status"] == "ok"
    lat = by_id["TMR-P-LAT"]
    assert lat["status"] == "error"
    assert lat["reason"].startswith("cannot start the thread for CPU")
    assert recs[-1]["record"] == "end" and recs[-1]["errors"] == 1


@root_only
def test_full_disk_is_one_message_exit_3_and_earlier_records_kept(tmp_path: Path) -> None:
    # Room for the system record (its size depends on the machine: the audit
    # lists every IRQ and idle state) and less than the test records after it.
    facts = subprocess.run(
        [str(probe_path()), "--facts"], capture_output=True, text=True, timeout=300, check=True
    )
    system = len(facts.stdout.splitlines()[0].encode()) + 1
    size = (system + 512 + 4095) // 4096 * 4096
    mnt = tmp_path / "small"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)], check=True)
    try:
        out = mnt / "run.jsonl"
        proc = subprocess.run(
            [str(probe_path()), *ARGS, "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 3
        assert proc.stderr.strip() == (
            "rtgauge-probe: error: writing results: No space left on device"
        )
        lines = out.read_text().splitlines()
        first = json.loads(lines[0])
        validate(first)
        assert first["record"] == "system"  # what fitted is intact
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


@root_only
def test_thread_limit_at_1000_threads_keeps_the_smaller_sets(nobody_dir: Path) -> None:
    probe = nobody_dir / "rtgauge-probe"
    shutil.copy(probe_path(), probe)
    cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
           "prlimit", "--nproc=600:600", str(probe), "--tests", "THR-P-SLS"]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=nobody_dir)
    assert proc.returncode == 3
    sls = next(r for r in _records(proc.stdout) if r.get("id") == "THR-P-SLS")
    assert sls["status"] == "error"
    assert sls["reason"].startswith("N = 1000: could create only")
    counts = {m["name"]: m["count"] for m in sls["metrics"]}
    assert counts["thread.switch.yield.n128"] > 0  # measured before the refusal: kept
    assert any("RLIMIT_MEMLOCK" in n for n in sls["notes"])  # unlocked, and said so
