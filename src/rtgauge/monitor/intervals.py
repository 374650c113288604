"""One interval (the format of POST /api/intervals) from the records of one
probe run of one duration test: its figures as interval_figure, whether it
ran real-time, and its worst sample as the flight recorder explains it.

Pure: the times come from the caller, who saw the records arrive."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from rtgauge.analysis.analysed_run import AnalysedRun, window_json
from rtgauge.analysis.explain.parts import Explanation, Subject
from rtgauge.analysis.explain.rules import party_of
from rtgauge.model import Record, bundle_from_records

# the longest culprit and text a server takes (the intervals schema's bounds)
CULPRIT_MAX = 300
TEXT_MAX = 2000
FIGURE_KEYS = ("name", "unit", "count", "min", "max", "mean", "p50", "p90", "p99", "p99_9", "hist")


@dataclass(frozen=True)
class Span:
    """When the interval measured (Unix seconds) and the gap before it (ms)."""

    start: float
    end: float
    gap_ms: float


def utc_ms(seconds: float) -> str:
    """2026-11-27T18:00:00.000Z: UTC to the millisecond."""
    when = datetime.fromtimestamp(round(seconds, 3), UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def realtime(system: Record, test: Record) -> bool:
    """SCHED_FIFO and mlockall were in force, as the probe says both for the
    run (its privileges) and for the test (its conditions)."""
    priv = system.get("privileges") or {}
    cond = test.get("conditions") or {}
    return bool(
        priv.get("sched_fifo")
        and priv.get("mlockall")
        and cond.get("policy") == "SCHED_FIFO"
        and cond.get("mlockall") is True
    )


def figures(test: Record) -> list[Record]:
    """The test's metrics as interval figures (the keys interval_figure holds)."""
    return [{k: m.get(k) for k in FIGURE_KEYS} for m in test.get("metrics") or []]


def _measured(fig: Record) -> bool:
    return isinstance(fig.get("max"), int | float) and int(fig.get("count") or 0) > 0


def worst_figure(figs: list[Record]) -> Record | None:
    """The figure holding the interval's worst sample; a per-CPU figure
    rather than the `.all` that merges it (the window names the CPU's)."""
    own = [f for f in figs if _measured(f) and not str(f["name"]).endswith(".all")]
    pool = own or [f for f in figs if _measured(f)]
    return max(pool, key=lambda f: float(f["max"])) if pool else None


def culprit_name(x: Explanation, virtualised: bool) -> str | None:
    """Whom the explanation blames most, in a few words: a task comm/pid,
    an IRQ "irq/36 name", a handler, the hypervisor (no kernel event), or
    for a party that is no one task or handler (a switch, leaving idle) the
    explanation's own words for its largest part."""
    named = x.named
    if named is None:
        return None
    party, whom = named.party
    if whom is not None:
        return _subject(whom)
    if party == "no-event":
        return "hypervisor (no kernel event)" if virtualised else "no kernel event"
    owned = [p for p in x.parts if party_of(p) == named.party]
    largest = max(owned, key=lambda p: p.ns) if owned else None
    return (largest.blame or largest.label) if largest else party


def _subject(s: Subject) -> str:
    if s.what == "task":
        return f"{s.comm or '?'}/{s.pid}"
    if s.what in ("idle", "thread"):
        return "idle" if s.what == "idle" else f"the measured thread/{s.pid}"
    num = f"/{s.num}" if s.num >= 0 else ""
    return f"{s.what}{num} {s.name}".strip()


def worst(records: list[Record], figs: list[Record]) -> Record | None:
    """The interval's worst sample and what the flight recorder says of it."""
    fig = worst_figure(figs)
    if fig is None:
        return None
    out: Record = {
        "figure": fig["name"],
        "value_ns": float(fig["max"]),
        "culprit": None,
        "summary": "not explained",
        "window": None,
        "why_not": None,
    }
    analysed = AnalysedRun.of(bundle_from_records(records, "probe output"))
    virtualised = bool(analysed.run.system.virtualization.hypervisor)
    for t in analysed.run.tests:
        explained = analysed.test_explained(t)
        if explained is None:
            continue
        top = float(fig["max"])
        kept = next(
            (
                w
                for w in explained.windows
                if w.explanation.metric == fig["name"]
                and abs(w.explanation.sample_ns - top) <= max(1.0, 1e-6 * top)
            ),
            None,
        )
        if kept is None:
            cover = next((c for c in explained.figures if c.metric == fig["name"]), None)
            why = (cover.why_not if cover else None) or explained.why_not
            out["why_not"] = _cap(why or "the flight recorder kept no window of it", TEXT_MAX)
            out["summary"] = _cap(f"not explained: {out['why_not']}", TEXT_MAX)
            return out
        x = kept.explanation
        out["culprit"] = _cap(culprit_name(x, virtualised), CULPRIT_MAX)
        out["summary"] = _cap(x.culprit, TEXT_MAX)
        out["window"] = window_json(kept)
        return out
    out["why_not"] = "the flight recorder was off or offered nothing for this test"
    out["summary"] = f"not explained: {out['why_not']}"
    return out


def _cap(text: str | None, most: int) -> str | None:
    return text if text is None or len(text) <= most else text[: most - 1] + "…"


def interval(records: list[Record], span: Span) -> Record | None:
    """The interval of one probe run: None when it holds no test record."""
    system = records[0] if records and records[0].get("record") == "system" else {}
    test = next((r for r in records if r.get("record") == "test"), None)
    if test is None or not system:
        return None
    figs = figures(test)
    return {
        "start": utc_ms(span.start),
        "end": utc_ms(span.end),
        "test": test["id"],
        "gap_ms": round(max(0.0, span.gap_ms), 3),
        "rt": realtime(system, test),
        "figures": figs,
        "worst": worst(records, figs),
    }
