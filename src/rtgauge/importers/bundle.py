"""An imported measurement as a bundle: a system record with what the source
said (the rest null, or marked unknown where the contract needs a value), one
test record, an end record, and an "import" block saying where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from rtgauge.model import Bundle, Record, check_record

UNKNOWN = "unknown"


@dataclass
class Imported:
    """What a parser found in a file."""

    source: str  # e.g. "cyclictest --json"
    test_id: str  # the rtgauge test it corresponds to
    title: str
    # What the probe's record of that test would say: its family's title and
    # the start of the names of its figures that are latencies from a release
    # instant (None: none is).
    family_title: str
    release_latency: str | None
    metrics: list[Record]
    tool_version: str | None = None
    command: str | None = None
    started_at: str | None = None  # ISO 8601 UTC, when the file says
    host: Record = field(default_factory=dict)  # hostname, os, release, version, machine
    realtime: bool | None = None
    # The conditions, when the source records them (policy, prio, mlockall).
    policy: str | None = None
    prio: int | None = None
    mlockall: bool | None = None
    cpus: list[int] = field(default_factory=list)
    options: Record = field(default_factory=dict)
    info: Record = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def conditions_known(self) -> bool:
        return self.policy is not None and self.prio is not None and self.mlockall is not None


def _system(imp: Imported, where: str) -> tuple[Record, list[str]]:
    unknown = [
        k for k in ("hostname", "os", "release", "version", "machine") if not imp.host.get(k)
    ]
    unknown += ["kernel.preempt_model", "cpu", "clock", "virtualization"]
    if not imp.conditions_known:
        unknown.append("privileges (policy, priority, mlockall)")
    fifo = imp.policy in ("SCHED_FIFO", "SCHED_RR")
    said = (
        ""
        if imp.conditions_known
        else "; whether it ran with SCHED_FIFO and mlockall is not recorded"
    )
    warning = (
        f"imported from {imp.source} ({where}): not measured by rtgauge{said}; "
        "the CPU, clock, measurement floor, hypervisor and preemption model are unknown "
        "(shown as 0 or —)"
    )
    system: Record = {
        "record": "system",
        "schema_version": 1,
        "probe": {
            "version": imp.tool_version or UNKNOWN,
            "argv": imp.command.split() if imp.command else [],
            "build": {"compiler": UNKNOWN, "libc": UNKNOWN, "static": False, "arch": UNKNOWN},
        },
        "host": {
            "hostname": str(imp.host.get("hostname") or UNKNOWN),
            "os": str(imp.host.get("os") or UNKNOWN),
            "os_pretty_name": None,
            "release": str(imp.host.get("release") or UNKNOWN),
            "version": str(imp.host.get("version") or UNKNOWN),
            "machine": str(imp.host.get("machine") or UNKNOWN),
        },
        "kernel": {
            "preempt_model": "rt" if imp.realtime else None,
            "preempt_source": f"{imp.source}: realtime" if imp.realtime else None,
            "realtime": imp.realtime,
            "hz_measured": None,
            "isolcpus": None,
            "nohz_full": None,
            "rt_runtime_us": None,
            "rt_period_us": None,
        },
        "cpu": {
            "model": None,
            "online": 0,
            "configured": 0,
            "governor": None,
            "selected": imp.cpus,
        },
        "clock": {
            "source": "clock_gettime",
            "kernel_clocksource": None,
            "freq_hz": None,
            "floor_ns": {"count": 0, "min": 0, "mean": 0, "max": 0},
        },
        "virtualization": {"hypervisor": None, "vendor": None, "emulated": None},
        "privileges": {
            "euid": -1,
            "sched_fifo": fifo,
            "sched_fifo_reason": None if imp.conditions_known else "not recorded by the source",
            "mlockall": bool(imp.mlockall),
            "mlockall_reason": None if imp.conditions_known else "not recorded by the source",
            "affinity": bool(imp.cpus),
            "prio": imp.prio if imp.prio is not None else 0,
        },
        "run": {"quick": False, "duration_scale": 1, "tests": [imp.test_id]},
        "warnings": [warning],
    }
    if imp.started_at:
        system["started_at"] = imp.started_at
    return system, unknown


def to_bundle(imp: Imported, path: Path) -> Bundle:
    system, unknown = _system(imp, path.name)
    notes = list(imp.notes)
    if not imp.conditions_known:
        notes.append(
            "conditions not recorded by the source: shown as SCHED_OTHER without mlockall; "
            "the figures are not rated on timing"
        )
    test: Record = {
        "record": "test",
        "schema_version": 1,
        "id": imp.test_id,
        "title": imp.title,
        "kind": "P",
        "family_title": imp.family_title,
        "release_latency": imp.release_latency,
        "status": "ok",
        "reason": None,
        "options": imp.options,
        "conditions": {
            "policy": imp.policy or "SCHED_OTHER",
            "prio": imp.prio if imp.prio is not None else 0,
            "mlockall": bool(imp.mlockall),
            "cpus": imp.cpus,
            "virtualized": None,
        },
        "duration_ms": 0,
        "metrics": imp.metrics,
        "verdicts": [],
        "notes": notes,
        "info": {**imp.info, "imported_from": imp.source},
    }
    end: Record = {
        "record": "end",
        "schema_version": 1,
        "status": "complete",
        "tests": 1,
        "passed": 1,
        "failed": 0,
        "errors": 0,
        "skipped": 0,
        "interrupted": 0,
        "exit_code": 0,
        "elapsed_ms": 0,
    }
    created = imp.started_at
    if created is None:
        unknown.append("created_at (the file's modification time is used)")
        mtime = path.stat().st_mtime
        created = datetime.fromtimestamp(mtime, UTC).isoformat(timespec="seconds")
    check_record(system, f"{path}: imported system record")
    check_record(test, f"{path}: imported test record")
    return Bundle(
        system=system,
        tests=[test],
        end=end,
        command=imp.command.split() if imp.command else [],
        created_at=created,
        target={
            "kind": "import",
            "name": imp.source,
            "format": imp.source,
            "file": path.name,
            "emulated": None,
            "virtualised": None,
        },
        imported={
            "source": imp.source,
            "file": path.name,
            "tool_version": imp.tool_version,
            "command": imp.command,
            "conditions_known": imp.conditions_known,
            "unknown": unknown,
        },
    )
