"""Comparison, significance and ratings on hand-made figures."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from rtgauge.analysis.compare import compare, labels_for, points
from rtgauge.analysis.ratings import load_criteria, overall, rate, stars_text
from rtgauge.analysis.stats import mann_whitney, significant
from rtgauge.errors import UsageError
from rtgauge.model import bundle_from_records


def hist_metric(values: dict[int, int]) -> dict[str, Any]:
    buckets = [[v, v + 1, n] for v, n in sorted(values.items())]
    count = sum(values.values())
    return {
        "name": "timer.wakeup.x.all",
        "count": count,
        "max": max(values),
        "mean": sum(v * n for v, n in values.items()) / count,
        "hist": {"buckets": buckets, "overflow": 0, "overflow_above": 1 << 35},
    }


def test_mann_whitney_known_values() -> None:
    a = hist_metric({1: 1, 2: 1, 3: 1})
    b = hist_metric({4: 1, 5: 1, 6: 1})
    p, sup = mann_whitney(a, b)
    assert sup == 0.0  # every a below every b
    assert 0.04 < p < 0.06  # normal approximation of U = 0 with 3 + 3 samples: p ≈ 0.0495
    same = hist_metric({10: 500, 11: 500})
    p2, sup2 = mann_whitney(same, copy.deepcopy(same))
    assert p2 == pytest.approx(1.0) and sup2 == pytest.approx(0.5)
    assert not significant(same, copy.deepcopy(same))
    far = hist_metric({20: 500, 21: 500})
    assert significant(same, far)


def _two(sample_records: list[dict[str, Any]], slower: float) -> list[Any]:
    b = copy.deepcopy(sample_records)
    for rec in b[1:-1]:
        for m in rec["metrics"]:
            for k in ("min", "max", "mean", "p50", "p90", "p99", "p99_9", "p99_99"):
                if m.get(k) is not None:
                    m[k] = m[k] * slower
            m["hist"]["buckets"] = [
                [int(lo * slower), int(hi * slower) + 1, n] for lo, hi, n in m["hist"]["buckets"]
            ]
    return [bundle_from_records(sample_records, "a"), bundle_from_records(b, "b")]


def test_compare_marks_the_better_system(sample_records: list[dict[str, Any]]) -> None:
    comp = compare(_two(sample_records, 10.0))
    assert len(set(comp.labels)) == 2
    rows = [r for r in comp.rows if r.metric.startswith("timer.wakeup")]
    assert rows and all(r.best_max == 0 and r.best_mean == 0 and r.significant for r in rows)
    good, bad = points(comp)[1]
    assert sum(" against " in x for x in bad) == 3  # its three largest gaps, with figures


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
    ratings = rate(bundle_from_records(recs, "x"), load_criteria())
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
    b = bundle_from_records(sample_records, "x")
    assert len(set(labels_for([b, b, b]))) == 3


def test_boards_of_one_kind_are_told_apart_by_their_place(
    sample_records: list[dict[str, Any]],
) -> None:
    boards = []
    for place in ("rpi-1", "rpi-2"):
        b = bundle_from_records(sample_records, "x")
        b.target = {"kind": "labgrid", "name": f"labgrid://lab/{place}", "place": place}
        boards.append(b)
    first, second = labels_for(boards)
    assert "(labgrid rpi-1, " in first and "(labgrid rpi-2, " in second
