"""Typed view of the result contract (schema/result-v1.json) and of a bundle.

Everything read from a file or a target is checked against the schema first
(rtgauge.validate), so the rest of the host can trust the shape. The typed
dataclasses (System, TestRecord, Metric, ...) are built from checked records;
Bundle keeps the records themselves too, because a bundle is stored and
reported exactly as the probe wrote it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtgauge.errors import UsageError
from rtgauge.validate import Record as Record
from rtgauge.validate import check_record as check_record
from rtgauge.validate import parse_line as parse_line

BUNDLE_VERSION = 1


def _num(v: Any) -> float | None:
    return None if v is None else float(v)


@dataclass(frozen=True)
class Histogram:
    """Sparse log-linear buckets [low, high_exclusive, count] plus an overflow count."""

    sub_bucket_bits: int
    buckets: list[tuple[int, int, int]]
    overflow: int
    overflow_above: int

    @classmethod
    def from_dict(cls, d: Record) -> Histogram:
        return cls(
            sub_bucket_bits=int(d["sub_bucket_bits"]),
            buckets=[(int(lo), int(hi), int(n)) for lo, hi, n in d["buckets"]],
            overflow=int(d["overflow"]),
            overflow_above=int(d["overflow_above"]),
        )

    @property
    def total(self) -> int:
        return sum(n for _, _, n in self.buckets) + self.overflow


@dataclass(frozen=True)
class Metric:
    """One figure set, in ns; a statistic is None when the samples cannot back it."""

    name: str
    unit: str
    count: int
    min: float | None
    max: float | None
    mean: float | None
    stddev: float | None
    p50: float | None
    p90: float | None
    p99: float | None
    p99_9: float | None
    p99_99: float | None
    worst_at_ms: float | None
    params: Record
    hist: Histogram
    negative: int = 0  # intervals that ended before they began: not samples

    @classmethod
    def from_dict(cls, d: Record) -> Metric:
        stats = ("min", "max", "mean", "stddev", "p50", "p90", "p99", "p99_9", "p99_99")
        return cls(
            name=str(d["name"]),
            unit=str(d["unit"]),
            count=int(d["count"]),
            negative=int(d.get("negative") or 0),
            worst_at_ms=_num(d["worst_at_ms"]),
            params=dict(d.get("params") or {}),
            hist=Histogram.from_dict(d["hist"]),
            **{k: _num(d[k]) for k in stats},
        )

    @property
    def tail(self) -> float | None:
        """The highest percentile the samples back: p99.99, else p99.9, else p99."""
        for v in (self.p99_99, self.p99_9, self.p99):
            if v is not None:
                return v
        return None

    @property
    def worst(self) -> float:
        """Sort key, worst case first: the maximum (-1 when there is none)."""
        return self.max if self.max is not None else -1.0


@dataclass(frozen=True)
class Verdict:
    name: str
    passed: bool
    expected: str
    observed: str
    evidence: Any = None

    @classmethod
    def from_dict(cls, d: Record) -> Verdict:
        return cls(d["name"], bool(d["pass"]), d["expected"], d["observed"], d.get("evidence"))


@dataclass(frozen=True)
class Phase:
    name: str
    start_ms: float
    end_ms: float
    ops_per_s: float | None = None


@dataclass(frozen=True)
class Series:
    """A figure over time (one point per window) with the load phases it crossed."""

    name: str
    unit: str
    window_ms: float
    points: list[tuple[float, float]]
    phases: list[Phase]

    @classmethod
    def from_dict(cls, d: Record) -> Series:
        return cls(
            name=d["name"],
            unit=d["unit"],
            window_ms=float(d["window_ms"]),
            points=[(float(t), float(v)) for t, v in d["points"]],
            phases=[
                Phase(p["name"], float(p["start_ms"]), float(p["end_ms"]), _num(p.get("ops_per_s")))
                for p in d.get("phases", [])
            ],
        )


@dataclass(frozen=True)
class Conditions:
    policy: str
    prio: int
    mlockall: bool
    cpus: list[int]
    virtualized: bool | None = None


@dataclass(frozen=True)
class TestRecord:
    """One test as it ended: figures, verdicts, or the reason it did not run."""

    __test__ = False  # not a pytest test class, despite the name

    id: str
    title: str
    kind: str
    status: str
    reason: str | None
    options: Record
    conditions: Conditions
    duration_ms: float
    metrics: list[Metric]
    verdicts: list[Verdict]
    series: list[Series]
    notes: list[str]
    info: Record

    @classmethod
    def from_dict(cls, d: Record, where: str = "test record") -> TestRecord:
        d = check_record(d, where)
        if d["record"] != "test":
            raise UsageError(f"{where}: expected a test record, got {d['record']!r}")
        c = d["conditions"]
        return cls(
            id=d["id"],
            title=d["title"],
            kind=d["kind"],
            status=d["status"],
            reason=d["reason"],
            options=dict(d["options"]),
            conditions=Conditions(
                c["policy"], c["prio"], c["mlockall"], list(c["cpus"]), c.get("virtualized")
            ),
            duration_ms=float(d["duration_ms"]),
            metrics=[Metric.from_dict(m) for m in d["metrics"]],
            verdicts=[Verdict.from_dict(v) for v in d["verdicts"]],
            series=[Series.from_dict(s) for s in d.get("series", [])],
            notes=list(d.get("notes", [])),
            info=dict(d.get("info") or {}),
        )

    @property
    def failed(self) -> bool:
        return self.status == "fail" or any(not v.passed for v in self.verdicts)

    @property
    def worst(self) -> float:
        return max((m.worst for m in self.metrics), default=-1.0)


@dataclass(frozen=True)
class System:
    """The target as the probe found it, and what it was allowed to do."""

    hostname: str
    os: str
    os_pretty_name: str | None
    release: str
    kernel_version: str
    machine: str
    probe_version: str
    preempt_model: str | None
    hz_measured: float | None
    rt_runtime_us: int | None
    rt_period_us: int | None
    cpu_model: str | None
    cpus_online: int
    governor: str | None
    clock_source: str
    floor_ns_mean: float
    hypervisor: bool | None
    hypervisor_vendor: str | None
    emulated: bool | None
    sched_fifo: bool
    sched_fifo_reason: str | None
    mlockall: bool
    mlockall_reason: str | None
    prio: int
    planned_tests: list[str]
    quick: bool
    warnings: list[str]

    @classmethod
    def from_dict(cls, d: Record, where: str = "system record") -> System:
        d = check_record(d, where)
        if d["record"] != "system":
            raise UsageError(f"{where}: expected the system record, got {d['record']!r}")
        h, k, c, clk = d["host"], d["kernel"], d["cpu"], d["clock"]
        v, p = d["virtualization"], d["privileges"]
        return cls(
            hostname=h["hostname"],
            os=h["os"],
            os_pretty_name=h.get("os_pretty_name"),
            release=h["release"],
            kernel_version=h["version"],
            machine=h["machine"],
            probe_version=d["probe"]["version"],
            preempt_model=k["preempt_model"],
            hz_measured=_num(k["hz_measured"]),
            rt_runtime_us=k["rt_runtime_us"],
            rt_period_us=k["rt_period_us"],
            cpu_model=c["model"],
            cpus_online=c["online"],
            governor=c["governor"],
            clock_source=clk["source"],
            floor_ns_mean=float(clk["floor_ns"]["mean"]),
            hypervisor=v["hypervisor"],
            hypervisor_vendor=v["vendor"],
            emulated=v.get("emulated"),
            sched_fifo=p["sched_fifo"],
            sched_fifo_reason=p.get("sched_fifo_reason"),
            mlockall=p["mlockall"],
            mlockall_reason=p.get("mlockall_reason"),
            prio=p["prio"],
            planned_tests=list(d["run"]["tests"]),
            quick=d["run"]["quick"],
            warnings=list(d.get("warnings", [])),
        )


@dataclass
class Bundle:
    """One stored run: the system record, the test records, the end record."""

    system: Record
    tests: list[Record] = field(default_factory=list)
    end: Record | None = None
    command: list[str] = field(default_factory=list)
    created_at: str = ""
    target: Record = field(default_factory=lambda: {"kind": "local"})
    path: Path | None = None

    @property
    def complete(self) -> bool:
        return self.end is not None and self.end.get("status") == "complete"

    @property
    def host(self) -> str:
        return str(self.system["host"]["hostname"])

    @property
    def label(self) -> str:
        """How a comparison names this run: host and kernel release."""
        return f"{self.host} {self.system['host']['release']}"

    def system_view(self) -> System:
        return System.from_dict(self.system)

    def test_views(self) -> list[TestRecord]:
        return [TestRecord.from_dict(t, f"tests[{i}]") for i, t in enumerate(self.tests)]

    @classmethod
    def from_dict(cls, data: Any, where: str = "bundle") -> Bundle:
        """A stored bundle, every record checked; any fault is one UsageError line."""
        if not isinstance(data, dict):
            raise UsageError(f"{where}: a bundle must be a JSON object")
        if data.get("bundle_version") != BUNDLE_VERSION:
            raise UsageError(f"{where}: unsupported bundle_version {data.get('bundle_version')!r}")
        for key, kind in (("tests", list), ("command", list), ("target", dict)):
            if not isinstance(data.get(key), kind):
                raise UsageError(f"{where}: '{key}' must be a {kind.__name__}")
        if "system" not in data:
            raise UsageError(f"{where}: the system record is missing")
        system = check_record(data["system"], f"{where}: system")
        if system["record"] != "system":
            raise UsageError(f"{where}: system is not a system record")
        tests = [check_record(t, f"{where}: tests[{i}]") for i, t in enumerate(data["tests"])]
        for i, t in enumerate(tests):
            if t["record"] != "test":
                raise UsageError(f"{where}: tests[{i}] is not a test record")
        end = data.get("end")
        if end is not None:
            end = check_record(end, f"{where}: end")
            if end["record"] != "end":
                raise UsageError(f"{where}: end is not an end record")
        return cls(
            system=system,
            tests=tests,
            end=end,
            command=[str(c) for c in data["command"]],
            created_at=str(data.get("created_at", "")),
            target=data["target"],
        )

    def to_json(self) -> Record:
        return {
            "bundle_version": BUNDLE_VERSION,
            "created_at": self.created_at,
            "target": self.target,
            "command": self.command,
            "probe_version": self.system["probe"]["version"],
            "complete": self.complete,
            "system": self.system,
            "tests": self.tests,
            "end": self.end,
        }


def bundle_from_records(records: list[Record], where: str) -> Bundle:
    """A bundle from checked stream records: system first, tests, at most one end."""
    if not records or records[0].get("record") != "system":
        raise UsageError(f"{where}: the first record must be the system record")
    bundle = Bundle(system=records[0])
    for i, r in enumerate(records[1:], start=2):
        if bundle.end is not None:
            raise UsageError(f"{where}: record {i} comes after the end record")
        if r["record"] == "test":
            bundle.tests.append(r)
        elif r["record"] == "end":
            bundle.end = r
        else:
            raise UsageError(f"{where}: record {i} is a second system record")
    return bundle


def load_bundle(path: Path) -> Bundle:
    """A stored bundle (.json) or a raw probe stream (.jsonl, also a .partial.jsonl)."""
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UsageError(f"cannot read {where}: {reason}") from exc
    if not text.strip():
        raise UsageError(f"{where}: empty file")
    stripped = text.lstrip()
    if stripped.startswith("{") and '"bundle_version"' in stripped[:200]:
        return _load_bundle_json(text, path)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    records = []
    for i, line in enumerate(lines, start=1):
        try:
            records.append(parse_line(line, f"{where}:{i}"))
        except UsageError:
            if i == len(lines) and i > 1:  # a run cut short mid-line: keep the rest
                break
            raise
    bundle = bundle_from_records(records, where)
    bundle.path = path
    return bundle


def _load_bundle_json(text: str, path: Path) -> Bundle:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from exc
    bundle = Bundle.from_dict(data, str(path))
    bundle.path = path
    return bundle
