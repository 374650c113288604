"""Calibrated limits: from the stored runs of an unchanged system, a limit per
figure (a test's metric, its max or p99.99) that a new run of that system
exceeds with a stated probability, the false-alarm rate.

The method is distribution-free: the unit is the run, and the limit is an
upper order statistic of the runs' values. If the n stored runs and a new
one are exchangeable (the same system, unchanged: no run is special), the
new run's value is equally likely to fall in any of the n + 1 places among
them, so it exceeds the k-th largest of the n with probability k / (n + 1)
exactly (at most that with ties), whatever the distribution. For a rate r
the limit is the k-th largest with k = floor(r (n + 1)); k must be at least
1, so a rate r needs n >= 1/r - 1 runs (1 %: 99), and n runs support at
best 1 / (n + 1). Fewer runs than the rate needs are said, never stretched
by a fit (docs/history.md, "Calibrated limits").

A limit holds for runs that measure the same thing: the test's options and
conditions (policy, priority, memory locking, CPUs, kind of target) are
kept with each limit, and a run measured otherwise is not checked against
it. Everything here is a pure function of the runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from rtgauge.model import Metric, TestRecord
from rtgauge.run import Run

LIMITS_VERSION = 1
METHOD = "order-statistic"
STATS = (("max", "max"), ("p99.99", "p99_99"))  # (name in the file, record key)
SKIP = ("error", "skipped", "interrupted")  # a test that gave no usable figures


def rank_for(rate: float, n: int) -> int:
    """k: the limit is the k-th largest of n runs (0: n runs cannot support the rate)."""
    return math.floor(rate * (n + 1) + 1e-9)


def best_rate(n: int) -> float:
    """The lowest false-alarm rate n runs can support: 1 / (n + 1)."""
    return 1.0 / (n + 1)


def runs_needed(rate: float) -> int:
    """The fewest runs for a rate: k = 1 needs n + 1 >= 1 / rate."""
    return max(1, math.ceil(1.0 / rate - 1e-9) - 1)


def order_limit(values: list[float], rate: float) -> tuple[float, int] | None:
    """(the k-th largest of values, k) for a false-alarm rate; None when the
    values are too few to support it."""
    k = rank_for(rate, len(values))
    if k < 1:
        return None
    return sorted(values, reverse=True)[k - 1], k


def pct(rate: float) -> str:
    """A rate as a percentage, to two significant figures (9.1 %, 1 %, 0.5 %)."""
    return f"{100 * rate:.2g} %"


def conditions_of(r: Run, t: TestRecord) -> dict[str, Any]:
    """What must be equal, beside the options, for a limit to apply."""
    c = t.conditions
    return {
        "policy": c.policy,
        "prio": c.prio,
        "mlockall": c.mlockall,
        "cpus": sorted(c.cpus),
        "target": r.target.kind,
    }


@dataclass(frozen=True)
class Limit:
    test: str
    metric: str
    stat: str  # "max" or "p99.99"
    limit_ns: float
    runs: int  # n: the runs it rests on
    rank: int  # k: the limit is the k-th largest of them
    options: dict[str, Any]
    conditions: dict[str, Any]

    @property
    def false_alarm(self) -> float:
        """The probability that a new run of the unchanged system exceeds it."""
        return self.rank / (self.runs + 1)

    def describe(self) -> str:
        return (
            f"{self.limit_ns / 1e3:,.2f} µs (false-alarm rate {pct(self.false_alarm)}, "
            f"from {self.runs} runs)"
        )

    def applies(self, r: Run, t: TestRecord) -> str:
        """ "" when a run's test measured what this limit is about, else why not."""
        if dict(t.options) != self.options:
            return "not checked: the test ran with other options than the calibrated runs"
        if conditions_of(r, t) != self.conditions:
            return "not checked: the test ran under other conditions than the calibrated runs"
        return ""


@dataclass(frozen=True)
class Uncalibrated:
    test: str
    metric: str
    stat: str
    why: str


