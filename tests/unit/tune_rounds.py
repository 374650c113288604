"""Synthetic tune rounds for the unit tests: figures whose samples are drawn
from a seeded generator (so no figure is written into a test), and kept
windows whose parts name a cause."""

from __future__ import annotations

import random
from dataclasses import replace

from rtgauge.analysis.explain import Explanation
from rtgauge.analysis.explain import parts as P
from rtgauge.model import Blocks, Histogram, Metric
from rtgauge.tune.measure import Round

BLOCK_MS = 100.0
PER_BLOCK = 100  # samples per block


def metric(rng: random.Random, scale: float, blocks: int = 30, name: str = "lat.cpu1") -> Metric:
    """Latencies around `scale` ns with a heavier tail, in blocks of 100 ms."""
    samples: list[list[int]] = [
        [int(scale * (1.0 + rng.expovariate(1.0) ** 2)) for _ in range(PER_BLOCK)]
        for _ in range(blocks)
    ]
    flat = sorted(v for b in samples for v in b)
    counts: dict[int, int] = {}
    for v in flat:
        counts[v] = counts.get(v, 0) + 1
    n = len(flat)

    def q(p: float) -> float:
        return float(flat[min(n - 1, int(p * n))])

    return Metric(
        name=name,
        unit="ns",
        count=n,
        min=float(flat[0]),
        max=float(flat[-1]),
        mean=sum(flat) / n,
        stddev=None,
        p50=q(0.5),
        p90=q(0.9),
        p99=q(0.99),
        p99_9=q(0.999),
        p99_99=None,
        worst_at_ms=None,
        params={},
        hist=Histogram(0, [(v, v + 1, c) for v, c in sorted(counts.items())], 0, 0),
        blocks=Blocks(
            span_ms=BLOCK_MS,
            threshold_ns=0.0,
            start_ms=[i * BLOCK_MS for i in range(blocks)],
            count=[len(b) for b in samples],
            maxima=[float(max(b)) for b in samples],
            above=[0] * blocks,
        ),
    )


def window(shares: dict[str, int], sample_ns: int | None = None) -> Explanation:
    """A kept window whose parts are the given kinds with their ns."""
    parts = tuple(
        P.Part(kind, ns, "test", P.Subject("task", pid=7, comm="x", origin="other"))
        for kind, ns in shares.items()
    )
    total = sample_ns if sample_ns is not None else sum(shares.values())
    return Explanation("lat.cpu1", total, 1, True, parts, "", None, (), None, None, 0)


def round_(rng: random.Random, scale: float, causes: dict[str, int]) -> Round:
    return Round({("TMR-P-LAT", "lat.cpu1"): metric(rng, scale)}, (window(causes),))


def with_outliers(m: Metric, values: list[int]) -> Metric:
    """The metric with a few far samples more, in its last block (a stall of
    the host), each replacing one ordinary sample."""
    assert m.blocks is not None and m.max is not None
    buckets = list(m.hist.buckets)
    lo, hi, n = buckets[0]
    buckets[0] = (lo, hi, n - len(values))  # the samples replaced
    buckets += [(v, v + 1, 1) for v in values]
    maxima = list(m.blocks.maxima)
    maxima[-1] = float(max(values))
    return replace(
        m,
        max=float(max(values + [int(m.max)])),
        hist=replace(m.hist, buckets=[b for b in buckets if b[2] > 0]),
        blocks=replace(m.blocks, maxima=maxima),
    )
