"""Did a knob help? The one decision per figure, on its rounds pooled.

The test is the one history uses for a regression (analysis/tail.py), asked
both ways round: "before" worse than "after" is help, "after" worse than
"before" is harm. Each asks whether one side's per-block maxima tend to
exceed FACTOR times the other's (Mann-Whitney) or more of its blocks exceed
FACTOR times the other's tail percentile (Fisher's exact test, each count
weighed at its design effect: clustered stalls count as fewer independent
blocks), each at ALPHA / 2. Block maxima, not samples: one stall delays
several wake-ups in a row. The rounds are interleaved (A B A B ...), so a
drift of the host falls on both sides alike.

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


def decide(before: Metric, after: Metric) -> Decision:
    """helped, worse, no effect (within chance) or not testable."""
    helped = tail_test(after, before)  # is "before" worse than "after"?
    if not helped.tested:
        return Decision("not testable", None, helped.why)
    if helped.worse:
        return Decision(
            "helped",
            _p(helped),
            f"helped beyond chance (p = {_p(helped):.2g}, below {EACH:g}): "
            + _evidence(helped, "before", "after"),
        )
    harmed = tail_test(before, after)  # is "after" worse than "before"?
    if harmed.tested and harmed.worse:
        return Decision(
            "worse",
            _p(harmed),
            f"worse beyond chance (p = {_p(harmed):.2g}, below {EACH:g}): "
            + _evidence(harmed, "after", "before"),
        )
    ps = [p for p in (_p(helped), _p(harmed) if harmed.tested else None) if p is not None]
    p = min(ps) if ps else None
    if p is not None and p < EACH:  # one test saw a shift, the tail line moved against it
        t = helped if helped.beyond_chance else harmed
        assert t.old_tail is not None and t.new_tail is not None
        return Decision(
            "no effect",
            p,
            f"no effect claimed: the block maxima differ beyond chance (p = {p:.2g}) but the "
            f"{t.threshold_name} moved the other way ({t.new_tail / 1e3:,.2f} against "
            f"{t.old_tail / 1e3:,.2f} µs)",
        )
    said = f"p = {p:.2g}, not below {EACH:g}" if p is not None else f"no p below {EACH:g}"
    return Decision(
        "no effect",
        p,
        f"no effect beyond chance ({said}): " + _evidence(helped, "before", "after"),
    )
