"""Typed views of the result contract (schema/result-v1.json) and of a bundle.

Everything read from a file or a target is checked against the schema first
(rtgauge.validate), so the views can trust the shape. The host reads records
one way: through these views (a stored run as rtgauge.run.Run). Bundle keeps
the records themselves as well, because a bundle is stored and exported
exactly as the probe wrote it; only this module reads them as dictionaries.
Numbers keep the type they were written with (an integer stays one), so a
report shows them as the probe wrote them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtgauge import legacy_catalogue, legacy_system
from rtgauge.audit_facts import AuditFacts, EndFacts
from rtgauge.errors import UsageError
from rtgauge.standards import DocumentedDifference, Standard, documented
from rtgauge.validate import Record as Record
from rtgauge.validate import check_catalogue_line
from rtgauge.validate import check_record as check_record
from rtgauge.validate import parse_line as parse_line

BUNDLE_VERSION = 1


def family(test_id: str) -> str:
    """A test's family: the prefix of its id (TMR of TMR-P-LAT)."""
    return test_id.split("-", 1)[0]


@dataclass(frozen=True)
class Histogram:
    """Sparse log-linear buckets [low, high_exclusive, count] plus an overflow count."""

    sub_bucket_bits: int
    buckets: list[tuple[int, int, int]]
    overflow: int
    overflow_above: int

    @classmethod
    def read(cls, d: Record) -> Histogram:
        return cls(
            sub_bucket_bits=d["sub_bucket_bits"],
            buckets=[(lo, hi, n) for lo, hi, n in d["buckets"]],
            overflow=d["overflow"],
            overflow_above=d["overflow_above"],
        )

    @property
    def total(self) -> int:
        return sum(n for _, _, n in self.buckets) + self.overflow


@dataclass(frozen=True)
class Blocks:
    """The order of a figure's extremes: per block of span_ms of test time, its
    start, how many samples it holds, their maximum and how many exceeded
    threshold_ns (schema: metric.blocks)."""

    span_ms: float
    threshold_ns: float
    start_ms: list[float]
    count: list[int]
    maxima: list[float]
    above: list[int]

    @classmethod
    def read(cls, d: Record) -> Blocks:
        items = d["items"]
        return cls(
            span_ms=float(d["span_ms"]),
            threshold_ns=float(d["threshold_ns"]),
            start_ms=[float(i[0]) for i in items],
            count=[int(i[1]) for i in items],
            maxima=[float(i[2]) for i in items],
            above=[int(i[3]) for i in items],
        )


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
    blocks: Blocks | None = None
    # The condition the name promises did not hold while measured, in words
    condition_unmet: str | None = None
    unexplained: str | None = None  # why the recorder does not explain its samples

    @classmethod
    def read(cls, d: Record) -> Metric:
        stats = ("min", "max", "mean", "stddev", "p50", "p90", "p99", "p99_9", "p99_99")
        return cls(
            name=d["name"],
            unit=d["unit"],
            count=d["count"],
            negative=d.get("negative") or 0,  # older records have none: 0
            worst_at_ms=d["worst_at_ms"],
            params=dict(d.get("params") or {}),
            hist=Histogram.read(d["hist"]),
            blocks=Blocks.read(d["blocks"]) if d.get("blocks") else None,
            condition_unmet=d.get("condition_unmet") or None,
            unexplained=d.get("unexplained") or None,
            **{k: d[k] for k in stats},
        )

    def stat(self, key: str) -> float | None:
        """A statistic by its record key ("max", "p99_9", ...)."""
        value: float | None = getattr(self, key)
        return value

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
class IntervalFigure:
    """One figure's samples in one interval of a duration test (ns)."""

    name: str
    count: int
    min: float | None
    max: float | None
    mean: float | None
    p50: float | None
    p90: float | None
    p99: float | None
    p99_9: float | None
    hist: Histogram

    @classmethod
    def read(cls, d: Record) -> IntervalFigure:
        stats = ("min", "max", "mean", "p50", "p90", "p99", "p99_9")
        return cls(
            name=d["name"],
            count=d["count"],
            hist=Histogram.read(d["hist"]),
            **{k: d[k] for k in stats},
        )


