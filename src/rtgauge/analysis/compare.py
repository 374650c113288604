"""Several runs side by side: per figure, the system with the lowest worst
case and whether a test backs it (Mann-Whitney U on the per-block maxima,
which unlike samples are close to independent); verdicts side by side;
strong and weak points.

Averages are shown and never marked: the samples they average are not
independent (one stall delays several wake-ups), so a test on them calls
differences of a fraction of a microsecond "beyond chance", and the blocks
carry each block's maximum and count, not its sum, so no per-block mean can
be tested instead. No test of an average is stated (docs/history.md).
Partial figures (a test in error or interrupted) are shown and compared
with nothing."""

from __future__ import annotations

from dataclasses import dataclass, field

from rtgauge.analysis.likeness import kind, run_name
from rtgauge.analysis.stats import NO_BLOCKS, RankTest, rank_test, smallest_p
from rtgauge.analysis.tail_data import full_maxima, same_span
from rtgauge.fmt import us
from rtgauge.model import Metric, Verdict
from rtgauge.run import Run

ALPHA = 0.01  # a difference is claimed only below this p-value
MARGIN = 0.05  # and the probability of superiority away from 1/2 by more than this
AVERAGES = "averages of dependent samples: no test stated"


@dataclass(frozen=True)
class TailTest:
    """The lowest max's figure (a) against another (b), on their full blocks'
    maxima: two-sided Mann-Whitney U, or why not tested."""

    why: str  # "" when tested
    rank: RankTest | None = None

    @property
    def p(self) -> float | None:
        return None if self.rank is None else self.rank.p_two_sided

    @property
    def lower(self) -> bool:
        """a's block maxima lower than b's beyond chance, by a margin that matters."""
        r = self.rank
        return r is not None and r.p_two_sided < ALPHA and r.superiority > 0.5 + MARGIN

    @property
    def higher(self) -> bool:
        """a's block maxima higher beyond chance: the lowest max is not backed."""
        r = self.rank
        return r is not None and r.p_two_sided < ALPHA and r.superiority < 0.5 - MARGIN


def tail_test(a: Metric, b: Metric) -> TailTest:
    if a.blocks is None or b.blocks is None:
        return TailTest(NO_BLOCKS)
    a_blocks, b_blocks = same_span(a.blocks, b.blocks)
    x = [float(v) for v in full_maxima(a_blocks)]
    y = [float(v) for v in full_maxima(b_blocks)]
    if 2 * smallest_p(len(x), len(y)) >= ALPHA:
        return TailTest(f"not testable: too few full blocks ({len(x)} and {len(y)})")
    return TailTest("", rank_test(x, y))


@dataclass
class Row:
    test: str
    metric: str
    per_system: list[Metric | None]  # the metric of each system, or None
    partial: list[bool] = field(default_factory=list)  # per system: figures partial
    emulated: list[bool] = field(default_factory=list)  # per system: shown, never ranked
    unmet: list[bool] = field(default_factory=list)  # per system: its condition did not hold
    best_max: int | None = None  # index of the system with the lowest max
    tail_significant: bool = False  # best max's block maxima lower than each other's
    tails: list[TailTest] = field(default_factory=list)  # best max vs each other

    @property
    def tail_tested(self) -> bool:
        return bool(self.tails) and all(not t.why for t in self.tails)

    def tail_text(self) -> str:
        """The max claim and the test behind it (on block maxima), or why there is none."""
        if not self.tails:
            return "—"
        if not self.tail_tested:
            why = next(t.why for t in self.tails if t.why)
            return f"max: {why}"
        worst = max(self.tails, key=lambda t: t.p or 0.0)
        assert worst.rank is not None
        n = " and ".join(str(k) for k in worst.rank.n)
        p = f"Mann-Whitney on block maxima p = {worst.p:.2g}, {n} blocks"
        if self.tail_significant:
            return f"max: block maxima lower beyond chance ({p})"
        higher = next((t for t in self.tails if t.higher), None)
        if higher is not None and higher.rank is not None:
            return (
                "max: lowest max not backed: its block maxima are higher beyond chance "
                f"(Mann-Whitney on block maxima p = {higher.p:.2g}, "
                f"{' and '.join(str(k) for k in higher.rank.n)} blocks)"
            )
        if worst.p is not None and worst.p < ALPHA:
            return f"max: block maxima differ beyond chance but too little to matter ({p})"
        return f"max: difference within chance ({p})"


@dataclass
class Comparison:
    labels: list[str]
    runs: list[Run]
    rows: list[Row] = field(default_factory=list)


def _name(r: Run) -> str:
    """A guest has no host name worth showing: its kernel says what it is."""
    release = r.system.host.release
    if r.target.kind == "qemu":
        extra = f" {r.target.append}" if r.target.append else ""
        return f"guest {release}{extra}"
    return f"{r.host} {release}"


def labels_for(runs: list[Run]) -> list[str]:
    """Distinct, readable names: host and kernel, then what tells them apart;
    runs still alike (one system measured twice) by label, time and kind."""
    base = [_name(r) for r in runs]
    out: list[str] = []
    for i, r in enumerate(runs):
        label = base[i]
        if base.count(label) > 1:
            extra = [r.target.kind]
            if r.target.place:  # boards of a lab often share host and kernel
                extra[0] += f" {r.target.place}"
            extra.append("FIFO" if r.conditions.rt_policy_ok else "no FIFO")
            if r.target.append:
                extra.append(r.target.append)
            label = f"{label} ({', '.join(extra)})"
        out.append(label)
    alike = {x for x in out if out.count(x) > 1}
    out = [run_name(r) if x in alike else x for x, r in zip(out, runs, strict=True)]
    # the same label, minute and kind: the time to the second, then (the same
    # bundle given twice) its place in the command
    alike = {x for x in out if out.count(x) > 1}
    out = [
        f"{r.label or r.host}, {r.created_at}, {kind(r)}" if x in alike else x
        for x, r in zip(out, runs, strict=True)
    ]
    return [f"{x} (run {i + 1})" if out.count(x) > 1 else x for i, x in enumerate(out)]


