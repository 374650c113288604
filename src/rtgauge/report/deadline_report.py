"""What a report says about a deadline: the empirical verdict with its bound,
the pWCET estimate with its curve, and the caveats in words. Run reports show
one system; comparisons put the systems side by side and on one curve."""

from __future__ import annotations

import math
from collections import defaultdict

from rtgauge.analysis.deadline_claim import DeadlineClaim
from rtgauge.analysis.pwcet import NOT_APPLICABLE, PROBABILITIES, Interval, Pwcet
from rtgauge.analysis.requirements import MEETS, MISSES, DeadlineVerdict, hours_text
from rtgauge.fmt import us
from rtgauge.report.document import Block, Cell, Chart, Details, Heading, Notice, Para, Table
from rtgauge.report.pwcet_chart import pwcet_svg


def heading(c: DeadlineClaim) -> Heading:
    return Heading(
        2,
        f"Deadline {us(c.deadline_ns)} µs at a miss rate of {c.rate:g} "
        f"({c.confidence * 100:g} % confidence)",
        "deadline",
    )


def how_decided(c: DeadlineClaim) -> Para:
    return Para(
        "A miss is a sample above the deadline (a histogram bucket straddling it counts whole), "
        "an overflowed sample, a missed period, a timer overrun or a lost sample; every "
        "activation counts. The verdict is 'meets' only when the exact (Clopper–Pearson) "
        f"{c.confidence * 100:g} % upper bound on the miss rate is at or below {c.rate:g}; "
        "'misses' when the observed rate is above it; otherwise 'not enough samples', with "
        "the count that would back the claim.",
        "note",
    )


def verdict_cell(v: DeadlineVerdict) -> Cell:
    if v.outcome == MEETS:
        if v.green:
            return Cell("meets", "pass")
        return Cell(f"meets, not claimed: {v.green_withheld}")
    if v.outcome == MISSES:
        return Cell("misses", "fail") if v.red else Cell(f"misses, not claimed: {v.green_withheld}")
    return Cell(v.outcome, "muted")


def _rate(x: float | None) -> str:
    return "—" if x is None else f"{x:.3g}"


def _needed(v: DeadlineVerdict) -> str:
    if v.needed is None:
        return "—" if v.outcome != "not enough samples" else "none can (zero rate)"
    hours = v.hours_needed
    return f"{v.needed:,}" + ("" if hours is None else f" ({hours_text(hours)})")


def verdict_rows(v: DeadlineVerdict, first: list[Cell]) -> list[Cell]:
    c = v.count
    return first + [
        verdict_cell(v),
        Cell(f"{c.misses:,} / {c.activations:,}"),
        Cell(_rate(v.observed_rate)),
        Cell(_rate(v.upper)),
        Cell(_rate(v.per_hour(v.upper))),
        Cell(_needed(v)),
        Cell(us(v.margin_ns)),
    ]


def evidence(vs: list[DeadlineVerdict], labels: list[str] | None = None) -> Details:
    names = labels or [f"{v.test} {v.metric}" for v in vs]
    items = [f"{name}: {v.explanation()}" for name, v in zip(names, vs, strict=True)]
    return Details("how each verdict was reached", [Notice("Evidence per figure", items, "note")])


def verdict_headers(c: DeadlineClaim) -> list[str]:
    conf = f"{c.confidence * 100:g} %"
    return [
        "verdict",
        "misses / activations",
        "rate per activation",
        f"upper bound ({conf})",
        "upper bound per hour",
        "activations needed (hours)",
        f"margin to the {1 - c.rate:.12g} quantile (µs)",
    ]


def time_text(ns: float) -> str:
    """A latency with its unit, three figures: pWCET estimates span µs to hours."""
    if not math.isfinite(ns):
        return "∞"
    for unit, size in (("s", 1e9), ("ms", 1e6)):
        if abs(ns) >= size:
            return f"{ns / size:,.3g} {unit}"
    return f"{ns / 1e3:.3g} µs"


def _interval_time(i: Interval | None) -> str:
    if i is None:
        return "—"
    if i.low is None or i.high is None:
        return time_text(i.estimate)
    return f"{time_text(i.estimate)} [{time_text(i.low)} – {time_text(i.high)}]"


def _interval_p(i: Interval | None) -> str:
    if i is None:
        return "—"
    if i.low is None or i.high is None:
        return f"{i.estimate:.3g}"
    return f"{i.estimate:.3g} [{i.low:.3g}–{i.high:.3g}]"


def pwcet_row(r: Pwcet, first: list[Cell]) -> list[Cell]:
    if r.status == NOT_APPLICABLE:
        return (
            first + [Cell(r.status, "muted")] + [Cell("—") for _ in range(4 + len(PROBABILITIES))]
        )
    shape = _interval_p(r.shape)
    if r.heavy:
        shape += ": heavy tail, no finite bound"
    elif r.endpoint_ns is not None and r.shape is not None:
        reaches = r.shape.high is None or r.shape.high >= 0  # a heavy tail not excluded
        end = time_text(r.endpoint_ns)
        shape += (
            f": fitted end {end}, not safe (interval reaches ξ ≥ 0)"
            if reaches
            else f": bounded at {end}"
        )
    latency = [_interval_time(r.at.get(p)) for p in PROBABILITIES]
    if r.heavy:  # an extrapolation of a heavy tail is an estimate, never a bound
        latency = [f"≈ {x}, not a bound" for x in latency]
    return (
        first
        + [
            Cell(r.status),
            Cell(time_text(r.threshold_ns or 0)),
            Cell(f"{r.exceedances:,} of {r.samples:,}"),
            Cell(shape),
        ]
        + [Cell(x) for x in latency]
        + [Cell(_interval_p(r.deadline_probability))]
    )


