"""`rtgauge explain RUN --format perfetto`: the kept windows of recorded runs
(Linux with a FIFO hog, FreeRTOS on the emulated board) in the Chrome/
Perfetto trace-event format, checked against a schema of the format's fields
rtgauge writes, with every track's timestamps in order, the explanation's
pieces as slices that do not overlap, the landmarks and every raw event."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from rtgauge.analysis.explain import explanations
from rtgauge.model import load_bundle
from rtgauge.run import Run

DATA = Path(__file__).resolve().parents[1] / "data"
SCHEMA = json.loads((DATA / "traces" / "trace-event-format.schema.json").read_text())
RUNS = ["hog_run.json", "freertos_run.json"]


def _export(cli: Any, tmp_path: Path, name: str) -> dict[str, Any]:
    out = tmp_path / "trace.json"
    code, _, err = cli("explain", str(DATA / "explain" / name), "--format", "perfetto",
                       "--out", str(out))  # fmt: skip
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out.read_text())
    return doc


def _windows(name: str) -> list[tuple[Any, Any]]:
    run = Run.of(load_bundle(DATA / "explain" / name))
    out = []
    for t in run.tests:
        if t.explain is not None:
            out += list(zip(t.explain.windows, explanations(run, t), strict=True))
    return out


@pytest.mark.parametrize("name", RUNS)
def test_the_export_is_the_trace_event_format_with_ordered_tracks(
    cli: Any, tmp_path: Path, name: str
) -> None:
    doc = _export(cli, tmp_path, name)
    jsonschema.validate(doc, SCHEMA)
    last: dict[tuple[int, int], float] = {}
    ends: dict[tuple[int, int], float] = defaultdict(float)
    for ev in doc["traceEvents"]:
        if ev["ph"] == "M":
            continue
        track = (ev["pid"], ev["tid"])
        assert ev["ts"] >= last.get(track, 0.0), f"{track} goes back in time at {ev}"
        last[track] = ev["ts"]
        if ev["ph"] == "X":  # the explanation's pieces follow each other
            assert ev["ts"] >= ends[track] - 1e-6, ev
            ends[track] = ev["ts"] + ev["dur"]


@pytest.mark.parametrize("name", RUNS)
def test_every_window_its_pieces_landmarks_and_raw_events_are_written(
    cli: Any, tmp_path: Path, name: str
) -> None:
    doc = _export(cli, tmp_path, name)
    evs = doc["traceEvents"]
    windows = _windows(name)
    assert windows, "the recorded run keeps windows"
    names = {e["args"]["name"] for e in evs if e["name"] == "process_name"}
    release = doc["otherData"]["release_ts_us"]
    for i, (rec, x) in enumerate(windows):
        pid = i * 1000 + x.cpu + 1
        assert any(n.startswith(f"sample {i + 1}: ") and n.endswith(f"CPU {x.cpu}") for n in names)
        slices = [e for e in evs if e["ph"] == "X" and e["pid"] // 1000 == i]
        want = [s for s in x.segments if s.end > s.start]
        assert sorted(e["name"] for e in slices) == sorted(s.label or s.kind for s in want)
        marks = {e["name"]: e["ts"] for e in evs if (e["pid"], e["tid"], e["ph"]) == (pid, 2, "i")}
        assert marks["release"] == pytest.approx(release)
        assert marks["end"] == pytest.approx(release + x.sample_ns / 1000)
        if x.switch_at is not None:
            assert marks["switch-in"] == pytest.approx(release + x.switch_at / 1000)
        raw = [e for e in evs if e["ph"] == "i" and e["pid"] // 1000 == i and e["tid"] >= 3]
        assert len(raw) == len(rec.events)
        assert sorted(e["cat"] for e in raw) == sorted(e.kind for e in rec.events)


def test_the_culprit_of_the_hog_run_is_a_slice_named_after_it(cli: Any, tmp_path: Path) -> None:
    doc = _export(cli, tmp_path, "hog_run.json")
    for i, (_, x) in enumerate(_windows("hog_run.json")):
        assert x.named is not None
        label = next(p.label for p in x.parts if p.kind == x.culprit_kind)
        assert any(e["ph"] == "X" and e["name"] == label and e["pid"] // 1000 == i
                   for e in doc["traceEvents"])  # fmt: skip
