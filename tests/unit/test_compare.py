"""Comparison, significance and ratings on hand-made figures."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from synthetic_metric import as_metric

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.analysis.compare import Row, compare, judge_row, labels_for, points, tail_test
from rtgauge.analysis.ratings import load_criteria, overall, rate, stars_text
from rtgauge.analysis.stats import (
    fisher_exact,
    mann_whitney,
    mann_whitney_exact_p,
    significant,
)
from rtgauge.errors import UsageError
from rtgauge.fmt import us
from rtgauge.model import Metric, bundle_from_records
from rtgauge.report.compare_report import compare_report
from rtgauge.report.formats import EXPORTERS
from rtgauge.run import Run


def hist_metric(values: dict[int, int], maxima: list[int] | None = None) -> Metric:
    """A figure of these {value: count}; with maxima, its blocks' maxima
    (100 samples a block)."""
    buckets = [[v, v + 1, n] for v, n in sorted(values.items())]
    count = sum(values.values())
    blocks = None
    if maxima is not None:
        items = [[i * 100, 100, mx, 0] for i, mx in enumerate(maxima)]
        blocks = {"span_ms": 100, "threshold_ns": 100_000, "items": items}
    return as_metric(
        {
            "name": "timer.wakeup.x.all",
            "count": count,
            "max": max(values),
            "mean": sum(v * n for v, n in values.items()) / count,
            "hist": {"buckets": buckets, "overflow": 0, "overflow_above": 1 << 35},
            "blocks": blocks,
        }
    )


def test_mann_whitney_known_values() -> None:
    a = hist_metric({1: 1, 2: 1, 3: 1})
    b = hist_metric({4: 1, 5: 1, 6: 1})
    t = mann_whitney(a, b)
    assert t.superiority == 0.0  # every a below every b
    # exact: U = 0 is 1 of the 20 orderings of 3 + 3, twice for two sides
    assert t.method == "exact" and t.p == pytest.approx(0.10)
    assert not significant(t, 0.01)
    four = mann_whitney(
        hist_metric({1: 1, 2: 1, 3: 1, 4: 1}), hist_metric({5: 1, 6: 1, 7: 1, 8: 1})
    )
    assert four.p == pytest.approx(2 / 70)
    assert mann_whitney_exact_p(4.5, 3, 3) == pytest.approx(1.0)  # the middle of U
    same = hist_metric({10: 500, 11: 500})
    t2 = mann_whitney(same, copy.deepcopy(same))
    assert t2.method == "normal approximation"
    assert t2.p == pytest.approx(1.0) and t2.superiority == pytest.approx(0.5)
    assert not significant(t2, 0.01)
    far = hist_metric({20: 500, 21: 500})
    assert significant(mann_whitney(same, far), 0.01)


def test_fisher_exact_known_values() -> None:
    assert fisher_exact(3, 4, 1, 4) == pytest.approx(34 / 70)  # the lady tasting tea
    assert fisher_exact(1, 10, 11, 14) == pytest.approx(0.002759, abs=1e-6)
    assert fisher_exact(0, 1000, 0, 1000) == pytest.approx(1.0)


def test_tail_is_tested_on_block_maxima_or_not_at_all() -> None:
    light = hist_metric({10: 1000}, [10] * 10)
    heavy = hist_metric({10: 990, 100: 10}, [100] * 10)
    t = tail_test(light, heavy)
    assert t.rank is not None and t.lower and t.p is not None
    assert t.p == pytest.approx(2 / 184756)  # every block of one above every block of the other
    # no blocks (older records): not testable, never tested on samples
    assert tail_test(hist_metric({10: 1000}), heavy).why == "not testable: no block maxima"
    # one block with a high maximum in ten: not a difference in the tail
    one = tail_test(light, hist_metric({10: 999, 100: 1}, [10] * 9 + [100]))
    assert one.p is not None and one.p > 0.01 and not one.lower
    # three blocks each: no p-value could get below the level
    assert tail_test(hist_metric({1: 3}, [1, 1, 1]), hist_metric({9: 3}, [9, 9, 9])).why


def test_a_max_is_marked_better_only_when_a_tail_test_backs_it() -> None:
    small = judge_row(
        Row("T", "m", [hist_metric({1: 1, 2: 1, 3: 1}), hist_metric({4: 1, 5: 1, 6: 1})])
    )
    assert small.best_max == 0 and not small.tail_significant
    assert small.tail_text() == "max: not testable: no block maxima"
    tail = judge_row(
        Row(
            "T",
            "m",
            [hist_metric({10: 1000}, [10] * 10), hist_metric({10: 990, 100: 10}, [100] * 10)],
        )
    )
    assert tail.best_max == 0 and tail.tail_significant
    assert tail.tail_text().startswith("max: block maxima lower beyond chance")
    one = judge_row(
        Row(
            "T",
            "m",
            [hist_metric({10: 1000}, [10] * 10), hist_metric({10: 999, 100: 1}, [10] * 9 + [100])],
        )
    )
    assert one.best_max == 0 and not one.tail_significant
    assert one.tail_text().startswith("max: difference within chance")


def test_a_lowest_max_whose_blocks_are_higher_is_not_backed() -> None:
    """One lucky block maximum is lowest, its other blocks higher all through:
    said so, with the p-value of that comparison, never marked better."""
    low_max = hist_metric({30: 1000}, [30] * 10)
    other = hist_metric({10: 999, 40: 1}, [10] * 9 + [40])
    row = judge_row(Row("T", "m", [low_max, other]))
    assert row.best_max == 0 and not row.tail_significant
    text = row.tail_text()
    assert text.startswith("max: lowest max not backed: its block maxima are higher beyond chance")
    assert row.tails[0].p is not None and f"p = {row.tails[0].p:.2g}" in text


def test_averages_are_never_marked(sample_records: list[dict[str, Any]]) -> None:
    """Averages of dependent samples: a shift of a fraction of a µs on many
    samples, which a test on the samples calls beyond chance, is shown and
    not marked; the page says why."""
    a = hist_metric({17: 5000, 18: 5000}, [18] * 10)
    b = hist_metric({17: 4700, 18: 5300}, [18] * 10)
    row = judge_row(Row("T", "m", [a, b]))
    assert not hasattr(row, "best_mean") and not hasattr(row, "bulk_text")
    assert row.tail_text().startswith("max: difference within chance")
    comp = compare(_two(sample_records, 1.02))
    md = EXPORTERS["md"].render(
        compare_report([AnalysedRun.of(r) for r in comp.runs], load_criteria())
    )
    assert "averages of dependent samples: no test stated" in md
    assert "avg:" not in md and "Mann-Whitney p" not in md.replace("block maxima p", "")
    for r in comp.rows:  # a mean is never shown as the better one
        for m in r.per_system:
            if m is not None and m.mean is not None:
                assert f"**{us(m.mean)}**" not in md


def test_partial_figures_are_compared_with_nothing() -> None:
    fast, slow = hist_metric({10: 1000}), hist_metric({20: 1000})
    row = judge_row(Row("T", "m", [fast, slow], partial=[True, False]))
    assert row.best_max is None and not row.tail_significant


def _two(sample_records: list[dict[str, Any]], slower: float) -> list[Run]:
    a = copy.deepcopy(sample_records)
    for rec in a[1:-1]:  # twenty blocks for the timer figures, as a longer run records
        for m in rec["metrics"]:
            if m["name"].startswith("timer.wakeup"):
                items = [[i * 100, 15, m["max"] * (0.5 + i / 40), 0] for i in range(20)]
                m["blocks"] = {"span_ms": 100, "threshold_ns": 100_000, "items": items}
    b = copy.deepcopy(a)
    for rec in b[1:-1]:
        for m in rec["metrics"]:
            if m.get("blocks"):
                m["blocks"]["items"] = [
                    [t, n, mx * slower, 0] for t, n, mx, _ in m["blocks"]["items"]
                ]
            for k in ("min", "max", "mean", "p50", "p90", "p99", "p99_9", "p99_99"):
                if m.get(k) is not None:
                    m[k] = m[k] * slower
            m["hist"]["buckets"] = [
                [int(lo * slower), int(hi * slower) + 1, n] for lo, hi, n in m["hist"]["buckets"]
            ]
    return [Run.of(bundle_from_records(a, "a")), Run.of(bundle_from_records(b, "b"))]


def test_compare_marks_the_better_system(sample_records: list[dict[str, Any]]) -> None:
    comp = compare(_two(sample_records, 10.0))
    assert len(set(comp.labels)) == 2
    rows = [r for r in comp.rows if r.metric.startswith("timer.wakeup")]
    assert rows and all(r.best_max == 0 and r.tail_significant for r in rows)
    good, bad = points(comp)[1]
    # a worst case is a weak point only where a tail test backs the difference
    backed = [r for r in comp.rows if r.tail_significant]
    assert backed and sum(" against " in x for x in bad) == min(3, len(backed))


def test_ratings_follow_the_criteria(sample_records: list[dict[str, Any]], tmp_path: Path) -> None:
    crit = load_criteria()
    fast, slow = _two(sample_records, 10000.0)
    r_fast = {r.family: r for r in rate(fast, crit)}
    r_slow = {r.family: r for r in rate(slow, crit)}
    assert r_fast["TMR"].stars is not None and r_slow["TMR"].stars == 1
    assert overall(rate(slow, crit)) is not None
    assert stars_text(3) == "★★★☆☆" and stars_text(None) == "not rated"
    custom = tmp_path / "c.json"
    custom.write_text(
        json.dumps(
            {
                "families": {
                    "TMR": {"metric": "^timer", "stat": "max", "reduce": "max", "stars": [[1, 5]]}
                }
            }
        )
    )
    assert [r.stars for r in rate(fast, load_criteria(custom))] == [1]


def test_emulated_runs_are_not_rated_on_timing(sample_records: list[dict[str, Any]]) -> None:
    recs = copy.deepcopy(sample_records)
    recs[0]["virtualization"]["emulated"] = True
    ratings = rate(Run.of(bundle_from_records(recs, "x")), load_criteria())
    assert all(r.stars is None for r in ratings)


@pytest.mark.parametrize(
    "content", ["{", '{"families": {}}', '{"families": {"X": {"metric": "("}}}']
)
def test_bad_criteria(tmp_path: Path, content: str) -> None:
    p = tmp_path / "c.json"
    p.write_text(content)
    with pytest.raises(UsageError):
        load_criteria(p)


def test_labels_are_distinct(sample_records: list[dict[str, Any]]) -> None:
    r = Run.of(bundle_from_records(sample_records, "x"))
    assert len(set(labels_for([r, r, r]))) == 3


def test_boards_of_one_kind_are_told_apart_by_their_place(
    sample_records: list[dict[str, Any]],
) -> None:
    boards = []
    for place in ("rpi-1", "rpi-2"):
        b = bundle_from_records(sample_records, "x")
        b.target = {"kind": "labgrid", "name": f"labgrid://lab/{place}", "place": place}
        boards.append(Run.of(b))
    first, second = labels_for(boards)
    assert "(labgrid rpi-1, " in first and "(labgrid rpi-2, " in second
