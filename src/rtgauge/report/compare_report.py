"""What a comparison report says: ratings first, then verdicts, deadlines,
the figures side by side with the better value marked, and charts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from rtgauge.analysis.compare import Comparison, compare, points, verdict_table
from rtgauge.analysis.ratings import criteria_lines, overall, rate, stars_text
from rtgauge.analysis.requirements import deadline_verdicts
from rtgauge.fmt import FAMILIES, family, us
from rtgauge.model import Bundle
from rtgauge.report import plots
from rtgauge.report.document import Block, Cell, Chart, Heading, Para, Report, Table
from rtgauge.report.run_report import CLAIM_STYLE, trust_warnings, verdict_text


def rating_blocks(comp: Comparison, criteria: dict[str, Any]) -> list[Block]:
    ratings = [rate(b, criteria) for b in comp.bundles]
    fams = []
    for rs in ratings:
        for r in rs:
            if r.family not in fams:
                fams.append(r.family)
    rows = [[Cell("overall")] + [Cell(stars_text(overall(rs))) for rs in ratings]]
    for fam in fams:
        row = [Cell(f"{fam} — {FAMILIES.get(fam, fam)}")]
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
    for label, (good, bad), b in zip(comp.labels, points(comp), comp.bundles, strict=True):
        out.append(Heading(3, label))
        out += [Para(f"+ {g}") for g in good] or [Para("+ nothing stands out", "note")]
        out += [
            Para(
                f"− {x}",
                "warn" if x.startswith(("emulated", "no SCHED_FIFO", "no mlockall")) else "",
            )
            for x in bad
        ]
        del b
    return out


def verdict_blocks(comp: Comparison) -> list[Block]:
    rows = []
    for test, name, cells in verdict_table(comp):
        row = [Cell(test), Cell(name)]
        for c in cells:
            row.append(
                Cell("—", "muted")
                if c is None
                else Cell("PASS", "pass")
                if c
                else Cell("FAIL", "fail")
            )
        rows.append(row)
    if not rows:
        return [Heading(2, "Behaviour verdicts"), Para("No behaviour test in these runs.", "note")]
    return [
        Heading(2, "Behaviour verdicts", "verdicts"),
        Table(["test", "verdict", *comp.labels], rows),
    ]


def deadline_blocks(comp: Comparison, deadline: float, rate_: float) -> list[Block]:
    out: list[Block] = [
        Heading(2, f"Deadline {us(deadline)} µs at a miss rate of {rate_:g}", "deadline")
    ]
    rows = []
    for label, b in zip(comp.labels, comp.bundles, strict=True):
        vs = deadline_verdicts(b, deadline, rate_)
        if not vs:
            rows.append(
                [Cell(label), Cell("no latency figure", "muted"), Cell("—"), Cell("—"), Cell("—")]
            )
            continue
        worst = max(vs, key=lambda v: (v.observed_rate, -(v.margin_ns or 0)))
        meets = all(v.meets for v in vs)
        backed = all(v.backed for v in vs)
        claims = {v.claim for v in vs}
        claim = "missed" if "missed" in claims else "met" if claims == {"met"} else "not claimed"
        rows.append(
            [
                Cell(label),
                Cell(verdict_text(meets, backed, vs[0].limit), CLAIM_STYLE[claim]),
                Cell(f"{worst.metric}: {worst.observed_rate:.2g}"),
                Cell(us(worst.margin_ns)),
                Cell(worst.caveat),
            ]
        )
    out.append(
        Table(["system", "verdict", "worst observed miss rate", "margin µs", "evidence"], rows)
    )
    return out


def figures_blocks(comp: Comparison) -> list[Block]:
    out: list[Block] = [
        Heading(2, "Figures side by side (µs)", "figures"),
        Para(
            "Better value in bold green, only where a test backs the claim. "
            "Averages: Mann-Whitney U on the histograms (exact below 60 samples "
            "in all), p < 0.01 and a probability of superiority away from ½ by "
            "more than 0.05. Worst cases: how often each system exceeds the "
            "pooled p99, compared with Fisher's exact test (p < 0.01); with too "
            "few samples a max is a single extreme value, not tested, and not "
            "marked. Partial figures (a test that did not finish) are shown and "
            "compared with nothing.",
            "note",
        ),
    ]
    by_fam: dict[str, list[Any]] = defaultdict(list)
    for r in comp.rows:
        by_fam[family(r.test)].append(r)
    for fam, rows in by_fam.items():
        out.append(Heading(3, f"{fam} — {FAMILIES.get(fam, fam)}"))
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
                    tr += [Cell(f"{us(m['mean'])} (partial)", "muted")]
                    tr += [Cell(f"{us(m['max'])} (partial)", "muted")]
                    continue
                tr.append(
                    Cell(us(m["mean"]), "better" if r.best_mean == i and r.significant else "")
                )
                tr.append(
                    Cell(us(m["max"]), "better" if r.best_max == i and r.tail_significant else "")
                )
            claims = [r.bulk_text(), r.tail_text()] if r.bulk else ["—"]
            tr.append(
                Cell("; ".join(claims), "" if r.significant or r.tail_significant else "muted")
            )
            trs.append(tr)
        out.append(Table(header, trs))
        for stat in ("max", "mean"):
            groups: dict[str, dict[str, float]] = {}
            for r in rows:
                if sum(m is not None for m in r.per_system) < 2:
                    continue
                key = f"{r.test} {r.metric.rsplit('.', 1)[-1]}"
                groups[key] = {
                    comp.labels[i]: float(m[stat]) for i, m in enumerate(r.per_system) if m
                }
            groups = dict(list(groups.items())[:8])
            svg = plots.bars_svg(f"{fam}: {stat} per system", groups)
            if svg:
                out.append(
                    Chart(svg, f"{fam}: {'average' if stat == 'mean' else 'worst case'} per system")
                )
    return out


def compare_blocks(
    comp: Comparison, criteria: dict[str, Any], deadline: float | None, rate_: float
) -> list[Block]:
    out: list[Block] = [Heading(1, "rtgauge comparison: " + " · ".join(comp.labels))]
    for label, b in zip(comp.labels, comp.bundles, strict=True):
        for w in trust_warnings(b):
            out.append(Para(f"{label}: {w}", "warn"))
    sys_rows = []
    getters: list[tuple[str, Callable[[Bundle], str]]] = [
        ("kernel", lambda b: f"{b.system['host']['release']} {b.system['host']['version']}"),
        ("preemption", lambda b: str(b.system["kernel"]["preempt_model"])),
        (
            "target",
            lambda b: (
                str(b.target.get("kind", "local"))
                + (f" ({b.target.get('accel')})" if b.target.get("accel") else "")
            ),
        ),
        ("CPU", lambda b: f"{b.system['cpu']['online']} × {b.system['cpu']['model']}"),
        (
            "SCHED_FIFO / mlockall",
            lambda b: (
                f"{b.system['privileges']['sched_fifo']} / {b.system['privileges']['mlockall']}"
            ),
        ),
        (
            "clock, floor",
            lambda b: (
                f"{b.system['clock']['source']}, {b.system['clock']['floor_ns']['mean']:.0f} ns"
            ),
        ),
        ("tests", lambda b: f"{len(b.tests)}" + ("" if b.complete else " (incomplete run)")),
    ]
    for key, get in getters:
        sys_rows.append([Cell(key)] + [Cell(get(b)) for b in comp.bundles])
    out += [Table(["", *comp.labels], sys_rows)]
    out += rating_blocks(comp, criteria)
    out += verdict_blocks(comp)
    if deadline is not None:
        out += deadline_blocks(comp, deadline, rate_)
    out += points_blocks(comp)
    out += figures_blocks(comp)
    return out


def compare_report(
    bundles: list[Bundle], criteria: dict[str, Any], deadline: float | None, rate_: float
) -> Report:
    """The comparison of several runs, ready for any exporter."""
    blocks = compare_blocks(compare(bundles), criteria, deadline, rate_)
    return Report("rtgauge comparison", blocks, bundles)
