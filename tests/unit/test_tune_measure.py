"""rtgauge tune's measure half on synthetic rounds: pooling, the decision and
its sentence, the explanation's shift, the A/B order and what a change that
cannot be applied leaves."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from tune_rounds import metric, round_, window, with_outliers

from rtgauge.analysis.explain import parts as P
from rtgauge.analysis.requirements import quantile
from rtgauge.analysis.tail import EACH
from rtgauge.errors import UsageError
from rtgauge.tune.decide import decide
from rtgauge.tune.measure import Round, tune
from rtgauge.tune.pooled import pool
from rtgauge.tune.shift import DEVICE_IRQ, HYPERVISOR, shift


def test_pooling_sums_counts_keeps_the_max_and_lays_blocks_end_to_end() -> None:
    rng = random.Random(1)
    rounds = [metric(rng, 20_000.0) for _ in range(3)]
    p = pool(rounds)
    assert p.count == sum(m.count for m in rounds)
    assert p.max == max(m.max or 0 for m in rounds)
    assert p.blocks is not None
    assert len(p.blocks.maxima) == sum(len(m.blocks.maxima) for m in rounds if m.blocks)
    assert p.blocks.start_ms == sorted(p.blocks.start_ms)  # in the order the rounds ran
    assert p.p99 == quantile(p, 0.99)
    assert p.p99_99 is None  # fewer samples than the probe states it for


@pytest.mark.parametrize("seed", range(5))
def test_a_disturbance_removed_is_help_beyond_chance(seed: int) -> None:
    rng = random.Random(seed)
    before = pool([metric(rng, 60_000.0) for _ in range(4)])
    after = pool([metric(rng, 15_000.0) for _ in range(4)])
    d = decide(before, after)
    assert d.outcome == "helped"
    assert d.p is not None and d.p < EACH
    assert d.sentence.startswith("helped beyond chance") and f"{d.p:.2g}" in d.sentence


@pytest.mark.parametrize("seed", range(3))
def test_two_stalls_of_the_host_after_do_not_veto_a_clear_help(seed: int) -> None:
    rng = random.Random(seed)
    before = pool([metric(rng, 60_000.0) for _ in range(4)])
    after_rounds = [metric(rng, 15_000.0) for _ in range(4)]
    worst = int(before.max or 0)
    after_rounds[1] = with_outliers(after_rounds[1], [3 * worst, 4 * worst])
    after = pool(after_rounds)
    assert (after.p99_99 or 0) > (before.p99_99 or 0)  # the stalls are its p99.99
    d = decide(before, after)
    assert d.outcome == "helped", d.sentence


@pytest.mark.parametrize("seed", range(5))
def test_a_change_that_hurts_is_worse(seed: int) -> None:
    rng = random.Random(seed)
    before = pool([metric(rng, 15_000.0) for _ in range(4)])
    after = pool([metric(rng, 60_000.0) for _ in range(4)])
    d = decide(before, after)
    assert d.outcome == "worse"
    assert "worse beyond chance" in d.sentence


@pytest.mark.parametrize("seed", range(10))
def test_the_same_system_on_both_sides_is_no_effect(seed: int) -> None:
    rng = random.Random(100 + seed)
    before = pool([metric(rng, 20_000.0) for _ in range(4)])
    after = pool([metric(rng, 20_000.0) for _ in range(4)])
    d = decide(before, after)
    assert d.outcome == "no effect"
    assert "beyond chance" in d.sentence and "no effect" in d.sentence
    assert "helped" not in d.sentence and "worse beyond" not in d.sentence


def test_too_few_blocks_are_not_testable_and_say_so() -> None:
    rng = random.Random(3)
    d = decide(metric(rng, 60_000.0, blocks=2), metric(rng, 15_000.0, blocks=2))
    assert d.outcome == "not testable" and d.p is None
    assert "too few" in d.sentence


def test_shift_names_the_cause_that_moved_with_its_shares() -> None:
    before = [window({P.IRQ: 30_000, P.SWITCH: 10_000}) for _ in range(3)]
    after = [window({P.SWITCH: 10_000}) for _ in range(3)]
    s = shift(before, after)
    irq = next(x for x in s.shares if x.category == DEVICE_IRQ)
    assert irq.before == pytest.approx(30 / 40) and irq.after == 0.0
    assert f"{DEVICE_IRQ} share of the kept windows {round(100 * irq.before)} % → 0 %" in s.text
    assert not s.hypervisor and s.windows == (3, 3)


def test_shift_says_no_guest_setting_helps_when_the_hypervisor_dominates() -> None:
    before = [window({P.NO_EVENT: 50_000, P.IRQ: 5_000})]
    after = [window({P.NO_EVENT: 50_000, P.SWITCH: 5_000})]
    s = shift(before, after)
    assert s.hypervisor
    assert HYPERVISOR in s.text and "no guest setting can help" in s.text


def test_shift_without_windows_says_why() -> None:
    s = shift([], [window({P.IRQ: 1})])
    assert "no kept windows before" in s.text


@dataclass(frozen=True)
class FakeChange:
    path: str
    old: str
    new: str

    def command(self) -> str:
        return f"echo {self.new} > {self.path}"


@dataclass(frozen=True)
class FakeCandidate:
    knob: str
    title: str
    state: str
    why: str
    changes: tuple[FakeChange, ...]
    boot: str | None = None


class FakeSystem:
    """A system whose rounds are disturbed unless its knob "irq" is applied."""

    def __init__(self, fail_on: str = "", fail_together: bool = False) -> None:
        self.rng = random.Random(7)
        self.applied: set[str] = set()
        self.log: list[str] = []
        self.fail_on = fail_on
        self.fail_together = fail_together

    def prober(self) -> Round:
        quiet = "/irq" in self.applied
        self.log.append("B" if self.applied else "A")
        if quiet:
            return round_(self.rng, 15_000.0, {P.SWITCH: 10_000})
        return round_(self.rng, 60_000.0, {P.IRQ: 40_000, P.SWITCH: 10_000})

    @contextlib.contextmanager
    def apply(self, changes: Sequence[Any]) -> Iterator[None]:
        if self.fail_together and len(changes) > 1:
            raise UsageError("the two cannot be applied at once")
        if any(c.path == self.fail_on for c in changes):
            raise UsageError(f"{self.fail_on}: cannot be written")
        paths = {c.path for c in changes}
        self.applied |= paths
        try:
            yield
        finally:
            self.applied -= paths


def _cands() -> list[FakeCandidate]:
    return [
        FakeCandidate(
            "irq-affinity", "IRQs off", "try", "IRQ lands", (FakeChange("/irq", "1", "0"),)
        ),
        FakeCandidate("thp", "THP", "try", "THP on", (FakeChange("/thp", "always", "never"),)),
        FakeCandidate("idle-states", "idle", "boot-only", "needs a reboot", ()),
    ]


def test_tune_interleaves_rounds_and_restores_between_them() -> None:
    system = FakeSystem()
    out = tune(_cands(), system.prober, system.apply, rounds=4)
    assert system.log[:8] == ["A", "B"] * 4
    assert not system.applied  # every change undone
    by = {t.knob: t for t in out.trials}
    assert by["irq-affinity"].outcome == "helped"
    assert by["thp"].outcome == "no effect"
    assert DEVICE_IRQ in by["irq-affinity"].shift.text
    assert out.together is None  # one knob helped: nothing to combine
    assert [n.knob for n in out.not_tried] == ["idle-states"]
    assert out.not_tried[0].why == "needs a reboot"


def test_tune_tries_the_helpful_knobs_together() -> None:
    system = FakeSystem()
    cands = _cands()
    cands.insert(
        1, FakeCandidate("irq-too", "IRQs too", "try", "x", (FakeChange("/irq", "1", "0"),))
    )
    out = tune(cands, system.prober, system.apply, rounds=4)
    assert out.together is not None
    assert out.together.title == "irq-affinity + irq-too"
    assert out.together.outcome == "helped"


def test_a_change_that_cannot_be_applied_is_not_measured_and_says_why() -> None:
    system = FakeSystem(fail_on="/thp")
    out = tune(_cands(), system.prober, system.apply, rounds=4)
    thp = next(t for t in out.trials if t.knob == "thp")
    assert thp.outcome == "not measured" and "cannot be written" in thp.error
    assert not system.applied


def test_knobs_that_cannot_be_applied_together_say_so_and_keep_the_rest() -> None:
    system = FakeSystem(fail_together=True)
    cands = _cands()
    cands.insert(
        1, FakeCandidate("irq-too", "IRQs too", "try", "x", (FakeChange("/irq", "1", "0"),))
    )
    out = tune(cands, system.prober, system.apply, rounds=4)
    assert out.together is not None and out.together.outcome == "not measured"
    assert "at once" in out.together.error
    assert [t.outcome for t in out.trials if t.knob.startswith("irq")] == ["helped", "helped"]
    assert not system.applied


def test_the_rounds_conditions_are_counted_in_the_order_first_seen() -> None:
    from rtgauge.tune.measure import conditions_of

    held = [("a VM",), ("a VM", "no mlockall"), ("a VM",)]
    assert conditions_of(held) == ["a VM (in 3 of 3 rounds)", "no mlockall (in 1 of 3 rounds)"]
    assert conditions_of([(), ()]) == []


def test_a_round_carries_what_its_run_report_says_limits_its_figures() -> None:
    from pathlib import Path

    from rtgauge.analysis.analysed_run import AnalysedRun
    from rtgauge.model import load_bundle
    from rtgauge.tune.measure import round_from_bundle

    bundle = load_bundle(Path(__file__).parents[1] / "data" / "explain" / "idle_vm_run.json")
    reasons = AnalysedRun.of(bundle).run.conditions.reasons
    assert reasons and any("hypervisor" in r for r in reasons)  # recorded on a VM
    assert round_from_bundle(bundle).conditions == tuple(reasons)
