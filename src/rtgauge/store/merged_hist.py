"""Log-linear histograms added bucket by bucket: every interval's figures use
the probe's one scheme ([low, high_exclusive, count] and what overflowed),
so a span's histogram is the sum of its intervals'."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class MergedHistogram:
    buckets: dict[tuple[int, int], int] = field(default_factory=dict)
    overflow: int = 0
    overflow_above: int = 0

    def add(self, hist: Mapping[str, Any]) -> None:
        for lo, hi, n in hist["buckets"]:
            key = (int(lo), int(hi))
            self.buckets[key] = self.buckets.get(key, 0) + int(n)
        self.overflow += int(hist["overflow"])
        self.overflow_above = max(self.overflow_above, int(hist["overflow_above"]))

    def merge(self, other: MergedHistogram) -> None:
        for key, n in other.buckets.items():
            self.buckets[key] = self.buckets.get(key, 0) + n
        self.overflow += other.overflow
        self.overflow_above = max(self.overflow_above, other.overflow_above)

    @property
    def count(self) -> int:
        return sum(self.buckets.values()) + self.overflow

    def above(self, threshold: int) -> int:
        """Samples in the buckets at or above `threshold` (a bucket edge), overflow included."""
        return sum(n for (lo, _), n in self.buckets.items() if lo >= threshold) + self.overflow

    def rows(self) -> list[list[int]]:
        return [[lo, hi, n] for (lo, hi), n in sorted(self.buckets.items())]

    def to_json(self) -> str:
        body = {
            "buckets": self.rows(),
            "overflow": self.overflow,
            "overflow_above": self.overflow_above,
        }
        return json.dumps(body, separators=(",", ":"))


def merged(hists: Iterable[str]) -> MergedHistogram:
    """The histograms (JSON text, as the store keeps them) merged."""
    out = MergedHistogram()
    for text in hists:
        out.add(json.loads(text))
    return out
