"""The HTML reports' download links beside each explained window: in a
report file, every kept window has its Perfetto trace and its trace.dat
embedded as data: URIs, saved under the test's name and the window's
place; the text formats leave them out. (The server's links, which lead to
its own addresses, are tested against a running server:
tests/e2e/test_window_downloads_server.py.)"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.model import load_bundle
from rtgauge.traces.perfetto import run_windows
from rtgauge.traces.tracedat import trace_dat_bytes

DATA = Path(__file__).resolve().parents[1] / "data" / "explain"
_LINK = re.compile(r'<a href="data:([^;"]+);base64,([A-Za-z0-9+/=]+)" download="([^"]+)">')


def _kept(name: str) -> dict[str, list[Any]]:
    a = AnalysedRun.of(load_bundle(DATA / name))
    return {t.id: run_windows(a, [t]) for t in a.run.tests if t.explain is not None}


@pytest.mark.parametrize("name", ["hog_run.json", "freertos_run.json"])
@pytest.mark.parametrize("command", ["report", "explain"])
def test_every_kept_window_has_both_files_embedded(
    cli: Any, tmp_path: Path, name: str, command: str
) -> None:
    out = tmp_path / "r.html"
    code, _, err = cli(command, str(DATA / name), "--format", "html", "--out", str(out))
    assert code == 0, err
    links = {saved: (media, base64.b64decode(data)) for media, data, saved in
             _LINK.findall(out.read_text())}  # fmt: skip
    kept = _kept(name)
    assert sum(len(ws) for ws in kept.values()) * 2 == len(links) > 0
    for test, windows in kept.items():
        for i, w in enumerate(windows, 1):
            media, dat = links[f"{test}-window{i}.dat"]
            assert media == "application/octet-stream" and dat == trace_dat_bytes([w])
            media, raw = links[f"{test}-window{i}.json"]
            doc = json.loads(raw)
            assert media == "application/json"
            # this window alone: its raw events, under the one sample's processes
            raw_events = [e for e in doc["traceEvents"] if e["ph"] == "i" and e["cat"] != "landmark"
                          and e["tid"] >= 3]  # fmt: skip
            assert len(raw_events) == len(w.events)
            names = {e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "process_name"}
            assert all(n.startswith(f"sample 1: {test} ") for n in names)


def test_the_text_formats_leave_the_files_out(cli: Any) -> None:
    for fmt in ("md", "text"):
        code, out, _ = cli("report", str(DATA / "hog_run.json"), "--format", fmt)
        assert code == 0 and "data:" not in out and "window1" not in out
