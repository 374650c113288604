"""The tail is tested on per-block maxima, never on samples: synthetic runs
whose samples come in bursts (as a stall delays many wake-ups in a row)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from synthetic_metric import as_metric, metric

from rtgauge.analysis.stats import (
    fisher_exact,
    fisher_greater,
    rank_test,
    smallest_p,
)
from rtgauge.analysis.tail import ALPHA, EACH, FACTOR, design_effect, tail_test
from rtgauge.analysis.tail_data import full_maxima
from rtgauge.model import Metric

N = 3000  # samples at a 1 ms period: 30 blocks of 100 ms


def run_of(values_ns: Any, blocks: bool = True) -> Metric:
    """A latency figure of these samples in time order, its percentiles from
    the samples (the synthetic histogram leaves them out)."""
    vals = np.asarray(values_ns, dtype=float)
    m = metric("timer.wakeup.x.all", vals, period_ms=1.0 if blocks else None)
    for key, q in (("p99", 99.0), ("p99_9", 99.9)):
        m[key] = float(np.percentile(vals, q, method="higher"))
    return as_metric(m)


def full_maxima_of(m: Metric) -> list[float]:
    assert m.blocks is not None
    return [float(x) for x in full_maxima(m.blocks)]


def quiet(rng: np.random.Generator) -> Any:
    """An idle system: 15..25 µs, independent."""
    return rng.uniform(15_000, 25_000, N)


def with_bursts(rng: np.random.Generator, bursts: int, length: int = 150) -> Any:
    """Quiet, plus `bursts` stalls each delaying `length` wake-ups in a row
    to 60..80 µs: many samples, one or two blocks."""
    v = quiet(rng)
    for _ in range(bursts):
        at = int(rng.integers(0, N - length))
        v[at : at + length] = rng.uniform(60_000, 80_000, length)
    return v


def with_hog(rng: np.random.Generator, every: int = 100) -> Any:
    """Quiet, plus one wake-up in every `every` delayed to 150..250 µs: a
    periodic hog, a worse tail all through the run."""
    v = quiet(rng)
    v[every // 2 :: every] = rng.uniform(150_000, 250_000, len(v[every // 2 :: every]))
    return v


def old_sample_test_p(old: Metric, new: Metric) -> float:
    """What the history used to do: samples above the older run's p99.9,
    counted as independent, Fisher's exact test."""
    assert old.p99_9 is not None
    threshold = old.p99_9

    def above(m: Metric) -> int:
        return sum(c for lo, _, c in m.hist.buckets if lo > threshold)

    return fisher_exact(above(old), old.count, above(new), new.count)


