"""A real `rtgauge serve` on 127.0.0.1: a stored run's page links each kept
window's files to the server's own addresses, which serve the window as a
Perfetto trace and as a trace.dat that `trace-cmd report` reads (the hog's
pid in it); an address of no window is a 404 with one line."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from server_proc import Server, running_server

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.model import load_bundle
from rtgauge.store import open_store
from rtgauge.traces.perfetto import run_windows
from rtgauge.traces.tracedat import trace_dat_bytes

HOG = Path(__file__).resolve().parents[1] / "data" / "explain" / "hog_run.json"


def _fetch(server: Server, path: str) -> tuple[int, bytes, dict[str, str]]:
    try:
        with urllib.request.urlopen(server.url + path, timeout=60) as answer:
            return answer.status, answer.read(), dict(answer.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), dict(exc.headers)


def test_the_run_page_links_each_window_and_the_server_serves_it(tmp_path: Path) -> None:
    trace_cmd = shutil.which("trace-cmd")
    if trace_cmd is None:
        pytest.fail("trace-cmd is missing: make deps-trace")
    store = str(tmp_path / "store")
    with open_store(store) as s:
        run_id = s.add_file(HOG).id
    a = AnalysedRun.of(load_bundle(HOG))
    test = next(t for t in a.run.tests if t.explain is not None)
    assert test.explain is not None
    windows = run_windows(a, [test])
    hogs = {p for w in test.explain.windows for p, pol in w.policies.items()
            if pol == "SCHED_FIFO" and p != w.tid}  # fmt: skip
    assert len(hogs) == 1
    hog = hogs.pop()
    with running_server(store) as server:
        code, page, _ = server.get(f"/runs/{run_id}")
        assert code == 200
        found = re.findall(r'<a href="(/runs/[^"]+)" download="([^"]+)">', page)
        want = [(f"/runs/{run_id}/windows/{test.id}/{i}.{ext}", f"{test.id}-window{i}.{ext}")
                for i in range(1, len(windows) + 1) for ext in ("json", "dat")]  # fmt: skip
        assert found == want
        for i, w in enumerate(windows, 1):
            code, dat, headers = _fetch(server, f"/runs/{run_id}/windows/{test.id}/{i}.dat")
            assert code == 200 and dat == trace_dat_bytes([w])
            assert headers["content-type"] == "application/octet-stream"
            assert f'filename="{test.id}-window{i}.dat"' in headers["content-disposition"]
            code, raw, headers = _fetch(server, f"/runs/{run_id}/windows/{test.id}/{i}.json")
            assert code == 200 and headers["content-type"] == "application/json"
            assert len([e for e in json.loads(raw)["traceEvents"] if e["ph"] == "X"]) > 0
            # the real reader: the hog is the current task of events in the window
            path = tmp_path / f"w{i}.dat"
            path.write_bytes(dat)
            done = subprocess.run([trace_cmd, "report", str(path)], capture_output=True,
                                  text=True, check=False)  # fmt: skip
            assert done.returncode == 0, done.stderr
            assert re.search(rf"^\s*python3-{hog}\s+\[", done.stdout, re.M)
        for bad, why in [
            (f"/runs/{run_id}/windows/{test.id}/{len(windows) + 1}.dat", "keeps no window"),
            (f"/runs/{run_id}/windows/NO-SUCH-TEST/1.json", "keeps no window"),
            (f"/runs/{run_id}/windows/{test.id}/1.exe", "N.json or N.dat"),
            (f"/runs/{run_id}/windows/{test.id}/0.dat", "N.json or N.dat"),
            (f"/runs/{run_id + 1}/windows/{test.id}/1.dat", f"no run {run_id + 1}"),
        ]:
            code, body, _ = _fetch(server, bad)
            text = body.decode()
            assert code == 404 and why in text and text.count("\n") == 1, (bad, code, text)
