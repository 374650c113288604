"""Did a knob help? The one decision per figure, on its rounds pooled.

The test is the one history uses for a regression (analysis/tail.py), asked
both ways round: "before" worse than "after" is help, "after" worse than
"before" is harm. Each asks whether one side's per-block maxima tend to
exceed FACTOR times the other's (Mann-Whitney) or more of its blocks exceed
FACTOR times the other's tail percentile (Fisher's exact test, each count
weighed at its design effect: clustered stalls count as fewer independent
blocks), each at ALPHA / 2. Block maxima, not samples: one stall delays
several wake-ups in a row. The rounds are interleaved (A B A B ...), so a
drift of the host falls on both sides alike. As history does, a shift is
claimed only when the tail line did not move against it (guard_line: here
the highest percentile with ten samples above it on each side).

The sentence is made from the decision and its figures only, so it cannot
say otherwise than the outcome."""

from __future__ import annotations

from rtgauge.analysis.tail import EACH, FACTOR, TailTest, tail_test
from rtgauge.model import Metric
from rtgauge.tune.result import Decision, Side


def side(m: Metric, rounds: int, blocks: int) -> Side:
    assert m.max is not None
    return Side(rounds, m.count, float(m.max), m.p99_99, m.p99, m.mean, blocks)


def _p(t: TailTest) -> float | None:
    ps = [p for p in (t.rank_p, t.fisher_p) if p is not None]
    return min(ps) if ps else None


def _evidence(t: TailTest, worse: str, better: str) -> str:
    """What the test saw, in the tune's words: `worse` is the side tested
    as the higher one."""
    parts = [
        f"a {worse} block maximum exceeds {FACTOR:g} × a {better} one in "
        f"{t.superiority:.0%} of pairs ({t.new_blocks} and {t.old_blocks} blocks, "
        f"one-sided Mann-Whitney p = {t.rank_p:.2g})"
    ]
    if t.threshold_ns is not None and t.fisher_p is not None:
        phi = ""
        if t.new_phi > 1.0 or t.old_phi > 1.0:
            phi = f", design effect {t.new_phi:.2g} and {t.old_phi:.2g}"
        parts.append(
            f"{t.new_above} of {t.new_blocks} {worse} blocks above {t.threshold_ns / 1e3:,.2f} µs "
            f"({FACTOR:g} × the {better} {t.threshold_name}) against {t.old_above} of "
            f"{t.old_blocks} {better}{phi}, one-sided Fisher p = {t.fisher_p:.2g}"
        )
    return "; ".join(parts)


GUARD_ABOVE = 10  # samples each side above the tail line the guard reads


def guard_line(before: Metric, after: Metric) -> tuple[str, float, float] | None:
    """The tail line that must not move against a shift the test found: the
    highest percentile with GUARD_ABOVE samples above it on each side. History
    reads the highest the samples back (p99.99 from 10,000 samples), where one
    run is long; a tune's pooled rounds hold some 12,000 samples, and there
    p99.99 is the second-highest sample: one stall of the host moves it."""
    n = min(before.count, after.count)
    for key, name, q in (
        ("p99_99", "p99.99", 1e-4),
        ("p99_9", "p99.9", 1e-3),
        ("p99", "p99", 1e-2),
    ):
        b, a = before.stat(key), after.stat(key)
        if n * q >= GUARD_ABOVE and b is not None and a is not None:
            return name, float(b), float(a)
    return None


def decide(before: Metric, after: Metric) -> Decision:
    """helped, worse, no effect (within chance) or not testable."""
    helped = tail_test(after, before)  # is "before" worse than "after"?
    if not helped.tested:
        return Decision("not testable", None, helped.why)
    harmed = tail_test(before, after)  # is "after" worse than "before"?
    line = guard_line(before, after)
    if helped.beyond_chance and (line is None or line[1] >= line[2]):
        return Decision(
            "helped",
            _p(helped),
            f"helped beyond chance (p = {_p(helped):.2g}, below {EACH:g}): "
            + _evidence(helped, "before", "after"),
        )
    if harmed.tested and harmed.beyond_chance and (line is None or line[2] >= line[1]):
        return Decision(
            "worse",
            _p(harmed),
            f"worse beyond chance (p = {_p(harmed):.2g}, below {EACH:g}): "
            + _evidence(harmed, "after", "before"),
        )
    ps = [p for p in (_p(helped), _p(harmed) if harmed.tested else None) if p is not None]
    p = min(ps) if ps else None
    if p is not None and p < EACH:  # a test saw a shift, the tail line moved against it
        assert line is not None
        name, b, a = line
        return Decision(
            "no effect",
            p,
            f"no effect claimed: the block maxima differ beyond chance (p = {p:.2g}) but the "
            f"{name} moved the other way ({b / 1e3:,.2f} µs before, {a / 1e3:,.2f} µs after)",
        )
    said = f"p = {p:.2g}, not below {EACH:g}" if p is not None else f"no p below {EACH:g}"
    return Decision(
        "no effect",
        p,
        f"no effect beyond chance ({said}): " + _evidence(helped, "before", "after"),
    )
