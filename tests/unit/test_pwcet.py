"""pWCET by extreme value theory on seeded synthetic samples of known tail."""

from __future__ import annotations

import numpy as np
from scipy.stats import lomax
from synthetic_metric import as_metric, metric

from rtgauge.analysis.pwcet import ESTIMATED, NOT_APPLICABLE, UNTESTED, estimate

BASE, ALPHA, SCALE = 10_000.0, 4.0, 5_000.0  # latency = 10 µs + Pareto (Lomax) tail


def pareto_sample(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.asarray(BASE + lomax.rvs(ALPHA, scale=SCALE, size=n, random_state=rng))


def test_pareto_sample_gives_back_its_known_tail_within_the_interval() -> None:
    m = as_metric(
        metric("timer.wakeup.clock_nanosleep.all", pareto_sample(20_000, seed=7), period_ms=1.0)
    )
    r = estimate("TMR-P-LAT", m, deadline_ns=100_000)
    assert r.status == ESTIMATED, r.reason
    assert all(c.ok for c in r.checks)
    # A Pareto tail of index 4 has shape 1/4: heavy, so no finite bound is claimed.
    assert r.shape is not None and r.shape.low is not None and r.shape.high is not None
    assert r.shape.low <= 1 / ALPHA <= r.shape.high
    assert r.heavy and r.endpoint_ns is None
    assert any("no finite bound" in c for c in r.caveats)
    for p, interval in r.at.items():
        true = BASE + lomax.isf(p, ALPHA, scale=SCALE)
        assert interval.low is not None and interval.high is not None
        assert interval.low <= true <= interval.high, (p, interval, true)
    d = r.deadline_probability
    assert d is not None and d.low is not None and d.high is not None
    assert d.low <= lomax.sf(100_000 - BASE, ALPHA, scale=SCALE) <= d.high
    assert r.threshold_ns is not None and r.exceedances >= 50


def test_a_sample_with_a_trend_is_not_applicable() -> None:
    drift = np.arange(20_000) * 2.0  # 2 ns more every activation
    m = as_metric(
        metric("timer.wakeup.clock_nanosleep.all", pareto_sample(20_000, 3) + drift, period_ms=1.0)
    )
    r = estimate("TMR-P-LAT", m, deadline_ns=100_000)
    assert r.status == NOT_APPLICABLE
    assert r.reason.startswith("because")
    stationarity = next(c for c in r.checks if c.name.startswith("stationarity"))
    assert stationarity.ok is False and "drifts" in r.reason
    assert not r.at and r.shape is None  # nothing extrapolated


def test_without_block_record_the_fit_says_its_assumptions_are_untested() -> None:
    m = as_metric(metric("irq.task.sem_post_wake", pareto_sample(5_000, seed=11)))
    r = estimate("IRQ-P-LAT", m, deadline_ns=100_000, bootstrap=40)
    assert r.status == UNTESTED
    assert all(c.ok is None for c in r.checks)
    assert any("not tested" in c for c in r.caveats)


def test_too_few_samples_are_not_applicable() -> None:
    m = as_metric(metric("irq.task.sem_post_wake", pareto_sample(300, seed=5), period_ms=1.0))
    r = estimate("IRQ-P-LAT", m)
    assert r.status == NOT_APPLICABLE and "too few" in r.reason
