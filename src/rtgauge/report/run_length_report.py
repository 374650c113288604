"""What a run's length proves, in words: one line per latency test in every
run report ("10,000 samples with 0 above 100 µs: miss rate ≤ 3.0e-4 at
95 %"), and the table of `rtgauge plan` (the samples a claim needs)."""

from __future__ import annotations

from rtgauge.analysis.run_length import Plan, Proof
from rtgauge.report.document import Block, Cell, Heading, Para, Table


def rate_text(x: float, digits: int = 2) -> str:
    """A small probability as 3.0e-4 (digits significant figures), a larger
    one as 0.26."""
    if x >= 0.01 or x == 0:
        return f"{x:.{digits}g}"
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def given_rate(x: float) -> str:
    """A rate as the user would write it: 1e-9, 2.5e-6, 0.001."""
    text = f"{x:g}"
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    return f"{mantissa}e{int(exponent)}"


def percent(confidence: float) -> str:
    return f"{confidence * 100:g} %"


def time_text(ns: float) -> str:
    """A latency or a period with its unit: 100 µs, 1 ms, 2.5 s."""
    for unit, size in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= size:
            return f"{ns / size:g} {unit}"
    return f"{ns:g} ns"


def frequency_text(period_ns: float) -> str:
    hz = 1e9 / period_ns
    for unit, size in (("MHz", 1e6), ("kHz", 1e3)):
        if hz >= size:
            return f"{hz / size:.3g} {unit}"
    return f"{hz:.3g} Hz"


def duration_text(ns: float) -> str:
    """How long a run lasts, three figures: 4.2 s, 50 min, 34.7 days, 95 years."""
    s = ns / 1e9
    for unit, size, below in (
        ("s", 1.0, 120.0),
        ("min", 60.0, 7200.0),
        ("h", 3600.0, 48 * 3600.0),
        ("days", 86400.0, 730 * 86400.0),
    ):
        if s < below:
            return f"{s / size:.3g} {unit}"
    years = s / (365.25 * 86400)
    return f"{years:.3g} years" if years < 1000 else f"{years:,.0f} years"


def proof_line(p: Proof) -> str:
    """What one figure's samples back, against the budget, in one line."""
    c, budget = p.count, time_text(p.budget_ns)
    if p.samples_only:
        seen = f"{c.samples:,} samples with {c.above:,} above {budget}"
    else:
        others = (
            (c.missed_periods, "missed periods"),
            (c.overruns, "overruns"),
            (c.lost, "lost samples"),
        )
        parts = [f"{c.above:,} above {budget}"] + [f"{n:,} {what}" for n, what in others if n]
        seen = f"{c.activations:,} activations with {c.misses:,} misses ({', '.join(parts)})"
    line = (
        f"{p.test} {p.metric}: {seen}: miss rate ≤ {rate_text(p.upper)} at {percent(p.confidence)}"
    )
    return line + (f" (not claimed: {p.limit})" if p.limit else "")


def proved_blocks(proofs: tuple[Proof, ...] | list[Proof]) -> list[Block]:
    """The run report's section: a line per latency test, and what it means."""
    if not proofs:
        return []
    p0 = proofs[0]
    out: list[Block] = [Heading(2, "What this run's length proved", "proved")]
    out += [Para(proof_line(p)) for p in proofs]
    out.append(
        Para(
            f"The exact (Clopper–Pearson) {percent(p0.confidence)} upper bound on the miss "
            f"rate, a miss being a sample above {time_text(p0.budget_ns)}, a missed period, "
            "an overrun or a lost sample: the bound the deadline verdict uses. A stricter "
            "claim needs a longer run; rtgauge plan says how long.",
            "note",
        )
    )
    return out


def plan_claim(p: Plan) -> str:
    return (
        f"miss rate ≤ {given_rate(p.rate)} at {percent(p.confidence)} confidence, "
        f"a miss being a sample above {time_text(p.deadline_ns)}"
    )


def plan_blocks(p: Plan) -> list[Block]:
    """`rtgauge plan`: the samples, and the run length at the period, per count of misses."""
    at = f"at {time_text(p.period_ns)} ({frequency_text(p.period_ns)})"
    rows = [
        [Cell(f"{r.misses:,}"), Cell(f"{r.samples:,}"), Cell(duration_text(r.duration_ns))]
        for r in p.rows
    ]
    lead = [
        Para(f"With no miss: {r.samples:,} samples, {duration_text(r.duration_ns)} {at}.", "lead")
        for r in p.rows
        if r.misses == 0
    ]
    return [
        Heading(1, f"rtgauge plan: {plan_claim(p)}"),
        *lead,
        Para(
            "The samples a run must have for the exact (Clopper–Pearson) upper bound on "
            f"the miss rate, with this many misses among them, to be at or below "
            f"{given_rate(p.rate)}; with no miss, n = ⌈ln(1 − C) / ln(1 − R)⌉.",
            "note",
        ),
        Table(["misses", "samples", f"run length {at}"], rows),
    ]
