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