@dataclass(frozen=True)
class IntervalRecord:
    """What a duration test wrote of one interval while it ran (schema: interval)."""

    id: str
    seq: int
    interval_ms: float
    planned_ms: float
    from_ms: float
    to_ms: float
    figures: list[IntervalFigure]

    @classmethod
    def read(cls, d: Record) -> IntervalRecord:
        return cls(
            id=d["id"],
            seq=d["seq"],
            interval_ms=float(d["interval_ms"]),
            planned_ms=float(d["planned_ms"]),
            from_ms=float(d["from_ms"]),
            to_ms=float(d["to_ms"]),
            figures=[IntervalFigure.read(f) for f in d["figures"]],
        )

    @property
    def worst(self) -> float | None:
        """The highest maximum of its figures (None: no figure has samples)."""
        return max((f.max for f in self.figures if f.max is not None), default=None)


@dataclass(frozen=True)
class Verdict:
    """A check against a standard. `passed` is the probe's word; a verdict
    that did not pass is a documented difference when its OS documents what
    was seen (rtgauge.standards), and a failure otherwise."""

    name: str
    passed: bool
    expected: str
    observed: str
    evidence: Any = None
    standard: Standard | None = None  # None: a record from before the probe named it
    seen: str | None = None
    documented: DocumentedDifference | None = None  # set only when not passed

    @classmethod
    def read(cls, d: Record, os: str | None = None, test: str = "") -> Verdict:
        """The verdict of test `test` run on `os` (the system record's
        host.os; None: unknown, and no failure is excused)."""
        std = d.get("standard")
        standard = Standard(std["name"], std["clause"]) if std else None
        seen = d.get("seen")
        diff = None if d["pass"] else documented(os, test, d["name"], seen)
        return cls(
            d["name"], d["pass"], d["expected"], d["observed"], d.get("evidence"),
            standard, seen, diff,
        )  # fmt: skip

    @property
    def failed(self) -> bool:
        """Did not pass, and no documentation of its OS says why: a failure."""
        return not self.passed and self.documented is None

    @property
    def outcome(self) -> str:
        """ "pass", "differs" (a documented difference) or "fail"."""
        return "pass" if self.passed else "differs" if self.documented else "fail"

    @property
    def mark(self) -> str:
        return {"pass": "PASS", "differs": "DIFFERS", "fail": "FAIL"}[self.outcome]

    @property
    def outcome_text(self) -> str:
        """What the verdict says in words: "pass", "FAIL against POSIX", or
        "differs from POSIX, as FreeRTOS documents"."""
        if self.documented:
            return self.documented.text(self.standard)
        if self.passed:
            return "pass"
        return f"FAIL against {self.standard.name}" if self.standard else "FAIL"


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
    def read(cls, d: Record) -> Series:
        return cls(
            name=d["name"],
            unit=d["unit"],
            window_ms=d["window_ms"],
            points=[(t, v) for t, v in d["points"]],
            phases=[
                Phase(p["name"], p["start_ms"], p["end_ms"], p.get("ops_per_s"))
                for p in d.get("phases", [])
            ],
        )


@dataclass(frozen=True)
class Conditions:
    """What a test really ran under."""

    policy: str
    prio: int
    mlockall: bool
    cpus: list[int]
    virtualized: bool | None = None


