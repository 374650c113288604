"""Run the built probe and load its JSON lines, validated against the contract.

Plain helpers (not fixtures) so that every end-to-end test file can import them:
`from probe_run import run_probe, probe_path`.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schema" / "result-v1.json").read_text())
_VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def probe_path(hooks: bool = False) -> Path:
    """The probe under test: $RTGAUGE_PROBE (or $RTGAUGE_PROBE_HOOKS), else build/."""
    env = os.environ.get("RTGAUGE_PROBE_HOOKS" if hooks else "RTGAUGE_PROBE")
    if env:
        return Path(env)
    name = "rtgauge-probe-hooks" if hooks else "rtgauge-probe"
    return ROOT / "build" / name


@dataclass
class ProbeRun:
    code: int
    records: list[dict[str, Any]]
    stderr: str

    @property
    def system(self) -> dict[str, Any]:
        return self.records[0]

    @property
    def tests(self) -> dict[str, dict[str, Any]]:
        return {r["id"]: r for r in self.records if r["record"] == "test"}

    @property
    def end(self) -> dict[str, Any] | None:
        last = self.records[-1] if self.records else None
        return last if last and last["record"] == "end" else None


def validate(record: dict[str, Any]) -> None:
    _VALIDATOR.validate(record)


def run_probe(*args: str, hooks: bool = False, timeout: float = 300, **kw: Any) -> ProbeRun:
    """Runs the probe with args; every line must be a schema-valid record."""
    path = probe_path(hooks)
    assert path.exists(), f"probe not built: {path} (run make build)"
    proc = subprocess.run([str(path), *args], capture_output=True, text=True, timeout=timeout, **kw)
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    for r in records:
        validate(r)
    return ProbeRun(proc.returncode, records, proc.stderr)


def metric(test: dict[str, Any], name: str) -> dict[str, Any]:
    for m in test["metrics"]:
        if m["name"] == name:
            return m
    raise KeyError(f"{test['id']} has no metric {name}: {[m['name'] for m in test['metrics']]}")


def verdict(test: dict[str, Any], name: str) -> dict[str, Any]:
    for v in test["verdicts"]:
        if v["name"] == name:
            return v
    raise KeyError(f"{test['id']} has no verdict {name}: {[v['name'] for v in test['verdicts']]}")


def live_processes(pattern: str) -> list[str]:
    """PIDs whose command line matches pattern, zombies left out: an exited
    process waiting for init to reap it is not one left running."""
    out = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout
    live = []
    for pid in out.split():
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            live.append(pid)
    return live


def rt(run: ProbeRun) -> bool:
    """Whether the run obtained SCHED_FIFO (priority tests are skipped without it)."""
    return bool(run.system["privileges"]["sched_fifo"])


def ran(run: ProbeRun, tid: str) -> dict[str, Any]:
    """The test's record; a test skipped for want of real-time privileges skips
    the pytest test too (any other skip is a failure)."""
    t = run.tests[tid]
    if t["status"] == "skipped":
        assert not rt(run), (tid, t["reason"])
        pytest.skip(t["reason"])
    return t


def counted(m: dict[str, Any]) -> None:
    """A full figure set: samples, ordered statistics, a histogram that adds up."""
    assert m["count"] > 0 and m["unit"] == "ns"
    assert m["min"] <= m["mean"] <= m["max"]
    assert sum(b[2] for b in m["hist"]["buckets"]) + m["hist"]["overflow"] == m["count"]


def assert_every_test_ran(run: ProbeRun, ids: list[str], skip_reason: str = "SCHED_") -> None:
    """Exactly these tests, in order, each passed (B) or measured (P), or
    skipped for want of SCHED_FIFO on an unprivileged run; the run complete."""
    assert list(run.tests) == ids
    assert run.end is not None and run.end["status"] == "complete"
    for tid, t in run.tests.items():
        if not rt(run) and t["status"] == "skipped":
            assert skip_reason in t["reason"], tid
            continue
        expected = "pass" if t["kind"] == "B" else "ok"
        assert t["status"] == expected, (tid, t["reason"], t["verdicts"])
    assert run.code == 0
