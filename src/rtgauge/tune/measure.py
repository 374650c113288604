"""The measure half of `rtgauge tune`: for each knob worth trying, rounds of
the chosen latency tests on the measured CPUs with the system as found (A)
and with the knob applied (B), interleaved A B A B ..., then the knobs that
helped together, the same way. Each round is a real probe run with the
flight recorder on, so its worst samples are explained; each side's rounds
are pooled (pooled.py), decided on (decide.py), and their explanations
compared (shift.py).

The knobs, their changes and how a change is applied and undone are the
state half's (knobs.py, state.py); here they are anything shaped like them,
so tests can give their own."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.analysis.explain import Explanation
from rtgauge.errors import UsageError
from rtgauge.model import Bundle, Metric, Record, bundle_from_records, parse_line
from rtgauge.tune.decide import decide, side
from rtgauge.tune.pooled import pool
from rtgauge.tune.result import FigureTrial, NotTried, Shift, Trial
from rtgauge.tune.shift import shift

DEFAULT_TESTS = "TMR-P-LAT"
DEFAULT_ROUNDS = 4  # per side (docs/tune.md: how these were chosen)
DEFAULT_ROUND_MS = 3000


class ChangeLike(Protocol):
    @property
    def path(self) -> str: ...
    def command(self) -> str: ...


class CandidateLike(Protocol):
    @property
    def knob(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def why(self) -> str: ...
    @property
    def changes(self) -> Sequence[ChangeLike]: ...
    @property
    def boot(self) -> str | None: ...


# state.Applied: takes the state half's own Change (Any here: a callable of a
# narrower argument type is not one of ChangeLike's, though it is called with them)
Apply = Callable[[Sequence[Any]], AbstractContextManager[object]]


@dataclass(frozen=True)
class Round:
    """One probe run's figures and its kept windows' explanations."""

    figures: dict[tuple[str, str], Metric]
    windows: tuple[Explanation, ...]
    # what limits the round's figures (no SCHED_FIFO, no mlockall, a
    # hypervisor, an emulator), as the run's report says it; () for none
    conditions: tuple[str, ...] = ()


Prober = Callable[[], Round]  # runs one round on the system as it is now


@dataclass(frozen=True)
class Plan:
    cpus: str
    tests: str = DEFAULT_TESTS
    rounds: int = DEFAULT_ROUNDS
    round_ms: int = DEFAULT_ROUND_MS


def probe_args(plan: Plan) -> list[str]:
    """One round's probe command line: explanation on (the probe's default)."""
    return ["--tests", plan.tests, "--cpus", plan.cpus, "--duration-ms", str(plan.round_ms)]


def round_of(lines: Iterator[str], target: Record) -> Round:
    """A round from the probe's output lines."""
    records = [parse_line(line, "probe output") for line in lines]
    if not records:
        raise UsageError("the probe gave no records")
    bundle: Bundle = bundle_from_records(records, "probe output")
    bundle.target = target
    return round_from_bundle(bundle)


def round_from_bundle(bundle: Bundle) -> Round:
    analysed = AnalysedRun.of(bundle)
    figures: dict[tuple[str, str], Metric] = {}
    for t in analysed.run.tests:
        if t.status == "error":
            raise UsageError(f"{t.id} ended in error during a tune round")
        for m in t.metrics:
            if m.count and m.max is not None:
                figures[(t.id, m.name)] = m
    for test, name in list(figures):  # one CPU measured: its ".all" figure is the same samples
        if name.endswith(".all"):
            stem = name.removesuffix("all")
            cpus = [n for t, n in figures if t == test and n.startswith(stem) and n != name]
            if len(cpus) == 1 and figures[(test, cpus[0])].count == figures[(test, name)].count:
                del figures[(test, name)]
    windows = tuple(w.explanation for e in analysed.explained.values() for w in e.worst_windows)
    return Round(figures, windows, tuple(analysed.run.conditions.reasons))