@dataclass(frozen=True)
class TraceEvent:
    """One kernel event of a kept window: t in ns from the sample's release,
    the task current then (cur), and the fields of its kind (schema:
    trace_event)."""

    t: int
    cpu: int
    kind: str
    cur: int = -1
    num: int = -1
    pid: int = 0
    prio: int = 0
    name: str = ""
    pid2: int = 0
    prio2: int = 0
    name2: str = ""
    state: int = 0
    now: int | None = None

    @classmethod
    def read(cls, d: Record) -> TraceEvent:
        return cls(
            t=d["t"],
            cpu=d["cpu"],
            kind=d["k"],
            cur=d["cur"],
            num=d.get("num", -1),
            pid=d.get("pid", 0),
            prio=d.get("prio", 0),
            name=d.get("name", ""),
            pid2=d.get("pid2", 0),
            prio2=d.get("prio2", 0),
            name2=d.get("name2", ""),
            state=d.get("state", 0),
            now=d.get("now"),
        )


@dataclass(frozen=True)
class TraceWindowRecord:
    """The events around one kept sample (schema: trace_window)."""

    metric: str
    sample_ns: int
    release_ns: int
    cpu: int
    tid: int
    start: int  # ns from the release (negative: before it)
    complete: bool
    lost_events: int
    first_event: int | None
    capped: bool
    steal_ns: int | None
    steal_over_ns: int | None
    policies: dict[int, str]
    origins: dict[int, str]  # pid -> "run", "kernel", "other", "ended" (where the record says)
    events: tuple[TraceEvent, ...]
    worst: bool = True  # among the K worst of the test (older records: every window)
    figure_max: bool = False  # the worst sample of its figure
    # what the sample measures: "release" (to the thread running; older
    # records) or "operation" (the thread's call, t = 0, to its return)
    interval: str = "release"

    @classmethod
    def read(cls, d: Record) -> TraceWindowRecord:
        steal = d.get("steal")
        return cls(
            metric=d["metric"],
            sample_ns=d["sample_ns"],
            release_ns=d["release_ns"],
            cpu=d["cpu"],
            tid=d["tid"],
            start=d["start"],
            complete=d["complete"],
            lost_events=d["lost_events"],
            first_event=d.get("first_event"),
            capped=d.get("capped", False),
            steal_ns=steal["ns"] if steal else None,
            steal_over_ns=steal["over_ns"] if steal else None,
            policies={t["pid"]: t["policy"] or "" for t in d.get("tasks", [])},
            worst=d.get("worst", True),
            figure_max=d.get("figure_max", False),
            interval=d.get("interval", "release"),
            origins={t["pid"]: t["origin"] for t in d.get("tasks", []) if t.get("origin")},
            events=tuple(TraceEvent.read(e) for e in d["events"]),
        )