def compare(runs: list[Run]) -> Comparison:
    comp = Comparison(labels_for(runs), runs)
    keys: list[tuple[str, str]] = []
    for r in runs:
        for t in r.tests:
            for m in t.metrics:
                if (t.id, m.name) not in keys:
                    keys.append((t.id, m.name))
    for test, name in keys:
        per: list[Metric | None] = []
        for r in runs:
            found = None
            for t in r.tests:
                if t.id == test:
                    found = next((m for m in t.metrics if m.name == name and m.count), None)
            per.append(found)
        partial = [
            m is not None and not r.conditions.figures_usable(test)
            for r, m in zip(runs, per, strict=True)
        ]
        unmet = [
            m is not None and r.conditions.figure_unmet(test, name) is not None
            for r, m in zip(runs, per, strict=True)
        ]
        emulated = [
            m is not None and not r.conditions.timing_meaningful
            for r, m in zip(runs, per, strict=True)
        ]
        comp.rows.append(judge_row(Row(test, name, per, partial, emulated, unmet)))
    return comp


def judge_row(row: Row) -> Row:
    """The system with the lowest max among usable figures, marked only when
    the block maxima back it; averages are not judged (AVERAGES)."""
    present = [
        (i, m)
        for i, m in enumerate(row.per_system)
        if m is not None
        and not (row.partial and row.partial[i])
        and not (row.emulated and row.emulated[i])  # an emulated run's timings are not ranked
        and not (row.unmet and row.unmet[i])  # not measured under what its name says
    ]
    if len(present) < 2:
        return row
    row.best_max = min(present, key=lambda x: _value(x[1].max))[0]
    lowest = row.per_system[row.best_max]
    assert lowest is not None
    row.tails = [tail_test(lowest, m) for i, m in present if i != row.best_max]
    row.tail_significant = row.tail_tested and all(t.lower for t in row.tails)
    return row


def _value(v: float | None) -> float:
    """A statistic of a figure with samples (never null there)."""
    assert v is not None
    return v


def verdict_table(comp: Comparison) -> list[tuple[str, str, list[Verdict | None]]]:
    """Each verdict of any run, with each run's (None: not in that run)."""
    names: list[tuple[str, str]] = []
    for r in comp.runs:
        for t in r.tests:
            for v in t.verdicts:
                if (t.id, v.name) not in names:
                    names.append((t.id, v.name))
    out = []
    for test, name in names:
        cells: list[Verdict | None] = []
        for r in comp.runs:
            found = next(
                (v for t in r.tests if t.id == test for v in t.verdicts if v.name == name),
                None,
            )
            cells.append(found)
        out.append((test, name, cells))
    return out


def points(comp: Comparison) -> list[tuple[list[str], list[str]]]:
    """Per system: (strong points, weak points), each a sentence with its figure."""
    out = []
    n = len(comp.runs)
    for i, run in enumerate(comp.runs):
        good: list[str] = []
        bad: list[str] = []
        cond = run.conditions
        bad += [r for r in cond.reasons if not r.startswith("hypervisor")]
        verdicts = [v for t in run.tests for v in t.verdicts]
        failed = [v.name for v in verdicts if v.failed]
        differ = [v for v in verdicts if v.documented]
        if verdicts and not failed and not differ:
            good.append(f"all {len(verdicts)} behaviour verdicts pass")
        if failed:
            bad.append(f"{len(failed)} behaviour verdict(s) fail: {', '.join(failed[:4])}")
        if differ:
            names = ", ".join(v.name for v in differ[:4])
            os = run.system.host.os
            bad.append(
                f"{len(differ)} behaviour verdict(s) differ from their standard, as {os} "
                f"documents (not failures): {names}"
            )
        errors = [t.id for t in run.tests if t.status == "error"]
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
                and not (r.unmet and r.unmet[i])
            ]
            for r in sorted(wins, key=lambda r: -_ratio(r, i))[:3]:
                m = r.per_system[i]
                assert m is not None
                good.append(f"best worst case in {r.test} {r.metric}: {us(m.max)} µs")
            for r in sorted(losses, key=lambda r: _ratio(r, i), reverse=True)[:3]:
                m = r.per_system[i]
                assert m is not None and r.best_max is not None
                bm = r.per_system[r.best_max]
                assert bm is not None
                bad.append(
                    f"{r.test} {r.metric}: max {us(m.max)} µs against "
                    f"{us(bm.max)} µs on {comp.labels[r.best_max]}"
                )
        out.append((good, bad))
    return out


def _ratio(r: Row, i: int) -> float:
    """How far apart system i and the others are on a row's max: for the
    best, the runner-up over it; for the others, it over the best."""
    mine = r.per_system[i]
    if mine is None or r.best_max is None:
        return 0.0
    others = [_value(m.max) for j, m in enumerate(r.per_system) if m is not None and j != i]
    if not others:
        return 0.0
    if r.best_max == i:
        return min(others) / max(_value(mine.max), 1.0)
    return _value(mine.max) / max(min(others + [_value(mine.max)]), 1.0)
