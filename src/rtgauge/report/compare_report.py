"""What a comparison report says: ratings first, then verdicts, deadlines,
the figures side by side with the better value marked, and charts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from rtgauge.analysis.analysed_run import AnalysedRun, Judging
from rtgauge.analysis.compare import AVERAGES, Comparison, Row, compare, points, verdict_table
from rtgauge.analysis.likeness import unlike
from rtgauge.analysis.ratings import criteria_lines, overall, rate, stars_text
from rtgauge.fmt import us
from rtgauge.model import Bundle, family
from rtgauge.report import plots
from rtgauge.report.answer import answers_table
from rtgauge.report.deadline_report import compare_section
from rtgauge.report.differences_report import differences_blocks
from rtgauge.report.document import Block, Cell, Chart, Heading, Para, Report, Table
from rtgauge.report.explain_section import compare_culprits
from rtgauge.report.run_report import trust_warnings
from rtgauge.run import Run


def family_heading(comp: Comparison, fam: str) -> str:
    """A family's id and title, as the first run holding one of its tests gives it."""
    title = next((t for r in comp.runs if (t := r.family_title(fam))), None)
    return f"{fam} — {title or fam}"


def rating_blocks(comp: Comparison, criteria: dict[str, Any]) -> list[Block]:
    ratings = [rate(r, criteria) for r in comp.runs]
    fams = []
    for rs in ratings:
        for r in rs:
            if r.family not in fams:
                fams.append(r.family)
    rows = [[Cell("overall")] + [Cell(stars_text(overall(rs))) for rs in ratings]]
    for fam in fams:
        row = [Cell(family_heading(comp, fam))]
        for rs in ratings:
            found = next((x for x in rs if x.family == fam), None)
            row.append(
                Cell(
                    "—"
                    if found is None
                    else found.why
                    if found.stars is None
                    else f"{stars_text(found.stars)}  {found.why}",
                    "muted" if found is None or found.stars is None else "",
                )
            )
        rows.append(row)
    crit = Table(
        ["criterion", "how it is rated"], [[Cell(a), Cell(b)] for a, b in criteria_lines(criteria)]
    )
    return [
        Heading(2, "Ratings", "ratings"),
        Table(["", *comp.labels], rows),
        Para("The criteria, from the data file that users can replace (--criteria):", "note"),
        crit,
    ]


def points_blocks(comp: Comparison) -> list[Block]:
    out: list[Block] = [Heading(2, "Strong and weak points", "points")]
    for label, (good, bad) in zip(comp.labels, points(comp), strict=True):
        out.append(Heading(3, label))
        out += [Para(f"+ {g}") for g in good] or [Para("+ nothing stands out", "note")]
        out += [
            Para(
                f"− {x}",
                "warn" if x.startswith(("emulated", "no SCHED_FIFO", "no mlockall")) else "",
            )
            for x in bad
        ]
    return out


def verdict_blocks(comp: Comparison) -> list[Block]:
    rows = []
    for test, name, cells in verdict_table(comp):
        row = [Cell(test), Cell(name)]
        for c in cells:
            row.append(
                Cell("—", "muted")
                if c is None
                else Cell(c.outcome_text if c.documented else c.mark, c.outcome)
            )
        rows.append(row)
    if not rows:
        return [Heading(2, "Behaviour verdicts"), Para("No behaviour test in these runs.", "note")]
    return [
        Heading(2, "Behaviour verdicts", "verdicts"),
        Table(["test", "verdict", *comp.labels], rows),
    ]


def _offer_cell(run: Run, test: str) -> Cell:
    t = run.test(test)
    if t is None:
        return Cell("not in this run", "muted")
    lacks = [n for n in t.notes if "not offered" in n]
    if t.status == "skipped":
        return Cell(f"skipped: {t.reason or ''}", "muted")
    if t.status == "error":
        return Cell(f"error: {t.reason or ''}", "fail")
    return Cell("ran" + (f"; {'; '.join(lacks)}" if lacks else ""))


def offers_blocks(comp: Comparison) -> list[Block]:
    """What each system could run: the tests one of them skipped, or ran
    only in part, or failed to finish, with the reason each gave."""
    tests: list[str] = []
    for r in comp.runs:
        for t in r.tests:
            partial = any("not offered" in n for n in t.notes)
            if (t.status in ("skipped", "error") or partial) and t.id not in tests:
                tests.append(t.id)
    if not tests:
        return []
    rows = [[Cell(test)] + [_offer_cell(r, test) for r in comp.runs] for test in tests]
    return [
        Heading(2, "What each system offers", "offers"),
        Para(
            "The tests a system skipped (what it lacks), ran in part (a mechanism or "
            "protocol it lacks) or could not finish, with its own reason.",
            "note",
        ),
        Table(["test", *comp.labels], rows),
    ]


