"""The report file's download links read by a real browser: headless
Chromium opens the hog run's HTML report and fetches every window's
embedded file through its link; each is the bytes the trace.dat and the
Perfetto writers make for that window, and nothing is logged as an error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from browser import chromium, severe

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.model import load_bundle
from rtgauge.traces.perfetto import run_windows
from rtgauge.traces.window_files import KINDS, file_name, window_bytes

HOG = Path(__file__).resolve().parents[1] / "data" / "explain" / "hog_run.json"


def test_chromium_fetches_each_windows_files_from_the_report(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    code, _, err = cli("report", str(HOG), "--format", "html", "--out", str(out))
    assert code == 0, err
    a = AnalysedRun.of(load_bundle(HOG))
    want = {}
    for t in a.run.tests:
        if t.explain is not None:
            for i, w in enumerate(run_windows(a, [t])):
                for k in KINDS:
                    want[file_name(t.id, i, k)] = list(window_bytes(w, k))
    with chromium(tmp_path / "profile") as driver:
        driver.get(out.as_uri())
        got = driver.execute_async_script(
            "const done = arguments[arguments.length - 1]; const out = {};"
            "Promise.all([...document.querySelectorAll('a[download]')].map(a =>"
            "  fetch(a.href).then(r => r.arrayBuffer())"
            "    .then(b => { out[a.getAttribute('download')] = Array.from(new Uint8Array(b)); })))"
            ".then(() => done(out), e => done({error: String(e)}));"
        )
        assert severe(driver) == []
    assert got.keys() == want.keys() and len(want) == 6
    for name, data in want.items():
        assert got[name] == data, name