@dataclass(frozen=True)
class ExplainRecord:
    """A test's flight recorder: whether it ran, why not, what it kept (schema: explain)."""

    state: str  # "on", "off", "not explained"
    why: str | None
    source: str | None = None
    prio_scale: str = "linux"
    keep: int = 0
    figures: int = 0  # figures whose worst sample the recorder had room for
    setup_ns: int = 0  # the recorder's open (0: not recorded)
    event_ns: int = 0  # what writing one event cost its writer (0: not measured)
    floor_ns: int = 0
    lookback_ns: int = 0
    offered: int = 0
    freezes: int = 0
    uncaptured: int = 0
    uncaptured_max_ns: int = 0
    figures_untracked: int = 0
    figure_names: tuple[str, ...] = ()  # the figures whose worst the recorder tracked
    lost_events: int = 0
    windows: tuple[TraceWindowRecord, ...] = ()
    windows_dropped: int = 0  # kept, but their text did not fit in the target's memory

    @classmethod
    def read(cls, d: Record) -> ExplainRecord:
        return cls(
            state=d["state"],
            why=d["why"],
            source=d.get("source"),
            prio_scale=d.get("prio_scale", "linux"),
            keep=d.get("keep", 0),
            figures=d.get("figures", 0),
            floor_ns=d.get("floor_ns", 0),
            setup_ns=d.get("setup_ns", 0),
            event_ns=d.get("event_ns", 0),
            lookback_ns=d.get("lookback_ns", 0),
            offered=d.get("offered", 0),
            freezes=d.get("freezes", 0),
            uncaptured=d.get("uncaptured", 0),
            uncaptured_max_ns=d.get("uncaptured_max_ns", 0),
            figures_untracked=d.get("figures_untracked", 0),
            figure_names=tuple(d.get("figure_names", ())),
            lost_events=d.get("lost_events", 0),
            windows=tuple(TraceWindowRecord.read(w) for w in d.get("windows", [])),
            windows_dropped=d.get("windows_dropped", 0),
        )


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
    family_title: str | None = None  # None: the family has no title
    # The start of the names of the figures that are latencies from a release
    # instant (None: none is); unsaid in records written before the probe said it.
    release_latency: str | None = None
    release_latency_said: bool = True
    explain: ExplainRecord | None = None  # None: the test has no figure to explain

    @classmethod
    def from_dict(cls, d: Record, where: str = "test record", os: str | None = None) -> TestRecord:
        d = check_record(d, where)
        if d["record"] != "test":
            raise UsageError(f"{where}: expected a test record, got {d['record']!r}")
        return cls.read(d, os)

    @classmethod
    def read(cls, d: Record, os: str | None = None) -> TestRecord:
        """A checked test record (from_dict checks it first), run on `os`
        (host.os of its run's system record: which documented differences
        apply; None: none)."""
        c = d["conditions"]
        fam = family(d["id"])
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
            duration_ms=d["duration_ms"],
            metrics=[Metric.read(m) for m in d["metrics"]],
            verdicts=[Verdict.read(v, os, d["id"]) for v in d["verdicts"]],
            series=[Series.read(s) for s in d.get("series", [])],
            notes=list(d.get("notes", [])),
            info=dict(d.get("info") or {}),
            family_title=(
                d["family_title"]
                if "family_title" in d
                else legacy_catalogue.FAMILY_TITLES.get(fam)
            ),
            release_latency=d.get("release_latency"),
            release_latency_said="release_latency" in d,
            explain=ExplainRecord.read(d["explain"]) if "explain" in d else None,
        )

    @property
    def family(self) -> str:
        return family(self.id)

    @property
    def failed(self) -> bool:
        """A verdict failed (a documented difference is not a failure), or
        the probe said fail without a verdict that did not pass."""
        if any(v.failed for v in self.verdicts):
            return True
        return self.status == "fail" and all(v.passed for v in self.verdicts)

    @property
    def differs(self) -> bool:
        """The probe said fail, and every verdict that did not pass is a
        documented difference."""
        return self.status == "fail" and not self.failed

    @property
    def shown_status(self) -> str:
        """The status as reports show it: "differs" for a test whose only
        failures are documented differences, else the probe's."""
        return "differs" if self.differs else self.status

    @property
    def worst(self) -> float:
        return max((m.worst for m in self.metrics), default=-1.0)

    def is_release_latency(self, metric: Metric) -> bool:
        """The figure is a latency from a release instant: a deadline applies to it."""
        if not self.release_latency_said:
            return legacy_catalogue.release_latency(self.id, metric.name)
        return self.release_latency is not None and metric.name.startswith(self.release_latency)

    @property
    def latency_test(self) -> bool:
        """Every figure of the test is a latency from a release instant (a test
        that also measures other things, such as THR-P-WKL's hand-overs, is not)."""
        if not self.release_latency_said:
            return self.id in legacy_catalogue.LATENCY_TESTS
        return self.release_latency is not None and all(
            self.is_release_latency(m) for m in self.metrics
        )

    @property
    def headline(self) -> Metric | None:
        """The figure that stands for the test (its history follows it, the
        index keeps it): the all-CPU one when there is one, else the one with
        the highest maximum; None when no figure has samples."""
        metrics = [m for m in self.metrics if m.count]
        for m in metrics:
            if m.name.endswith(".all"):
                return m
        return max(metrics, key=lambda m: m.max or 0, default=None)

    def metric(self, name: str) -> Metric | None:
        return next((m for m in self.metrics if m.name == name), None)


@dataclass(frozen=True)
class Host:
    hostname: str
    os: str
    os_pretty_name: str | None
    release: str
    version: str
    machine: str