def pwcet_headers(c: DeadlineClaim) -> list[str]:
    conf = f"{c.confidence * 100:g} %"
    return (
        ["pWCET", "threshold", "exceedances", f"shape ξ [{conf}]"]
        + [f"latency at {p:g} [{conf}]" for p in PROBABILITIES]
        + [f"P(latency > {us(c.deadline_ns)} µs) [{conf}]"]
    )


def pwcet_details(r: Pwcet, label: str = "") -> Details:
    rows = [
        [
            Cell(ch.name),
            Cell({True: "holds", False: "rejected", None: "not run"}[ch.ok]),
            Cell(ch.words),
        ]
        for ch in r.checks
    ]
    blocks: list[Block] = [
        Para(f"{r.status}: {r.reason}.", "note"),
        Table(["what EVT assumes", "", "test"], rows),
    ]
    if r.caveats:
        blocks.append(Notice("What this estimate does not promise", r.caveats, "note"))
    who = f"{label}: " if label else ""
    return Details(f"{who}EVT checks and caveats for {r.metric}", blocks)


def curve_caption(rs: list[tuple[str, Pwcet]], c: DeadlineClaim) -> str:
    return (
        f"{rs[0][1].test}: exceedance probability against latency, both log scales; dots are "
        f"measured (from the histogram), lines the fitted generalized Pareto tail with its "
        f"{c.confidence * 100:g} % band; the red line is the deadline, the dotted one the "
        "tolerated miss rate"
    )


def _last(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def run_section(c: DeadlineClaim) -> list[Block]:
    out: list[Block] = [heading(c), how_decided(c)]
    if c.withheld:
        out.append(Para(f"No green verdict for this run: {c.withheld}.", "warn"))
    if not c.verdicts:
        return out + [Para("No latency figure in this run to judge.", "note")]
    out.append(
        Table(
            ["test", "figure"] + verdict_headers(c),
            [verdict_rows(v, [Cell(v.test), Cell(v.metric)]) for v in c.verdicts],
        )
    )
    out.append(evidence(c.verdicts))
    if not c.pwcets:
        return out
    out.append(Heading(3, "Probabilistic worst case (extreme value theory)", "pwcet"))
    out.append(
        Table(
            ["test", "figure"] + pwcet_headers(c),
            [pwcet_row(r, [Cell(r.test), Cell(r.metric)]) for r in c.pwcets],
        )
    )
    by_test: dict[str, list[Pwcet]] = defaultdict(list)
    for r in c.pwcets:
        by_test[r.test].append(r)
    for test, rs in by_test.items():
        series = [(_last(r.metric), r) for r in rs]
        svg = pwcet_svg(f"pWCET of {test}", series, c.deadline_ns, c.rate)
        if svg:
            out.append(Chart(svg, curve_caption(series, c)))
        for r in rs:
            if r.status == NOT_APPLICABLE:
                out.append(Para(f"{r.metric}: not applicable, {r.reason}.", "note"))
            out.append(pwcet_details(r))
    return out


def compare_section(labels: list[str], claims: list[DeadlineClaim]) -> list[Block]:
    c0 = claims[0]
    out: list[Block] = [heading(c0), how_decided(c0)]
    rows = []
    shown: list[tuple[str, DeadlineVerdict]] = []
    for label, c in zip(labels, claims, strict=True):
        if not c.verdicts:
            rows.append([Cell(label), Cell("no latency figure", "muted")] + [Cell("—")] * 7)
            continue
        order = {MISSES: 0, "not enough samples": 1, MEETS: 2}
        worst = min(c.verdicts, key=lambda v: (order[v.outcome], -v.upper))
        rows.append(verdict_rows(worst, [Cell(label), Cell(f"{worst.test} {worst.metric}")]))
        shown.append((label, worst))
    out.append(Table(["system", "worst figure"] + verdict_headers(c0), rows))
    if shown:
        out.append(evidence([v for _, v in shown], [f"{lbl}, {v.metric}" for lbl, v in shown]))
    out.append(
        Para("Each system's row is its worst figure: a miss first, then the highest bound.", "note")
    )
    tests: dict[str, list[tuple[str, Pwcet]]] = defaultdict(list)
    for label, c in zip(labels, claims, strict=True):
        per_test: dict[str, list[Pwcet]] = defaultdict(list)
        for r in c.pwcets:
            per_test[r.test].append(r)
        for test, own in per_test.items():  # a second figure of one test is named
            for r in own:
                tests[test].append((label if len(own) == 1 else f"{label} {_last(r.metric)}", r))
    if not tests:
        return out
    out.append(Heading(3, "Probabilistic worst case (extreme value theory)", "pwcet"))
    out.append(
        Table(
            ["system", "figure"] + pwcet_headers(c0),
            [pwcet_row(r, [Cell(lbl), Cell(r.metric)]) for rs in tests.values() for lbl, r in rs],
        )
    )
    for test, rs in tests.items():
        svg = pwcet_svg(f"pWCET of {test}", rs, c0.deadline_ns, c0.rate)
        if svg:
            out.append(Chart(svg, curve_caption(rs, c0)))
        for lbl, r in rs:
            if r.status == NOT_APPLICABLE:
                out.append(Para(f"{lbl}, {r.metric}: not applicable, {r.reason}.", "note"))
            out.append(pwcet_details(r, lbl))
    return out
