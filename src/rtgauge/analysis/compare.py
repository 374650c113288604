"""Several runs side by side: per figure, the better system and whether the
difference is significant, each claim tested for what it says (the bulk of
the distribution: Mann-Whitney U; its tail: exceedances of the pooled p99,
Fisher's exact test); verdicts side by side; strong and weak points.
Partial figures (a test in error or interrupted) are shown and compared
with nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rtgauge.analysis.stats import BulkTest, TailTest, mann_whitney, tail_test
from rtgauge.conditions import run_conditions
from rtgauge.fmt import us
from rtgauge.model import Bundle

ALPHA = 0.01  # a difference is claimed only below this p-value


@dataclass
class Row:
    test: str
    metric: str
    per_system: list[dict[str, Any] | None]  # the metric of each system, or None
    partial: list[bool] = field(default_factory=list)  # per system: figures partial
    emulated: list[bool] = field(default_factory=list)  # per system: shown, never ranked
    best_max: int | None = None  # index of the system with the lowest max
    best_mean: int | None = None
    significant: bool = False  # best mean vs each other: beyond chance (Mann-Whitney)
    bulk: list[BulkTest] = field(default_factory=list)  # best mean vs each other
    tail_significant: bool = False  # best max's tail lighter than each other's (Fisher)
    tails: list[TailTest] = field(default_factory=list)  # best max vs each other

    @property
    def tail_tested(self) -> bool:
        return bool(self.tails) and all(t.p is not None for t in self.tails)

    def bulk_text(self) -> str:
        """The mean claim and the test behind it."""
        if not self.bulk:
            return "—"
        worst = max(self.bulk, key=lambda t: t.p)
        p = f"Mann-Whitney p = {worst.p:.2g}, {worst.method}"
        return f"avg: sig. ({p})" if self.significant else f"avg: no significant difference ({p})"

    def tail_text(self) -> str:
        """The max claim and the test behind it, or why there is none."""
        if not self.tails:
            return "—"
        if not self.tail_tested:
            return f"max: {NOT_TESTED_TEXT}"
        worst = max(self.tails, key=lambda t: t.p or 0.0)
        assert worst.threshold_ns is not None and worst.p is not None
        where = f"above {us(worst.threshold_ns)} µs (pooled p99), Fisher p = {worst.p:.2g}"
        if self.tail_significant:
            return f"max: fewer samples {where}"
        return f"max: no significant difference {where}"


NOT_TESTED_TEXT = "single extreme value, not tested"


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
    conds = [run_conditions(b) for b in bundles]
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
        partial = [
            m is not None and not cond.figures_usable(test)
            for cond, m in zip(conds, per, strict=True)
        ]
        emulated = [
            m is not None and not cond.timing_meaningful for cond, m in zip(conds, per, strict=True)
        ]
        comp.rows.append(judge_row(Row(test, name, per, partial, emulated)))
    return comp


def judge_row(row: Row) -> Row:
    """The better system on the mean and on the max, among usable figures,
    each backed by its own test or not marked."""
    present = [
        (i, m)
        for i, m in enumerate(row.per_system)
        if m is not None
        and not (row.partial and row.partial[i])
        and not (row.emulated and row.emulated[i])  # an emulated run's timings are not ranked
    ]
    if len(present) < 2:
        return row
    row.best_mean = min(present, key=lambda x: x[1]["mean"])[0]
    best = row.per_system[row.best_mean]
    assert best is not None
    row.bulk = [mann_whitney(best, m) for i, m in present if i != row.best_mean]
    row.significant = all(t.p < ALPHA and abs(t.superiority - 0.5) > 0.05 for t in row.bulk)
    row.best_max = min(present, key=lambda x: x[1]["max"])[0]
    lowest = row.per_system[row.best_max]
    assert lowest is not None
    row.tails = [tail_test(lowest, m) for i, m in present if i != row.best_max]
    row.tail_significant = row.tail_tested and all(
        t.p is not None
        and t.p < ALPHA
        and t.above[0] / max(int(lowest["count"]), 1) < t.above[1] / max(int(m["count"]), 1)
        for t, (i, m) in zip(row.tails, [x for x in present if x[0] != row.best_max], strict=True)
    )
    return row


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
        if n >= 2 and cond.timing_meaningful:  # an emulated run has no timing points
            # A worst case is a strong or weak point only when a tail test backs it.
            wins = [r for r in comp.rows if r.best_max == i and r.tail_significant]
            losses = [
                r
                for r in comp.rows
                if r.per_system[i] is not None
                and r.best_max is not None
                and r.best_max != i
                and r.tail_significant
                and not (r.partial and r.partial[i])
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
