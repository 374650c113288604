"""Deadline verdicts: does a measured latency distribution meet a deadline at a
tolerated miss rate, with what margin, and how many samples back the claim."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rtgauge.conditions import run_conditions
from rtgauge.model import Bundle

# The figures a deadline speaks about: wake-up and interrupt response latency.
LATENCY = re.compile(r"^(timer\.wakeup|irq)\.")


@dataclass
class DeadlineVerdict:
    test: str
    metric: str
    count: int
    misses_max: int  # samples that may exceed the deadline (buckets straddling it count)
    misses_min: int  # samples that surely exceed it
    observed_rate: float
    quantile_ns: float | None  # the (1 - miss rate) quantile
    margin_ns: float | None  # deadline - that quantile (negative: missed)
    meets: bool
    backed: bool  # enough samples to support the tolerated rate (rule of three)
    caveat: str
    limit: str | None = None  # set: the run's conditions forbid claiming the deadline met
    meaningful: bool = True  # False: emulated, a miss says nothing about the OS either

    @property
    def claim(self) -> str:
        """'met' (may be shown green), 'missed' (red), or 'not claimed': met but
        unbacked, or measured under conditions that cannot support the claim."""
        if not self.meets:
            return "missed" if self.meaningful else "not claimed"
        return "met" if self.backed and self.limit is None else "not claimed"


def misses(metric: dict[str, Any], deadline_ns: float) -> tuple[int, int]:
    """(surely above, possibly above) the deadline, from the histogram."""
    sure = possible = int(metric["hist"]["overflow"])
    for lo, hi, n in metric["hist"]["buckets"]:
        if lo > deadline_ns:
            sure += n
            possible += n
        elif hi - 1 > deadline_ns:
            possible += n
    return sure, possible


def quantile(metric: dict[str, Any], q: float) -> float | None:
    total = metric["count"]
    if not total:
        return None
    rank = max(1, int(-(-q * total // 1)))
    seen = 0
    for _, hi, n in metric["hist"]["buckets"]:
        seen += n
        if seen >= rank:
            return float(min(hi - 1, metric["max"]))
    return float(metric["max"])


def judge(test: str, metric: dict[str, Any], deadline_ns: float, rate: float) -> DeadlineVerdict:
    n = int(metric["count"])
    sure, possible = misses(metric, deadline_ns)
    observed = possible / n if n else 1.0
    q = quantile(metric, 1.0 - rate) if rate > 0 else (float(metric["max"]) if n else None)
    margin = deadline_ns - q if q is not None else None
    meets = n > 0 and observed <= rate
    need = 3.0 / rate if rate > 0 else float("inf")
    backed = n >= need
    if rate == 0:
        caveat = f"{n} samples; no sample count can prove a zero miss rate"
    elif backed:
        caveat = f"{n} samples back a miss rate below {rate:g} at 95% confidence"
    else:
        caveat = (
            f"only {n} samples: zero misses in them would bound the miss rate at {3 / max(n, 1):.2g} "
            f"(95%); {need:,.0f} are needed to back {rate:g}"
        )
    return DeadlineVerdict(
        test, metric["name"], n, possible, sure, observed, q, margin, meets, backed, caveat
    )


def deadline_verdicts(bundle: Bundle, deadline_ns: float, rate: float) -> list[DeadlineVerdict]:
    cond = run_conditions(bundle)
    limit = None if cond.deadline_verdict_allowed else cond.timing_limit
    out = []
    for t in bundle.tests:
        # Partial figures are judged for the reader but claim nothing either way.
        usable = cond.figures_usable(t["id"])
        for m in t["metrics"]:
            if LATENCY.match(m["name"]) and m["count"]:
                v = judge(t["id"], m, deadline_ns, rate)
                v.limit = limit if usable else f"partial figures ({t['id']} {t['status']})"
                v.meaningful = cond.timing_meaningful and usable
                out.append(v)
    return out
