"""End-to-end: the latency tests record their extremes in time order
(metric.blocks), consistent with the figure set they belong to.

No timing thresholds: the blocks must account for every sample, their maxima
for the metric's maximum, their counts above the threshold for the histogram.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from probe_run import run_probe

RUNS = {
    "TMR-P-LAT": ["--opt", "TMR-P-LAT.duration_ms=400"],
    "TMR-P-LOAD": ["--opt", "TMR-P-LOAD.phase_ms=200", "--opt", "TMR-P-LOAD.memory_mib=16"],
    "IRQ-P-LAT": ["--opt", "IRQ-P-LAT.duration_ms=300"],
    "THR-P-PRE": ["--opt", "THR-P-PRE.loops=2000", "--opt", "THR-P-PRE.timer_loops=300"],
}


def consistent(m: dict[str, Any]) -> None:
    b = m["blocks"]
    items = b["items"]
    assert b["span_ms"] >= 100 and b["threshold_ns"] == 100_000
    starts = [i[0] for i in items]
    assert starts == sorted(set(starts))
    assert all(s % b["span_ms"] == 0 for s in starts)
    assert sum(i[1] for i in items) == m["count"]
    assert max(i[2] for i in items) == m["max"]
    assert min(i[2] for i in items) >= m["min"]
    assert all(0 <= i[3] <= i[1] for i in items)
    # Above the threshold, per the histogram: surely above <= blocks' count <= possibly above.
    sure = sum(n for lo, _, n in m["hist"]["buckets"] if lo > b["threshold_ns"])
    possible = sum(n for _, hi, n in m["hist"]["buckets"] if hi - 1 > b["threshold_ns"])
    assert sure <= sum(i[3] for i in items) <= possible


@pytest.mark.parametrize("test_id", sorted(RUNS))
def test_latency_figures_carry_block_maxima(test_id: str, tmp_path: Path) -> None:
    env = dict(os.environ, TMPDIR=str(tmp_path))  # TMR-P-LOAD's file load writes there
    r = run_probe("--tests", test_id, "--quick", *RUNS[test_id], env=env)
    t = r.tests[test_id]
    assert t["status"] == "ok", t["reason"]
    timed = [m for m in t["metrics"] if m["count"]]
    assert timed
    for m in timed:
        assert "blocks" in m, m["name"]
        consistent(m)


def test_other_figures_do_not() -> None:
    r = run_probe("--tests", "CLK-P-RES", "--quick")
    assert all("blocks" not in m for m in r.tests["CLK-P-RES"]["metrics"])