def figures_blocks(comp: Comparison) -> list[Block]:
    out: list[Block] = [
        Heading(2, "Figures side by side (µs)", "figures"),
        Para(
            "Worst cases: the lowest in bold green, only where a test backs the "
            "claim: Mann-Whitney U on the maxima of each run's 100 ms blocks, close to "
            "independent unlike samples, two-sided p < 0.01 and a probability of "
            "superiority away from ½ by more than 0.05; a figure without block maxima "
            "is not testable and not marked. The words follow the p-value: below 0.01 "
            "beyond chance, else within chance. Averages are shown, never marked: "
            f"{AVERAGES} (the samples are not independent, and the blocks carry no "
            "sums to average per block). Partial figures (a test that did not finish) "
            "and those of an emulated run are shown and compared with nothing.",
            "note",
        ),
    ]
    by_fam: dict[str, list[Row]] = defaultdict(list)
    for r in comp.rows:
        by_fam[family(r.test)].append(r)
    for fam, rows in by_fam.items():
        out.append(Heading(3, family_heading(comp, fam)))
        header = ["test", "figure"]
        for label in comp.labels:
            header += [f"{label} avg", f"{label} max"]
        header.append("difference")
        trs = []
        for r in rows:
            tr = [Cell(r.test), Cell(r.metric)]
            for i, m in enumerate(r.per_system):
                if m is None:
                    tr += [Cell("—", "muted"), Cell("—", "muted")]
                    continue
                if r.partial and r.partial[i]:
                    tr += [Cell(f"{us(m.mean)} (partial)", "muted")]
                    tr += [Cell(f"{us(m.max)} (partial)", "muted")]
                    continue
                if r.emulated and r.emulated[i]:
                    tr += [Cell(f"{us(m.mean)} (emulated)", "muted")]
                    tr += [Cell(f"{us(m.max)} (emulated)", "muted")]
                    continue
                if r.unmet and r.unmet[i]:  # shown, never marked better
                    tr += [Cell(f"{us(m.mean)} (condition unmet)", "muted")]
                    tr += [Cell(f"{us(m.max)} (condition unmet)", "muted")]
                    continue
                tr.append(Cell(us(m.mean)))
                tr.append(
                    Cell(us(m.max), "better" if r.best_max == i and r.tail_significant else "")
                )
            claim = (
                r.tail_text()
                if r.tails
                else "not ranked: emulated timings"
                if any(r.emulated)
                else "—"
            )
            tr.append(Cell(claim, "" if r.tail_significant else "muted"))
            trs.append(tr)
        out.append(Table(header, trs))
        for stat in ("max", "mean"):
            groups: dict[str, dict[str, float]] = {}
            for r in rows:
                if sum(m is not None for m in r.per_system) < 2:
                    continue
                key = f"{r.test} {r.metric.rsplit('.', 1)[-1]}"
                groups[key] = {
                    comp.labels[i]: float(v)
                    for i, m in enumerate(r.per_system)
                    if m and (v := m.stat(stat)) is not None
                }
            groups = dict(list(groups.items())[:8])
            svg = plots.bars_svg(f"{fam}: {stat} per system", groups)
            if svg:
                out.append(
                    Chart(svg, f"{fam}: {'average' if stat == 'mean' else 'worst case'} per system")
                )
    return out


def compare_blocks(
    comp: Comparison, criteria: dict[str, Any], analysed: list[AnalysedRun]
) -> list[Block]:
    out: list[Block] = [
        Heading(1, "rtgauge comparison: " + " · ".join(comp.labels)),
        answers_table(analysed, comp.labels),
    ]
    for label, r in zip(comp.labels, comp.runs, strict=True):
        for w in trust_warnings(r):
            out.append(Para(f"{label}: {w}", "warn"))
    out += [Para(line, "warn") for line in unlike(comp.runs, comp.labels)]
    getters: list[tuple[str, Callable[[Run], str]]] = [
        ("kernel", lambda r: f"{r.system.host.release} {r.system.host.version}"),
        (
            "preemption",
            lambda r: str(r.system.kernel.preempt_model or r.system.kernel.preempt_source or "—"),
        ),
        (
            "target",
            lambda r: r.target.kind + (f" ({r.target.accel})" if r.target.accel else ""),
        ),
        ("CPU", lambda r: f"{r.system.cpu.online} × {r.system.cpu.model}"),
        (
            "SCHED_FIFO / mlockall",
            lambda r: f"{r.system.privileges.sched_fifo} / {r.system.privileges.mlockall}",
        ),
        (
            "clock, floor",
            lambda r: f"{r.system.clock.source}, {r.system.clock.floor_ns.mean:.0f} ns",
        ),
        ("tests", lambda r: f"{len(r.tests)}" + ("" if r.complete else " (incomplete run)")),
    ]
    sys_rows = [[Cell(key)] + [Cell(get(r)) for r in comp.runs] for key, get in getters]
    out += [Table(["", *comp.labels], sys_rows)]
    out += differences_blocks(comp.labels, comp.runs, [a.audit for a in analysed])
    out += rating_blocks(comp, criteria)
    out += verdict_blocks(comp)
    out += offers_blocks(comp)
    claims = [a.claim for a in analysed if a.claim is not None]
    if claims and len(claims) == len(analysed):
        out += compare_section(comp.labels, claims)
    out += points_blocks(comp)
    out += figures_blocks(comp)
    out += compare_culprits(analysed, comp.labels)
    return out


def compare_report(analysed: list[AnalysedRun], criteria: dict[str, Any]) -> Report:
    """The comparison of several analysed runs, ready for any exporter."""
    runs = [a.run for a in analysed]
    blocks = compare_blocks(compare(runs), criteria, analysed)
    return Report("rtgauge comparison", blocks, runs, analysed)


def bundles_report(
    bundles: list[Bundle],
    criteria: dict[str, Any],
    deadline: float | None,
    rate_: float,
    confidence: float = 0.95,
) -> Report:
    """The comparison of bundles, each read and analysed once with the same
    judging choices."""
    judging = Judging(deadline, rate_, confidence)
    return compare_report([AnalysedRun.of(b, judging) for b in bundles], criteria)
