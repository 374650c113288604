"""Several runs side by side: per figure, the better system and whether the
difference is significant; verdicts side by side; strong and weak points."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rtgauge.analysis.stats import significant
from rtgauge.conditions import run_conditions
from rtgauge.fmt import us
from rtgauge.model import Bundle


@dataclass
class Row:
    test: str
    metric: str
    per_system: list[dict[str, Any] | None]  # the metric of each system, or None
    best_max: int | None = None  # index of the system with the lowest max
    best_mean: int | None = None
    significant: bool = False  # best mean vs the others: beyond chance


@dataclass
class Comparison:
    labels: list[str]
    bundles: list[Bundle]
    rows: list[Row] = field(default_factory=list)


def _name(b: Bundle) -> str:
    """A guest has no host name worth showing: its kernel says what it is."""
    release = b.system["host"]["release"]
    if b.target.get("kind") == "qemu":
        extra = f" {b.target['append']}" if b.target.get("append") else ""
        return f"guest {release}{extra}"
    return f"{b.host} {release}"


def labels_for(bundles: list[Bundle]) -> list[str]:
    """Distinct, readable names: host and kernel, then what tells them apart."""
    base = [_name(b) for b in bundles]
    out: list[str] = []
    for i, b in enumerate(bundles):
        label = base[i]
        if base.count(label) > 1:
            extra = [str(b.target.get("kind", "local"))]
            if b.target.get("place"):  # boards of a lab often share host and kernel
                extra[0] += f" {b.target['place']}"
            extra.append("FIFO" if run_conditions(b).rt_policy_ok else "no FIFO")
            if b.target.get("append"):
                extra.append(str(b.target["append"]))
            label = f"{label} ({', '.join(extra)})"
        if label in out:
            label = f"{label} #{i + 1}"
        out.append(label)
    return out


def compare(bundles: list[Bundle]) -> Comparison:
    comp = Comparison(labels_for(bundles), bundles)
    keys: list[tuple[str, str]] = []
    for b in bundles:
        for t in b.tests:
            for m in t["metrics"]:
                if (t["id"], m["name"]) not in keys:
                    keys.append((t["id"], m["name"]))
    for test, name in keys:
        per = []
        for b in bundles:
            found = None
            for t in b.tests:
                if t["id"] == test:
                    found = next(
                        (m for m in t["metrics"] if m["name"] == name and m["count"]), None
                    )
            per.append(found)
        row = Row(test, name, per)
        present = [(i, m) for i, m in enumerate(per) if m is not None]
        if len(present) >= 2:
            row.best_max = min(present, key=lambda x: x[1]["max"])[0]
            row.best_mean = min(present, key=lambda x: x[1]["mean"])[0]
            best = per[row.best_mean]
            assert best is not None
            row.significant = all(significant(best, m) for i, m in present if i != row.best_mean)
        comp.rows.append(row)
    return comp


def verdict_table(comp: Comparison) -> list[tuple[str, str, list[bool | None]]]:
    names: list[tuple[str, str]] = []
    for b in comp.bundles:
        for t in b.tests:
            for v in t["verdicts"]:
                if (t["id"], v["name"]) not in names:
                    names.append((t["id"], v["name"]))
    out = []
    for test, name in names:
        cells: list[bool | None] = []
        for b in comp.bundles:
            v = next(
                (v for t in b.tests if t["id"] == test for v in t["verdicts"] if v["name"] == name),
                None,
            )
            cells.append(None if v is None else bool(v["pass"]))
        out.append((test, name, cells))
    return out


def points(comp: Comparison) -> list[tuple[list[str], list[str]]]:
    """Per system: (strong points, weak points), each a sentence with its figure."""
    out = []
    n = len(comp.bundles)
    for i, b in enumerate(comp.bundles):
        good: list[str] = []
        bad: list[str] = []
        cond = run_conditions(b)
        bad += [r for r in cond.reasons if not r.startswith("hypervisor")]
        verdicts = [v for t in b.tests for v in t["verdicts"]]
        failed = [v["name"] for v in verdicts if not v["pass"]]
        if verdicts and not failed:
            good.append(f"all {len(verdicts)} behaviour verdicts pass")
        if failed:
            bad.append(f"{len(failed)} behaviour verdict(s) fail: {', '.join(failed[:4])}")
        errors = [t["id"] for t in b.tests if t["status"] == "error"]
        if errors:
            bad.append(f"tests in error: {', '.join(errors)}")
        if n >= 2:
            wins = [r for r in comp.rows if r.best_max == i and r.significant]
            losses = [
                r
                for r in comp.rows
                if r.per_system[i] is not None
                and r.best_max is not None
                and r.best_max != i
                and r.significant
            ]
            for r in sorted(wins, key=lambda r: -_ratio(r, i))[:3]:
                m = r.per_system[i]
                assert m is not None
                good.append(f"best worst case in {r.test} {r.metric}: {us(m['max'])} µs")
            for r in sorted(losses, key=lambda r: _ratio(r, i), reverse=True)[:3]:
                m = r.per_system[i]
                assert m is not None and r.best_max is not None
                bm = r.per_system[r.best_max]
                assert bm is not None
                bad.append(
                    f"{r.test} {r.metric}: max {us(m['max'])} µs against "
                    f"{us(bm['max'])} µs on {comp.labels[r.best_max]}"
                )
        out.append((good, bad))
    return out


def _ratio(r: Row, i: int) -> float:
    """How far apart system i and the others are on a row's max: for the
    best, the runner-up over it; for the others, it over the best."""
    mine = r.per_system[i]
    if mine is None or r.best_max is None:
        return 0.0
    others = [float(m["max"]) for j, m in enumerate(r.per_system) if m is not None and j != i]
    if not others:
        return 0.0
    if r.best_max == i:
        return min(others) / max(float(mine["max"]), 1.0)
    return float(mine["max"]) / max(min(others + [float(mine["max"])]), 1.0)