@dataclass(frozen=True)
class Kernel:
    preempt_model: str | None
    preempt_source: str | None
    realtime: bool | None
    hz_measured: float | None
    hz_config: int | None
    isolcpus: str | None
    nohz_full: str | None
    rt_runtime_us: int | None
    rt_period_us: int | None
    cmdline: str | None = None  # written by some probes only
    preempt_dynamic: bool | None = None


@dataclass(frozen=True)
class Cpu:
    model: str | None
    online: int
    configured: int
    governor: str | None
    selected: list[int]


@dataclass(frozen=True)
class SmallStats:
    count: int
    min: float
    mean: float
    max: float


@dataclass(frozen=True)
class Clock:
    source: str
    kernel_clocksource: str | None
    freq_hz: float | None
    floor_ns: SmallStats  # two back-to-back reads: no figure is finer


@dataclass(frozen=True)
class Virtualization:
    hypervisor: bool | None
    vendor: str | None
    emulated: bool | None


@dataclass(frozen=True)
class Privileges:
    """What the probe obtained, not what it asked for."""

    euid: int
    sched_fifo: bool
    sched_fifo_reason: str | None
    mlockall: bool
    mlockall_reason: str | None
    affinity: bool
    prio: int
    cpu_dma_latency: bool | None  # written by some probes only


@dataclass(frozen=True)
class ProbeBuild:
    version: str
    argv: list[str]
    compiler: str
    libc: str
    static: bool
    arch: str
    osal: str | None = None  # the port ("posix", "freertos"); None: the record did not say


@dataclass(frozen=True)
class TraceNames:
    """How an RTOS's trace windows name its idle task, its timer task (None:
    it has none) and the tick's vector (the system record's "rtos.trace_names")."""

    idle_task: str
    timer_task: str | None
    tick: str


@dataclass(frozen=True)
class Plan:
    quick: bool
    duration_scale: float
    tests: list[str]


@dataclass(frozen=True)
class System:
    """The target as the probe found it, and what it was allowed to do."""

    probe: ProbeBuild
    started_at: str | None
    host: Host
    kernel: Kernel
    cpu: Cpu
    clock: Clock
    virtualization: Virtualization
    privileges: Privileges
    run: Plan
    warnings: list[str]
    rtos: Record | None  # another OS than Linux: its kernel, port, board, settings
    audit: AuditFacts  # the real-time audit's facts at the start (none in older records)

    @property
    def port(self) -> str | None:
        """The port that wrote the record ("posix", "freertos"); None: unknown."""
        return self.probe.osal or legacy_system.port(self.rtos)

    @property
    def profile(self) -> str | None:
        """The firmware's build profile ("checked", "lean"); None: not recorded."""
        value = (self.rtos or {}).get("profile")
        return value if isinstance(value, str) else None

    def trace_names(self) -> TraceNames | None:
        """The RTOS's names in trace windows; None when the record gives none."""
        names = (self.rtos or {}).get("trace_names")
        if isinstance(names, dict):  # the schema says its keys and their types
            return TraceNames(names["idle_task"], names["timer_task"], names["tick"])
        said = legacy_system.trace_names(self.port, self.rtos)
        return TraceNames(*said) if said else None

    @classmethod
    def from_dict(cls, d: Record, where: str = "system record") -> System:
        d = check_record(d, where)
        if d["record"] != "system":
            raise UsageError(f"{where}: expected the system record, got {d['record']!r}")
        return cls.read(d)

    @classmethod
    def read(cls, d: Record) -> System:
        """A checked system record (from_dict checks it first)."""
        h, k, c, clk = d["host"], d["kernel"], d["cpu"], d["clock"]
        v, p, b, floor = d["virtualization"], d["privileges"], d["probe"], d["clock"]["floor_ns"]
        return cls(
            probe=ProbeBuild(
                b["version"],
                list(b["argv"]),
                b["build"]["compiler"],
                b["build"]["libc"],
                b["build"]["static"],
                b["build"]["arch"],
                b["build"].get("osal"),
            ),
            started_at=d.get("started_at"),
            host=Host(
                h["hostname"],
                h["os"],
                h.get("os_pretty_name"),
                h["release"],
                h["version"],
                h["machine"],
            ),  # fmt: skip
            kernel=Kernel(
                k["preempt_model"],
                k["preempt_source"],
                k["realtime"],
                k["hz_measured"],
                k.get("hz_config"),
                k["isolcpus"],
                k["nohz_full"],
                k["rt_runtime_us"],
                k["rt_period_us"],
                k.get("cmdline"),
                k.get("preempt_dynamic"),
            ),
            cpu=Cpu(c["model"], c["online"], c["configured"], c["governor"], list(c["selected"])),
            clock=Clock(
                clk["source"],
                clk["kernel_clocksource"],
                clk["freq_hz"],
                SmallStats(floor["count"], floor["min"], floor["mean"], floor["max"]),
            ),
            virtualization=Virtualization(v["hypervisor"], v["vendor"], v.get("emulated")),
            privileges=Privileges(
                p["euid"],
                p["sched_fifo"],
                p.get("sched_fifo_reason"),
                p["mlockall"],
                p.get("mlockall_reason"),
                p["affinity"],
                p["prio"],
                p.get("cpu_dma_latency"),
            ),
            run=Plan(d["run"]["quick"], d["run"]["duration_scale"], list(d["run"]["tests"])),
            warnings=[str(w) for w in d.get("warnings", [])],
            rtos=d.get("rtos") or None,
            audit=AuditFacts.read(d.get("audit")),
        )