def test_rank_and_fisher_known_values() -> None:
    r = rank_test([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    # U = 9 is 1 of the 20 orderings of 3 + 3
    assert r.method == "exact" and r.superiority == 1.0
    assert r.p_greater == pytest.approx(1 / 20) and r.p_less == pytest.approx(1.0)
    assert r.p_two_sided == pytest.approx(0.1)
    assert rank_test([4.0, 5.0, 6.0], [1.0, 2.0, 3.0]).p_less == pytest.approx(1 / 20)
    assert smallest_p(3, 3) == pytest.approx(1 / 20)
    assert smallest_p(10, 10) == pytest.approx(1 / 184756)
    # the lady tasting tea, one-sided: 3 of 4 right or better, (16 + 1) / 70
    assert fisher_greater(3, 4, 1, 4) == pytest.approx(17 / 70)
    assert fisher_greater(0, 10, 0, 10) == pytest.approx(1.0)
    big = rank_test(list(range(40)), [x + 0.5 for x in range(40)])
    assert big.method == "normal approximation" and 0.3 < big.p_greater < 0.6


def test_bursts_flagged_by_samples_are_not_a_block_regression() -> None:
    rng = np.random.default_rng(7)
    old, new = run_of(quiet(rng)), run_of(with_bursts(rng, 1))
    # the sample test sees 150 "independent" exceedances against about 3
    assert old_sample_test_p(old, new) < 1e-20
    tt = tail_test(old, new)
    assert tt.tested and tt.rank_p is not None and tt.fisher_p is not None
    assert not tt.worse and "within chance" in tt.evidence
    assert tt.new_above <= 3  # the burst fills one or two blocks


def test_identical_bursty_systems_rarely_alarm() -> None:
    """200 pairs of runs of one bursty system: the sample test alarms on
    more than one in ten, the block test on at most 1 %."""
    rng = np.random.default_rng(11)
    old_alarms = new_alarms = 0
    pairs = 200
    for _ in range(pairs):
        a = run_of(with_bursts(rng, int(rng.poisson(1.0))))
        b = run_of(with_bursts(rng, int(rng.poisson(1.0))))
        old_alarms += old_sample_test_p(a, b) < ALPHA and b.p99_9 is not None
        new_alarms += tail_test(a, b).worse
    assert old_alarms > pairs // 10
    assert new_alarms <= pairs // 100


def test_a_whole_run_shifted_by_less_than_the_factor_is_not_flagged() -> None:
    """The host's state moves a whole run on a shared machine: block maxima
    1.8 times higher all through are beyond chance, but not a regression."""
    rng = np.random.default_rng(9)
    old, new = run_of(quiet(rng)), run_of(quiet(rng) * 1.8)
    assert rank_test(list(full_maxima_of(old)), list(full_maxima_of(new))).p_greater < 1e-6
    tt = tail_test(old, new)
    assert tt.tested and not tt.worse and f"{FACTOR:g} × an older one" in tt.evidence


def test_a_worse_tail_in_many_blocks_is_flagged() -> None:
    rng = np.random.default_rng(3)
    old, new = run_of(quiet(rng)), run_of(with_hog(rng))
    tt = tail_test(old, new)
    assert tt.worse and tt.threshold_name == "p99.9"
    assert tt.rank_p is not None and tt.rank_p < EACH
    assert tt.new_above == tt.new_blocks and tt.old_above <= 3  # p99.9: 3 samples above
    assert "worse beyond chance" in tt.evidence and "one-sided Mann-Whitney" in tt.evidence
    # a few more blocks with high maxima, the rest as before: the exceedance count says it
    some = quiet(rng)
    some[50:1500:100] = 200_000  # 15 of 30 blocks
    tt2 = tail_test(old, run_of(some))
    assert tt2.worse and tt2.fisher_p is not None and tt2.fisher_p < EACH


def test_a_falling_tail_is_never_flagged() -> None:
    rng = np.random.default_rng(5)
    worse, better = run_of(with_hog(rng)), run_of(quiet(rng))
    tt = tail_test(worse, better)
    assert not tt.worse and not tt.beyond_chance and "within chance" in tt.evidence
    # block maxima three times higher all through, but the tail percentile fell
    # (a big stall in the older run only): the line the chart draws fell, no regression
    stall = quiet(rng)
    stall[100:110] = 5_000_000
    higher = rng.uniform(70_000, 80_000, N)
    old, new = run_of(stall), run_of(higher)
    assert old.p99_9 is not None and new.p99_9 is not None and new.p99_9 < old.p99_9
    tt2 = tail_test(old, new)
    assert tt2.beyond_chance and tt2.tail_fell and not tt2.worse
    assert "fell" in tt2.evidence and "not a regression" in tt2.evidence


def test_without_blocks_it_is_not_testable() -> None:
    rng = np.random.default_rng(1)
    with_blocks, without = run_of(with_hog(rng)), run_of(with_hog(rng), blocks=False)
    for old, new in ((without, with_blocks), (with_blocks, without)):
        tt = tail_test(old, new)
        assert not tt.tested and not tt.worse
        assert tt.evidence == "not testable: no block maxima"
    # 5 blocks each: no p can get below EACH, whatever the maxima
    short = run_of(rng.uniform(15_000, 25_000, 500))
    tt = tail_test(short, run_of(with_hog(rng)[:500]))
    assert not tt.tested and tt.evidence.startswith("not testable: too few full blocks")


def _default_length(rng: np.random.Generator) -> Any:
    """10 s at 1 ms: 100 blocks of 100 ms, 10 groups of 10 for the design effect."""
    return rng.uniform(15_000, 25_000, 10_000)


def test_clustered_high_blocks_weigh_less_than_evenly_spread_ones() -> None:
    """Twelve blocks with a 200 µs maximum: in two episodes of six (a host's
    stalls) they are not a regression at the design effect, though Fisher's
    test on them as independent blocks says p < 0.0005; spread evenly (a
    periodic disturbance) they are."""
    rng = np.random.default_rng(21)
    old = run_of(_default_length(rng))
    episodes = _default_length(rng)
    for start in (2000, 7000):
        episodes[start + 50 : start + 650 : 100] = 200_000  # six blocks in a row
    tt = tail_test(old, run_of(episodes))
    assert (tt.new_above, tt.old_above) == (12, 0)
    assert fisher_greater(12, tt.new_blocks, 0, tt.old_blocks) < EACH
    assert tt.new_phi > 3 and tt.fisher_p is not None and tt.fisher_p > EACH
    assert not tt.worse and "they come in clusters" in tt.evidence
    spread = _default_length(rng)
    spread[50:10_000:800] = 200_000  # one block in eight, all through the run
    tt2 = tail_test(old, run_of(spread))
    assert tt2.new_above == 13 and tt2.new_phi == 1.0
    assert tt2.worse and tt2.fisher_p is not None and tt2.fisher_p < EACH


def test_the_design_effect_of_even_random_and_short_runs() -> None:
    assert design_effect([1.0] * 100, 0.5) == 1.0  # every block above
    assert design_effect([0.0] * 100, 0.5) == 1.0  # none
    assert design_effect([1.0, 0.0] * 20, 0.5) == 1.0  # 4 groups: too few to say
    even = ([1.0] + [0.0] * 9) * 10
    assert design_effect(even, 0.5) == 1.0
    clustered = [1.0] * 10 + [0.0] * 90
    # chi-square (81 + 9 x 1) / 0.9 = 100 over 9 degrees of freedom
    assert design_effect(clustered, 0.5) == pytest.approx(100 / 9)


def test_within_chance_says_how_long_runs_must_be_to_see_a_doubling() -> None:
    """Two blocks above twice the older tail in each of two short runs: not
    beyond chance, and the evidence names the length at which a doubling of
    that rate would be seen, longer than these runs."""
    rng = np.random.default_rng(7)
    old, new = quiet(rng), quiet(rng)
    for v in (old, new):
        v[[310, 2650]] = 200_000.0  # two blocks of thirty well above the p99.9
    t = tail_test(run_of(old), run_of(new))
    assert t.tested and not t.beyond_chance and t.old_above == 2
    assert t.needed_blocks is not None and t.needed_blocks > t.new_blocks
    assert f"that needs {t.needed_blocks:,} full blocks a run" in t.evidence
    assert "to be seen in 90% of pairs" in t.evidence


LONG = 60_000  # a minute at 1 ms: p99.99 is backed, 600 blocks


def long_run_of(values_ns: Any) -> Metric:
    """A run long enough to back p99.99: the tail line is p99.99, and the
    blocks-above question is asked at p99.9 as well."""
    vals = np.asarray(values_ns, dtype=float)
    m = metric("timer.wakeup.x.all", vals, period_ms=1.0)
    for key, q in (("p99", 99.0), ("p99_9", 99.9), ("p99_99", 99.99)):
        m[key] = float(np.percentile(vals, q, method="higher"))
    return as_metric(m)


def host_pauses(rng: np.random.Generator) -> Any:
    """Quiet, plus a few host pauses of 2..3 ms: they set p99.99."""
    v = rng.uniform(15_000, 25_000, LONG)
    v[rng.choice(LONG, 12, replace=False)] = rng.uniform(2e6, 3e6, 12)
    return v


def test_a_hog_between_the_two_lines_is_caught_at_the_p99_9() -> None:
    """A delay of 400 µs once a second doubles the rate above the older run's
    p99.9 but stays under its p99.99 (the host's pauses): asked only at
    p99.99 it is missed, at p99.9 it is flagged."""
    rng = np.random.default_rng(11)
    old = long_run_of(host_pauses(rng))
    hogged = host_pauses(rng)
    hogged[500::1000] = rng.uniform(380_000, 420_000, len(hogged[500::1000]))
    tt = tail_test(old, long_run_of(hogged))
    assert tt.threshold_name == "p99.99" and tt.lower is not None
    assert tt.fisher_p is not None and tt.fisher_p > tt.fisher_level  # the top line misses it
    assert tt.lower.worse and tt.worse
    assert tt.fisher_level == EACH / 2  # the pair stays at ALPHA: half the level at each line
    assert "at the p99.9" in tt.evidence and "at the p99.99" not in tt.evidence


def test_unchanged_long_runs_are_not_flagged_at_either_line() -> None:
    rng = np.random.default_rng(12)
    flagged = sum(
        tail_test(long_run_of(host_pauses(rng)), long_run_of(host_pauses(rng))).worse
        for _ in range(20)
    )
    assert flagged == 0


def test_a_p99_9_that_fell_is_not_a_regression_at_that_line() -> None:
    """More blocks above the p99.9 line beyond chance, but the newer run's p99.9
    is lower than the older one's: that line says nothing worse."""
    rng = np.random.default_rng(13)
    before = host_pauses(rng)
    before[500::1000] = 300_000  # one sample a second at 300 µs: p99.9 near 300 µs
    after = host_pauses(rng)
    after[500::1500] = 700_000  # 40 samples at 700 µs: above 2 × the old p99.9, p99.9 fell
    tt = tail_test(long_run_of(before), long_run_of(after))
    assert tt.lower is not None and tt.lower.beyond_chance and tt.lower.fell
    assert not tt.lower.worse