@dataclass
class Limits:
    """A label's calibrated limits, as written to the file and the store."""

    label: str
    system: str
    created_at: str
    asked: float  # the false-alarm rate asked for, per figure
    runs: int  # the runs of the label considered
    first: str  # created_at of the oldest and the newest of them
    last: str
    limits: list[Limit] = field(default_factory=list)
    uncalibrated: list[Uncalibrated] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"calibrated limits of label {self.label} ({self.system}): {len(self.limits)} "
            f"figures from {self.runs} runs ({self.first} … {self.last}), "
            f"false-alarm rate asked {pct(self.asked)} per figure"
        )


def _value(m: Metric, key: str) -> float | None:
    v = m.stat(key)
    return None if v is None else float(v)


def _calibrate_test(runs: list[Run], test_id: str, rate: float, out: Limits) -> None:
    """One test's limits, on the runs that ran it as the newest run did."""
    ran = [(r, t) for r in runs if (t := r.test(test_id)) is not None and t.status not in SKIP]
    if not ran:
        return
    newest_run, newest = ran[-1]
    options, conds = dict(newest.options), conditions_of(newest_run, newest)
    same = [(r, t) for r, t in ran if dict(t.options) == options and conditions_of(r, t) == conds]
    if len(same) < len(ran):
        out.notes.append(
            f"{test_id}: {len(ran) - len(same)} of {len(ran)} runs left out: other options or "
            "conditions than the newest run's"
        )
    names: list[str] = []
    for _, t in same:
        names += [m.name for m in t.metrics if m.count and m.unit == "ns" and m.name not in names]
    for name in names:
        for stat, key in STATS:
            values = [
                v
                for _, t in same
                if (m := t.metric(name)) is not None
                and m.count
                and (v := _value(m, key)) is not None
            ]
            n = len(values)
            if not n:
                why = f"no run's samples back its {stat}"
                out.uncalibrated.append(Uncalibrated(test_id, name, stat, why))
                continue
            got = order_limit(values, rate)
            if got is None:
                why = (
                    f"{n} runs support a false-alarm rate of {pct(best_rate(n))} at best; "
                    f"{pct(rate)} needs at least {runs_needed(rate)} runs"
                )
                out.uncalibrated.append(Uncalibrated(test_id, name, stat, why))
                continue
            limit, k = got
            out.limits.append(Limit(test_id, name, stat, limit, n, k, options, conds))


def calibrate(runs: list[Run], label: str, system: str, rate: float, now: str) -> Limits:
    """Limits per figure of every test of `runs` (one system's runs of one
    label, oldest first) at the false-alarm rate `rate` per figure."""
    runs = sorted(runs, key=lambda r: r.created_at)
    out = Limits(label, system, now, rate, len(runs), runs[0].created_at, runs[-1].created_at)
    tests: list[str] = []
    for r in runs:
        tests += [t.id for t in r.tests if t.id not in tests]
    for test_id in tests:
        _calibrate_test(runs, test_id, rate, out)
    return out


@dataclass(frozen=True)
class LimitCheck:
    limit: Limit
    value_ns: float | None  # the run's figure; None: not checked
    why: str  # "" when checked

    @property
    def checked(self) -> bool:
        return not self.why

    @property
    def exceeded(self) -> bool:
        return self.checked and self.value_ns is not None and self.value_ns > self.limit.limit_ns

    @property
    def name(self) -> str:
        return f"{self.limit.metric} {self.limit.stat}"

    def evidence(self) -> str:
        lim = self.limit
        if not self.checked:
            return self.why
        assert self.value_ns is not None
        where = "above" if self.exceeded else "within"
        return f"{lim.stat} {self.value_ns / 1e3:,.2f} µs: {where} the calibrated limit {lim.describe()}"


def check_run(limits: Limits, r: Run) -> list[LimitCheck]:
    """Each limit against a run's figure (pure): exceeded, within, or why not checked."""
    out: list[LimitCheck] = []
    keys = dict(STATS)
    for lim in limits.limits:
        t = r.test(lim.test)
        if t is None or t.status in SKIP:
            why = "not in this run" if t is None else f"{t.status} in this run, no figures"
            out.append(LimitCheck(lim, None, f"not checked: the test is {why}"))
            continue
        why = lim.applies(r, t)
        m = t.metric(lim.metric)
        value = None if m is None or not m.count else _value(m, keys[lim.stat])
        if not why and value is None:
            why = f"not checked: this run's samples do not back its {lim.stat}"
        out.append(LimitCheck(lim, value, why))
    return out
