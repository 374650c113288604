"""Intervals as OpenMetrics, read back by a real parser (prometheus_client's):
every family typed, united and helped, values in seconds from the records'
nanoseconds, a quantile the interval cannot back left out, one family block
for several intervals, labels escaped, # EOF last."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from rtgauge.openmetrics import CONTENT_TYPE, render

parser = pytest.importorskip("prometheus_client.openmetrics.parser")


def _hist() -> dict[str, Any]:
    return {"kind": "loglinear", "sub_bucket_bits": 7, "buckets": [], "overflow": 0}


def _figure(name: str, count: int, lo: float, hi: float, p99_9: float | None) -> dict[str, Any]:
    return {
        "name": name,
        "unit": "ns",
        "count": count,
        "min": lo,
        "max": hi,
        "mean": (lo + hi) / 2,
        "p50": lo + 100,
        "p90": lo + 200,
        "p99": lo + 300,
        "p99_9": p99_9,
        "hist": _hist(),
    }


def _interval(host: str, label: str | None, end: str, top: float) -> dict[str, Any]:
    return {
        "host": host,
        "label": label,
        "start": "2026-11-27T18:00:00.000Z",
        "end": end,
        "test": "TMR-P-LAT",
        "gap_ms": 12.5,
        "rt": label is not None,
        "figures": [
            _figure("timer.wakeup.clock_nanosleep.cpu1", 600, 16_000.0, top, None),
            _figure("timer.wakeup.clock_nanosleep.all", 600, 16_000.0, top, None),
        ],
        "worst": {
            "figure": "timer.wakeup.clock_nanosleep.cpu1",
            "value_ns": top,
            "culprit": 'stress-ng "cpu"/4242',
            "summary": "…",
            "window": None,
            "why_not": None,
        },
    }


def _families(text: str) -> dict[str, Any]:
    return {f.name: f for f in parser.text_string_to_metric_families(text)}


def test_one_interval_reads_back_in_seconds() -> None:
    iv = _interval("vm", "line-3", "2026-11-27T18:05:00.000Z", 84_211.0)
    text = render([iv])
    assert text.endswith("# EOF\n")
    fams = _families(text)
    assert {(n, f.type, f.unit) for n, f in fams.items()} == {
        ("rtgauge_latency_seconds", "summary", "seconds"),
        ("rtgauge_latency_min_seconds", "gauge", "seconds"),
        ("rtgauge_latency_max_seconds", "gauge", "seconds"),
        ("rtgauge_interval_end_timestamp_seconds", "gauge", "seconds"),
        ("rtgauge_interval_gap_seconds", "gauge", "seconds"),
        ("rtgauge_interval_realtime", "gauge", ""),
        ("rtgauge_worst", "info", ""),
    }
    assert all(f.documentation for f in fams.values())
    fig = iv["figures"][0]
    at = {"host": "vm", "label": "line-3", "test": "TMR-P-LAT", "figure": fig["name"]}
    summary = [s for s in fams["rtgauge_latency_seconds"].samples if s.labels.items() >= at.items()]
    quantiles = {s.labels["quantile"]: s.value for s in summary if s.name.endswith("_seconds")}
    # p99.9 is null (600 samples cannot back it): left out, never 0
    assert quantiles == pytest.approx(
        {"0.5": fig["p50"] * 1e-9, "0.9": fig["p90"] * 1e-9, "0.99": fig["p99"] * 1e-9}
    )
    by_name = {s.name: s.value for s in summary}
    assert by_name["rtgauge_latency_seconds_count"] == 600
    assert by_name["rtgauge_latency_seconds_sum"] == pytest.approx(fig["mean"] * 600 * 1e-9)
    (top,) = [s for s in fams["rtgauge_latency_max_seconds"].samples if s.labels == at]
    assert top.value == pytest.approx(84_211e-9)
    (end,) = fams["rtgauge_interval_end_timestamp_seconds"].samples
    expected = datetime(2026, 11, 27, 18, 5, tzinfo=UTC).timestamp()
    assert end.value == pytest.approx(expected)
    (gap,) = fams["rtgauge_interval_gap_seconds"].samples
    assert gap.value == pytest.approx(0.0125)
    (rt,) = fams["rtgauge_interval_realtime"].samples
    assert rt.value == 1
    (worst,) = fams["rtgauge_worst"].samples
    assert worst.labels["culprit"] == 'stress-ng "cpu"/4242'  # escaped and read back


def test_several_intervals_share_each_family_and_a_missing_label_is_left_out() -> None:
    a = _interval("vm", "line-3", "2026-11-27T18:05:00.000Z", 84_211.0)
    b = _interval("rig", None, "2026-11-27T18:10:00.000Z", 50_000.0)
    fams = _families(render([a, b]))
    ends = {s.labels["host"]: s for s in fams["rtgauge_interval_end_timestamp_seconds"].samples}
    assert set(ends) == {"vm", "rig"}
    assert "label" not in ends["rig"].labels and ends["vm"].labels["label"] == "line-3"
    rts = {s.labels["host"]: s.value for s in fams["rtgauge_interval_realtime"].samples}
    assert rts == {"vm": 1, "rig": 0}
    tops = {
        s.labels["host"]: s.value
        for s in fams["rtgauge_latency_max_seconds"].samples
        if s.labels["figure"].endswith("cpu1")
    }
    assert tops == pytest.approx({"vm": 84_211e-9, "rig": 50_000e-9})


def test_nothing_yet_is_an_empty_exposition() -> None:
    assert render([]) == "# EOF\n"
    assert list(parser.text_string_to_metric_families(render([]))) == []
    assert CONTENT_TYPE.startswith("application/openmetrics-text; version=1.0.0")