@dataclass(frozen=True)
class End:
    """How the run ended, as the probe counted it."""

    status: str  # "complete" or "interrupted"
    tests: int
    passed: int
    failed: int
    errors: int
    skipped: int
    interrupted: int
    exit_code: int
    elapsed_ms: float
    audit: EndFacts = EndFacts(False)  # the counts at the run's end (none in older records)

    @classmethod
    def read(cls, d: Record) -> End:
        return cls(
            d["status"],
            d["tests"],
            d["passed"],
            d["failed"],
            d["errors"],
            d["skipped"],
            d.get("interrupted", 0),
            d["exit_code"],
            d["elapsed_ms"],
            EndFacts.read(d.get("audit")),
        )


@dataclass(frozen=True)
class TargetInfo:
    """What the host knew about where the probe ran (the bundle's "target");
    a key a bundle lacks reads as not known."""

    kind: str
    name: str | None = None
    emulated: bool | None = None
    virtualised: bool | None = None
    icount_shift: int | None = None  # QEMU's instruction counting, when on
    append: str | None = None  # a guest kernel's extra command line
    place: str | None = None  # a labgrid place (a board)
    accel: str | None = None  # QEMU's accelerator: tcg (emulation) or kvm

    @classmethod
    def read(cls, d: Record) -> TargetInfo:
        return cls(
            kind=str(d.get("kind", "local")),
            name=d.get("name"),
            emulated=d.get("emulated"),
            virtualised=d.get("virtualised"),
            icount_shift=d.get("icount_shift"),
            append=d.get("append"),
            place=d.get("place"),
            accel=d.get("accel"),
        )


@dataclass(frozen=True)
class ImportInfo:
    """Where an imported run came from (the bundle's "import")."""

    source: str
    file: str | None
    tool_version: str | None
    command: str | None
    conditions_known: bool  # the source recorded policy, priority and memory locking
    unknown: list[str]  # the facts the source did not give

    @classmethod
    def read(cls, d: Record) -> ImportInfo:
        return cls(
            source=str(d.get("source")),
            file=d.get("file"),
            tool_version=d.get("tool_version"),
            command=d.get("command"),
            conditions_known=bool(d.get("conditions_known")),
            unknown=[str(u) for u in d.get("unknown", [])],
        )