def conditions_of(rounds: Sequence[tuple[str, ...]]) -> list[str]:
    """Each condition that limited the rounds' figures, with how many rounds
    it held in, in the order first seen."""
    counts: dict[str, int] = {}
    for held in rounds:
        for c in held:
            counts[c] = counts.get(c, 0) + 1
    return [f"{c} (in {n} of {len(rounds)} rounds)" for c, n in counts.items()]


@dataclass
class Sides:
    before: list[Round] = field(default_factory=list)
    after: list[Round] = field(default_factory=list)


def ab_rounds(
    prober: Prober,
    changes: Sequence[ChangeLike],
    apply: Apply,
    rounds: int,
    said: Callable[[str], None] = lambda _: None,
) -> Sides:
    """A B A B ...: the knob applied only for its B rounds, so a drift of the
    host falls on both sides alike and the system is as found between them."""
    sides = Sides()
    for i in range(rounds):
        said(f"round {i + 1}/{rounds} A (as found)")
        sides.before.append(prober())
        said(f"round {i + 1}/{rounds} B (applied)")
        with apply(changes):
            sides.after.append(prober())
    return sides


def trial_of(knob: str, title: str, why: str, commands: Sequence[str], sides: Sides) -> Trial:
    """The pooled sides decided on, figure by figure, and the explanation's shift."""
    keys = [k for k in sides.before[0].figures if all(k in r.figures for r in sides.before)]
    keys = [k for k in keys if all(k in r.figures for r in sides.after)]
    figures = []
    for k in keys:
        b = pool([r.figures[k] for r in sides.before])
        a = pool([r.figures[k] for r in sides.after])
        d = decide(b, a)
        nb = sum(1 for _ in _full(b))
        na = sum(1 for _ in _full(a))
        figures.append(
            FigureTrial(
                k[0], k[1], side(b, len(sides.before), nb), side(a, len(sides.after), na), d
            )
        )
    moved = shift(
        (w for r in sides.before for w in r.windows), (w for r in sides.after for w in r.windows)
    )
    return Trial(knob, title, why, tuple(commands), tuple(figures), moved)


def _full(m: Metric) -> list[float]:
    from rtgauge.analysis.tail_data import full_maxima

    return [] if m.blocks is None else [float(x) for x in full_maxima(m.blocks)]


@dataclass
class Outcome:
    trials: list[Trial]
    together: Trial | None
    not_tried: list[NotTried]
    seconds: float


def not_tried(c: CandidateLike) -> NotTried:
    return NotTried(c.knob, c.title, c.state, c.why, c.boot)


def tune(
    candidates: Sequence[CandidateLike],
    prober: Prober,
    apply: Apply,
    rounds: int,
    said: Callable[[str], None] = lambda _: None,
) -> Outcome:
    """Each "try" candidate alone, then the helpful ones together."""
    started = time.monotonic()
    trials: list[Trial] = []
    helped: list[CandidateLike] = []
    for c in candidates:
        if c.state != "try":
            continue
        said(f"{c.knob}: {c.title}")
        commands = [ch.command() for ch in c.changes]
        try:
            sides = ab_rounds(prober, c.changes, apply, rounds, said)
        except UsageError as exc:  # could not be applied (state.Applied says which)
            trials.append(Trial(c.knob, c.title, c.why, tuple(commands), (), _no_shift(), str(exc)))
            continue
        t = trial_of(c.knob, c.title, c.why, commands, sides)
        trials.append(t)
        said(f"{c.knob}: {t.outcome}")
        if t.outcome == "helped":
            helped.append(c)
    together = None
    if len(helped) > 1:
        changes = [ch for c in helped for ch in c.changes]
        title = " + ".join(c.knob for c in helped)
        said(f"together: {title}")
        why = "the knobs that helped alone, applied together"
        commands = [ch.command() for ch in changes]
        try:
            sides = ab_rounds(prober, changes, apply, rounds, said)
            together = trial_of("together", title, why, commands, sides)
        except UsageError as exc:
            together = Trial("together", title, why, tuple(commands), (), _no_shift(), str(exc))
    return Outcome(
        trials,
        together,
        [not_tried(c) for c in candidates if c.state != "try"],
        time.monotonic() - started,
    )


def _no_shift() -> Shift:
    return shift((), ())
