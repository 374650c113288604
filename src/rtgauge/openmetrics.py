"""Intervals as an OpenMetrics text exposition (what GET /metrics answers).

Each interval (the monitor's and the result server's format: start, end,
test, gap_ms, rt, figures, worst; "host" and "label" keys added by the
caller) gives, per figure, a summary in seconds (the base unit OpenMetrics
asks for) with its quantiles, sum and count, the figure's minimum and
maximum as gauges, and per interval when it ended, the gap before it and
whether it ran real-time; the worst sample's culprit is an info family.
A quantile the interval's count cannot back (null in the record) is left
out, never written as 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8"

# the record's percentile keys and the quantile each stands for
QUANTILES = (("p50", "0.5"), ("p90", "0.9"), ("p99", "0.99"), ("p99_9", "0.999"))
NS = 1e-9


@dataclass
class Family:
    name: str
    kind: str  # summary, gauge, info
    unit: str  # "" when the family has none
    help: str
    samples: list[str] = field(default_factory=list)

    def lines(self) -> Iterator[str]:
        yield f"# TYPE {self.name} {self.kind}"
        if self.unit:
            yield f"# UNIT {self.name} {self.unit}"
        yield f"# HELP {self.name} {_escape_help(self.help)}"
        yield from self.samples


def _families() -> dict[str, Family]:
    specs = (
        ("rtgauge_latency_seconds", "summary", "seconds", "a figure's samples in the interval"),
        ("rtgauge_latency_min_seconds", "gauge", "seconds", "a figure's least sample"),
        ("rtgauge_latency_max_seconds", "gauge", "seconds", "a figure's worst sample"),
        (
            "rtgauge_interval_end_timestamp_seconds",
            "gauge",
            "seconds",
            "when the interval ended (Unix time)",
        ),
        (
            "rtgauge_interval_gap_seconds",
            "gauge",
            "seconds",
            "time before the interval when nothing was measured",
        ),
        (
            "rtgauge_interval_realtime",
            "gauge",
            "",
            "1 when SCHED_FIFO and mlockall were in force, else 0 (not real-time figures)",
        ),
        (
            "rtgauge_worst",
            "info",
            "",
            "what the explanation blames for the interval's worst sample",
        ),
    )
    return {name: Family(name, kind, unit, text) for name, kind, unit, text in specs}


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _escape_value(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(pairs: Sequence[tuple[str, str | None]]) -> str:
    """{a="x",b="y"}; a label without a value (no --label) is left out."""
    inner = ",".join(f'{k}="{_escape_value(v)}"' for k, v in pairs if v is not None)
    return "{" + inner + "}"


def _number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value))


def _seconds(ns: Any) -> float | None:
    return float(ns) * NS if isinstance(ns, int | float) and not isinstance(ns, bool) else None


def _unix_seconds(stamp: str) -> float:
    """An interval's "…Z" time (UTC, ms) as Unix seconds."""
    from datetime import datetime

    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _add_interval(fams: dict[str, Family], iv: Mapping[str, Any]) -> None:
    base: list[tuple[str, str | None]] = [
        ("host", _text(iv.get("host"))),
        ("label", _text(iv.get("label"))),
        ("test", str(iv["test"])),
    ]
    end = _labels(base)
    fams["rtgauge_interval_end_timestamp_seconds"].samples.append(
        f"rtgauge_interval_end_timestamp_seconds{end} {_number(_unix_seconds(iv['end']))}"
    )
    gap = float(iv.get("gap_ms") or 0.0) / 1000.0
    fams["rtgauge_interval_gap_seconds"].samples.append(
        f"rtgauge_interval_gap_seconds{end} {_number(gap)}"
    )
    fams["rtgauge_interval_realtime"].samples.append(
        f"rtgauge_interval_realtime{end} {1 if iv.get('rt') else 0}"
    )
    for fig in iv.get("figures") or []:
        _add_figure(fams, base, fig)
    worst = iv.get("worst")
    if isinstance(worst, Mapping):
        info = _labels(
            [
                *base,
                ("figure", str(worst.get("figure"))),
                ("culprit", _text(worst.get("culprit")) or "unexplained"),
            ]
        )
        fams["rtgauge_worst"].samples.append(f"rtgauge_worst_info{info} 1")


def _add_figure(
    fams: dict[str, Family], base: list[tuple[str, str | None]], fig: Mapping[str, Any]
) -> None:
    labels = [*base, ("figure", str(fig["name"]))]
    count = int(fig.get("count") or 0)
    mean = _seconds(fig.get("mean"))
    summary = fams["rtgauge_latency_seconds"].samples
    for key, q in QUANTILES:
        value = _seconds(fig.get(key))
        if value is not None:
            summary.append(
                f"rtgauge_latency_seconds{_labels([*labels, ('quantile', q)])} {value!r}"
            )
    total = mean * count if mean is not None else 0.0
    summary.append(f"rtgauge_latency_seconds_sum{_labels(labels)} {_number(total)}")
    summary.append(f"rtgauge_latency_seconds_count{_labels(labels)} {count}")
    for key, family in (
        ("min", "rtgauge_latency_min_seconds"),
        ("max", "rtgauge_latency_max_seconds"),
    ):
        value = _seconds(fig.get(key))
        if value is not None:
            fams[family].samples.append(f"{family}{_labels(labels)} {_number(value)}")


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def render(intervals: Sequence[Mapping[str, Any]]) -> str:
    """The exposition of these intervals (each family once, `# EOF` last);
    a family without samples is left out."""
    fams = _families()
    for iv in intervals:
        _add_interval(fams, iv)
    lines = [line for f in fams.values() if f.samples for line in f.lines()]
    return "\n".join([*lines, "# EOF"]) + "\n"
