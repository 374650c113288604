"""Bundles for history tests, built from the recorded sample run with the
latency histogram replaced by a chosen one: no timing measured, so every
figure (and so every expected finding) is known in advance. The figure
carries its per-block maxima too (blocks of 100 samples at a 1 ms period),
the samples above 50 µs spread evenly over the blocks, as a real tail that
got worse spreads over the run."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from rtgauge.importers.columns import Column, metric
from rtgauge.model import Bundle, bundle_from_records
from rtgauge.store import index_run

NAME = "timer.wakeup.clock_nanosleep.all"


HIGH_US = 50  # body() puts its bulk below, its tail above
PER_BLOCK = 100


def latency(values_us: dict[int, int], name: str = NAME, blocks: bool = True) -> dict[str, Any]:
    """A metric whose samples sit in 1 µs buckets: {µs: count}; with blocks,
    their per-block maxima too."""
    col = Column(name, 1000, counts={v * 1000: n for v, n in values_us.items()})
    col.min_ns = float(min(values_us) * 1000)
    col.max_ns = float(max(values_us) * 1000 + 999)
    col.mean_ns = sum(v * 1000 * n for v, n in values_us.items()) / col.total
    out = metric(col)
    if blocks:
        out["blocks"] = block_record(values_us)
    return out


def block_record(values_us: dict[int, int]) -> dict[str, Any]:
    """Samples dealt into blocks of PER_BLOCK in time order: each high sample
    (at HIGH_US or above) into its own evenly spaced block, the bulk dealt
    round the blocks to fill them; a value is its bucket's top (as the
    histogram's max)."""
    low = [v for v, n in sorted(values_us.items()) if v < HIGH_US for _ in range(n)]
    high = [v for v, n in sorted(values_us.items()) if v >= HIGH_US for _ in range(n)]
    n_blocks = -(-(len(low) + len(high)) // PER_BLOCK)
    per: list[list[int]] = [[] for _ in range(n_blocks)]
    for j, v in enumerate(high):
        per[j * n_blocks // len(high)].append(v)
    i = 0
    while i < len(low):
        for block in per:
            if len(block) < PER_BLOCK and i < len(low):
                block.append(low[i])
                i += 1
    items = [
        [b * 100.0, len(vs), max(vs) * 1000 + 999, sum(v >= 100 for v in vs)]
        for b, vs in enumerate(per)
        if vs
    ]
    return {"span_ms": 100, "threshold_ns": 100_000, "items": items}


def body(n: int, above: int = 0, far: int | None = None) -> dict[int, int]:
    """n samples spread over 10..40 µs, `above` more at 100..119 µs (more than
    twice the bulk: a tail the history's test can call worse), one at `far` µs."""
    out = {10 + i % 31: 0 for i in range(31)}
    for i in range(n):
        out[10 + (i * 7) % 31] += 1
    for i in range(above):
        out[100 + i % 20] = out.get(100 + i % 20, 0) + 1
    if far is not None:
        out[far] = out.get(far, 0) + 1
    return {k: v for k, v in out.items() if v}


def make(
    records: list[dict[str, Any]],
    when: str,
    hist: dict[int, int],
    verdict_pass: bool = True,
    label: str | None = "lab",
    period_us: int = 1000,
    blocks: bool = True,
) -> Bundle:
    recs = copy.deepcopy(records)
    for r in recs:
        if r.get("id") == "TMR-P-LAT":
            r["metrics"] = [latency(hist, blocks=blocks)]
            r["options"]["period_us"] = period_us
        if r.get("id") == "SEM-B-LCK" and not verdict_pass:
            r["verdicts"][0]["pass"] = False
            r["verdicts"][0]["observed"] = "the waiter ran late"
            r["status"] = "fail"
    b = bundle_from_records(recs, "fixture")
    b.created_at = when
    b.run_label = label
    return b


def store(results: Path, bundle: Bundle) -> Path:
    folder = results / "vm"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (bundle.created_at.replace(":", "").replace("-", "")[:15] + "Z.json")
    path.write_text(json.dumps(bundle.to_json()))
    bundle.path = path
    index_run(results, bundle)
    return path
