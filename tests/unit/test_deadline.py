"""Deadline verdicts on literal cases: every miss counts, the bound is exact."""

from __future__ import annotations

import math

import pytest
from synthetic_metric import as_metric, as_test, metric, timed_test

from rtgauge.analysis.binomial import lower_bound, samples_needed, upper_bound
from rtgauge.analysis.requirements import MEETS, MISSES, TOO_FEW, judge, misses, quantile

US = 1000


def fast(n: int, slow: int = 0) -> dict[str, object]:
    """n samples of 20 µs, of which `slow` are 500 µs (far above a 100 µs deadline)."""
    return metric("timer.wakeup.clock_nanosleep.cpu0", [20 * US] * (n - slow) + [500 * US] * slow)


def test_zero_misses_in_3000_back_1e_3() -> None:
    t = timed_test("TMR-P-LAT", [fast(3000)])
    v = judge(t, t.metrics[0], 100 * US, 1e-3)
    assert v.outcome == MEETS and v.green
    # (1 - 0.05^(1/3000)): just under 1e-3, where the rule of three says 1e-3.
    assert v.upper == pytest.approx(1 - 0.05 ** (1 / 3000), rel=1e-9)
    assert v.upper <= 1e-3


def test_two_misses_in_3000_do_not_back_1e_3() -> None:
    t = timed_test("TMR-P-LAT", [fast(3000, slow=2)])
    v = judge(t, t.metrics[0], 100 * US, 1e-3)
    assert v.count.misses == 2 and v.count.activations == 3000
    assert v.outcome == TOO_FEW and not v.green
    assert v.upper == pytest.approx(2.1e-3, abs=0.05e-3)  # the exact 95 % bound
    assert v.observed_rate < 1e-3 < v.upper
    assert v.needed is not None and upper_bound(2, v.needed, 0.95) <= 1e-3
    assert upper_bound(2, v.needed - 1, 0.95) > 1e-3
    assert v.hours_needed == pytest.approx(v.needed * 1e-3 / 3600)
    assert "would back 0.001" in v.explanation()


def test_missed_periods_turn_meets_into_misses() -> None:
    clean = timed_test("TMR-P-LAT", [fast(3000)])
    assert judge(clean, clean.metrics[0], 100 * US, 1e-2).outcome == MEETS
    stalled = timed_test("TMR-P-LAT", [fast(3000)], missed_periods={"cpu0": 125, "cpu1": 0})
    v = judge(stalled, stalled.metrics[0], 100 * US, 1e-2)
    assert v.outcome == MISSES and not v.green
    assert v.count.missed_periods == 125 and v.count.activations == 3125
    assert v.observed_rate == pytest.approx(125 / 3125)


def test_merged_figure_gets_every_cpus_missed_periods_and_overruns_count() -> None:
    m = fast(1000)
    m["name"] = "timer.wakeup.clock_nanosleep.all"
    t = timed_test("TMR-P-LAT", [m], missed_periods={"cpu0": 3, "cpu1": 4})
    assert judge(t, t.metrics[0], 100 * US, 0.1).count.missed_periods == 7
    irq = timed_test("IRQ-P-LAT", [fast(1000)], overruns=5, entries_lost=2)
    v = judge(irq, irq.metrics[0], 100 * US, 0.1)
    assert (v.count.overruns, v.count.lost, v.count.misses, v.count.activations) == (5, 2, 7, 1007)


def test_straddling_bucket_and_overflow_count_as_misses() -> None:
    m = {
        "name": "timer.wakeup.x.all",
        "count": 1002,
        "max": 150000,
        "hist": {
            "buckets": [[10000, 10080, 990], [99840, 100352, 5], [149504, 150016, 5]],
            "overflow": 2,
            "overflow_above": 1 << 35,
        },
    }
    fig = as_metric(m)
    assert misses(fig, 100000) == (7, 12)  # the straddling bucket may miss
    v = judge(as_test({"id": "TMR-P-LAT"}), fig, 100000, 1e-6)
    assert v.outcome == MISSES and v.count.misses == 12
    assert quantile(fig, 0.5) == 10079


def test_zero_rate_is_never_backed() -> None:
    t = timed_test("TMR-P-LAT", [fast(3000)])
    v = judge(t, t.metrics[0], 100 * US, 0.0)
    assert v.outcome == TOO_FEW and v.needed is None
    assert "zero miss rate" in v.explanation()


def test_a_meets_is_not_green_when_conditions_withhold_it() -> None:
    t = timed_test("TMR-P-LAT", [fast(3000)])
    v = judge(t, t.metrics[0], 100 * US, 1e-3, green_withheld="emulated")
    assert v.outcome == MEETS and not v.green


def test_binomial_bounds() -> None:
    assert samples_needed(0, 1e-3, 0.95) == math.ceil(math.log(0.05) / math.log(1 - 1e-3))
    assert upper_bound(0, 0, 0.95) == 1.0 and lower_bound(0, 100, 0.95) == 0.0
    lo, hi = lower_bound(10, 1000, 0.95), upper_bound(10, 1000, 0.95)
    assert lo < 0.01 < hi
    assert samples_needed(0, 0.0, 0.95) is None
