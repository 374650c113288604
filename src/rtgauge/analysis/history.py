"""Runs of one system over time: the tail figures per run, and regressions
between consecutive comparable runs (same system, label and options).

A regression is decided here, by pure functions of the bundles:
- a behaviour verdict that passed in the older run and fails in the newer;
- a tail that got worse beyond chance (analysis.tail: exceedances above a
  tail percentile of the older run, Fisher's exact test, p < 0.001,
  rate at least doubled).
A higher maximum alone is one extreme value against another, and more
missed periods come from stalls that each miss many periods at once: both
are shown as changes, never a regression by themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rtgauge.analysis.tail import TailTest, tail_test
from rtgauge.model import Bundle, Record


def system_name(b: Bundle) -> str:
    """What a history follows: the host, or for a guest its kernel."""
    if b.target.get("kind") == "qemu":
        extra = f" {b.target['append']}" if b.target.get("append") else ""
        return f"guest {b.system['host']['release']}{extra}"
    return b.host


def headline(test: Record) -> Record | None:
    """The figure a history follows for a test: the all-CPU one when there is
    one, else the one with the highest maximum."""
    metrics = [m for m in test["metrics"] if m["count"]]
    for m in metrics:
        if m["name"].endswith(".all"):
            return dict(m)
    return max(metrics, key=lambda m: m["max"] or 0, default=None)


def tail_value(m: Record) -> tuple[str, float | None]:
    """The highest percentile the samples back."""
    for key, name in (("p99_99", "p99.99"), ("p99_9", "p99.9"), ("p99", "p99")):
        if m.get(key) is not None:
            return name, float(m[key])
    return "p99", None


def missed(test: Record) -> int | None:
    value = (test.get("info") or {}).get("missed_periods")
    if isinstance(value, dict):
        return sum(int(v) for v in value.values() if isinstance(v, int))
    return int(value) if isinstance(value, int) else None


def signature(b: Bundle, test: Record) -> tuple[Any, ...]:
    """What must be equal for two runs of a test to be compared."""
    c = test["conditions"]
    return (
        sorted(test["options"].items(), key=lambda kv: kv[0]),
        c["policy"],
        c["prio"],
        c["mlockall"],
        sorted(c["cpus"]),
        b.target.get("kind"),
    )


@dataclass(frozen=True)
class Finding:
    test: str
    name: str  # the metric or verdict
    kind: str  # "verdict", "tail", "max", "missed"
    regression: bool
    evidence: str
    older: str  # the older run's created_at


@dataclass
class RunEntry:
    bundle: Bundle
    findings: list[Finding] = field(default_factory=list)

    @property
    def regressed(self) -> bool:
        return any(f.regression for f in self.findings)


@dataclass
class History:
    system: str
    label: str | None
    runs: list[RunEntry]  # oldest first


def _test(b: Bundle, test_id: str) -> Record | None:
    return next((t for t in b.tests if t["id"] == test_id), None)


def compare_runs(old: Bundle, new: Bundle, test_id: str) -> list[Finding]:
    """Findings for one test between two comparable runs (pure)."""
    t_old, t_new = _test(old, test_id), _test(new, test_id)
    assert t_old is not None and t_new is not None
    out: list[Finding] = []
    when = old.created_at
    verdicts_old = {v["name"]: v for v in t_old["verdicts"]}
    for v in t_new["verdicts"]:
        before = verdicts_old.get(v["name"])
        if before is not None and before["pass"] and not v["pass"]:
            evidence = f"passed before ({before['observed']}); now fails: {v['observed']}"
            out.append(Finding(test_id, v["name"], "verdict", True, evidence, when))
        elif before is not None and not before["pass"] and v["pass"]:
            out.append(Finding(test_id, v["name"], "verdict", False, "failed before; passes", when))
    metrics_old = {m["name"]: m for m in t_old["metrics"] if m["count"]}
    for m in t_new["metrics"]:
        before = metrics_old.get(m["name"])
        if before is None or not m["count"]:
            continue
        tt: TailTest = tail_test(before, m)
        if tt.threshold_ns is not None:
            out.append(Finding(test_id, m["name"], "tail", tt.worse, tt.evidence, when))
        if m["max"] is not None and before["max"] is not None and m["max"] > before["max"]:
            note = (
                f"max {m['max'] / 1e3:,.2f} µs against {before['max'] / 1e3:,.2f} µs: "
                "a single extreme value, not tested"
            )
            out.append(Finding(test_id, m["name"], "max", False, note, when))
    mo, mn = missed(t_old), missed(t_new)
    if mo is not None and mn is not None and mn > mo:
        note = f"{mn} missed periods against {mo}: counted, not tested (stalls miss them in bursts)"
        out.append(Finding(test_id, "missed periods", "missed", False, note, when))
    return out


def build(bundles: list[Bundle]) -> list[History]:
    """Group runs by (system, label), oldest first, each run compared per test
    with the latest earlier run of the same group that ran it with the same
    options and conditions."""
    groups: dict[tuple[str, str | None], list[Bundle]] = {}
    for b in sorted(bundles, key=lambda b: b.created_at):
        groups.setdefault((system_name(b), b.run_label), []).append(b)
    out = []
    for (system, label), runs in groups.items():
        entries = [RunEntry(b) for b in runs]
        for i, entry in enumerate(entries):
            for t in entry.bundle.tests:
                if t["status"] in ("error", "skipped", "interrupted"):
                    continue
                sig = signature(entry.bundle, t)
                for prev in reversed(entries[:i]):
                    pt = _test(prev.bundle, t["id"])
                    if pt is None or pt["status"] in ("error", "skipped", "interrupted"):
                        continue
                    if signature(prev.bundle, pt) == sig:
                        entry.findings += compare_runs(prev.bundle, entry.bundle, t["id"])
                        break
        out.append(History(system, label, entries))
    return out
