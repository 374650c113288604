"""Property-based: whatever the bytes, the bundle loader either loads or says
one clear line (UsageError); it never raises anything else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.errors import UsageError
from rtgauge.model import bundle_from_records, load_bundle
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import bundle_report
from rtgauge.report.summary import summary_text

SAMPLE = [
    json.loads(x)
    for x in (Path(__file__).parents[1] / "data" / "sample_run.jsonl").read_text().splitlines()
]
BUNDLE = json.dumps(bundle_from_records(SAMPLE, "x").to_json())

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


def _load(tmp: Path, data: bytes) -> None:
    p = tmp / "b.json"
    p.write_bytes(data)
    try:
        bundle = load_bundle(p)
    except UsageError as exc:
        assert "\n" not in str(exc)
        return
    # Whatever loads, renders: a report never crashes on a valid bundle.
    assert EXPORTERS["html"].render(bundle_report(bundle)).startswith("<!DOCTYPE html>")
    EXPORTERS["md"].render(bundle_report(bundle))
    summary_text(AnalysedRun.of(bundle))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cut=st.integers(min_value=0, max_value=len(BUNDLE)))
def test_truncated_bundles(tmp_path: Path, cut: int) -> None:
    _load(tmp_path, BUNDLE[:cut].encode())


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    path=st.lists(
        st.sampled_from(
            [
                "system",
                "tests",
                0,
                "metrics",
                "hist",
                "buckets",
                "host",
                "clock",
                "end",
                "verdicts",
                "privileges",
            ]
        ),
        min_size=1,
        max_size=4,
    ),
    value=json_values,
)
def test_mistyped_fields(tmp_path: Path, path: list[Any], value: Any) -> None:
    doc = json.loads(BUNDLE)
    node: Any = doc
    for key in path[:-1]:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            break
    try:
        node[path[-1]] = value
    except (TypeError, IndexError):
        pass
    _load(tmp_path, json.dumps(doc).encode())


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=300))
def test_random_bytes(tmp_path: Path, data: bytes) -> None:
    _load(tmp_path, data)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    key=st.sampled_from(["min", "max", "mean", "stddev", "p50", "p99", "p99_99", "worst_at_ms"]),
    value=st.none() | st.integers(min_value=-(10**15), max_value=10**15) | st.floats(-1e15, 1e15),
    which=st.integers(min_value=0, max_value=20),
)
def test_odd_but_valid_figures_render(tmp_path: Path, key: str, value: Any, which: int) -> None:
    doc = json.loads(BUNDLE)
    metrics = [m for t in doc["tests"] for m in t["metrics"]]
    metrics[which % len(metrics)][key] = value
    _load(tmp_path, json.dumps(doc).encode())