@dataclass(frozen=True)
class CatalogueOption:
    key: str
    type: str  # "int", "float" or "enum"
    help: str
    choices: str | None = None  # enum: comma-separated, the first is the default
    default: float | None = None
    quick: float | None = None  # the default under --quick, when it differs
    min: float | None = None
    max: float | None = None
    scaled: bool = False  # scaled by --duration-scale


@dataclass(frozen=True)
class CatalogueEntry:
    """One line of rtgauge-probe --list-json: a test, whether this build can
    run it, and its options."""

    id: str
    title: str
    kind: str
    available: bool
    reason: str | None
    options: list[CatalogueOption]
    source: str | None = None
    family_title: str | None = None  # None also from a probe that did not say
    release_latency: str | None = None

    @classmethod
    def from_dict(cls, d: Any, where: str) -> CatalogueEntry:
        d = check_catalogue_line(d, where)
        return cls(
            id=d["id"],
            title=d["title"],
            kind=d["kind"],
            available=d["available"],
            reason=d["reason"],
            options=[
                CatalogueOption(
                    o["key"],
                    o["type"],
                    o["help"],
                    o.get("choices"),
                    o.get("default"),
                    o.get("quick"),
                    o.get("min"),
                    o.get("max"),
                    bool(o.get("scaled")),
                )
                for o in d["options"]
            ],
            source=d.get("source"),
            family_title=d.get("family_title"),
            release_latency=d.get("release_latency"),
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
    run_label: str | None = None  # --label: a kernel build, a board name (bundle key "label")
    imported: Record | None = None  # where an imported run came from (bundle key "import")
    # a duration test's interval records, in the order they came (bundle key "intervals")
    intervals: list[Record] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.end is not None and self.end.get("status") == "complete"

    @property
    def host(self) -> str:
        return str(self.system["host"]["hostname"])

    # The views of the records: every record of a bundle was checked when it
    # came in (from a file, a stream, an importer), so none is checked again.
    def system_view(self) -> System:
        return System.read(self.system)

    def test_views(self) -> list[TestRecord]:
        return [TestRecord.read(t, self.os) for t in self.tests]

    @property
    def os(self) -> str | None:
        """host.os of the system record ("Linux", "FreeRTOS"), None when unsaid."""
        host = self.system.get("host") if isinstance(self.system, dict) else None
        os = host.get("os") if isinstance(host, dict) else None
        return os if isinstance(os, str) else None

    def end_view(self) -> End | None:
        return None if self.end is None else End.read(self.end)

    def target_view(self) -> TargetInfo:
        return TargetInfo.read(self.target)

    def interval_views(self) -> list[IntervalRecord]:
        return [IntervalRecord.read(r) for r in self.intervals]

    def import_view(self) -> ImportInfo | None:
        return ImportInfo.read(self.imported) if self.imported else None

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
        run_label = data.get("label")
        if run_label is not None and not isinstance(run_label, str):
            raise UsageError(f"{where}: 'label' must be a string")
        imported = data.get("import")
        if imported is not None and not isinstance(imported, dict):
            raise UsageError(f"{where}: 'import' must be an object")
        raw_intervals = data.get("intervals", [])
        if not isinstance(raw_intervals, list):
            raise UsageError(f"{where}: 'intervals' must be a list")
        intervals = [
            check_record(r, f"{where}: intervals[{i}]") for i, r in enumerate(raw_intervals)
        ]
        for i, r in enumerate(intervals):
            if r["record"] != "interval":
                raise UsageError(f"{where}: intervals[{i}] is not an interval record")
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
            run_label=run_label,
            imported=imported,
            intervals=intervals,
        )

    def to_json(self) -> Record:
        # "label" and "import" are written only when set: older readers see
        # the same bundle as before.
        extra: Record = {}
        if self.run_label is not None:
            extra["label"] = self.run_label
        if self.imported is not None:
            extra["import"] = self.imported
        if self.intervals:
            extra["intervals"] = self.intervals
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
            **extra,
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
        elif r["record"] == "interval":
            bundle.intervals.append(r)
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
