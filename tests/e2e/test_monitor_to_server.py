"""The two halves of monitoring together: a real `rtgauge monitor` (the
probe measured interval by interval, 2 s each) pushing to a real
`rtgauge serve`: each closed interval is stored once, read back as the
monitor kept it, drawn on the long view and served at the server's /metrics."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from monitor_wait import BOUND_S, kept, wait_for
from prometheus_client.openmetrics.parser import text_string_to_metric_families
from server_proc import running_server

LABEL = "monitored-e2e"


def test_the_monitor_pushes_to_the_server_which_keeps_shows_and_serves_them(
    tmp_path: Path, host_probe: Path
) -> None:
    store = tmp_path / "monitor"
    with running_server(str(tmp_path / "server")) as server:
        token = tmp_path / "token"
        token.write_text(server.token("monitor") + "\n")
        proc = subprocess.Popen(
            [sys.executable, "-m", "rtgauge.cli.main", "monitor", "--probe", str(host_probe),
             "--cpus", "0", "--interval", "2s", "--label", LABEL, "--server", server.url,
             "--token-file", str(token), "--store", str(store)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            long = f"/api/long?host={{}}&label={quote(LABEL)}"

            def stored() -> int:
                ivs = kept(store)
                if not ivs:
                    return 0
                view = server.json(long.format(quote(ivs[0]["host"])))
                return sum(s["intervals"] for s in view["series"])

            wait_for("two intervals on the server", lambda: stored() >= 2)
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=BOUND_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert proc.returncode == 0, err
        intervals = kept(store)
        host = intervals[0]["host"]
        wait_for("every kept interval on the server", lambda: stored() == len(intervals))
        view = server.json(long.format(quote(host)))
        ids = [i for s in view["series"] for i in s["id"]]
        assert len(ids) == len(intervals) and view["histograms"][0]["count"] > 0
        by_start = {iv["start"]: iv for iv in intervals}
        for i in ids:
            one = server.json(f"/api/intervals/{i}")
            sent = by_start[one["start"]]
            assert (one["test"], one["end"], one["rt"], one["worst"]) == (
                sent["test"], sent["end"], sent["rt"], sent["worst"]
            )  # fmt: skip
            assert [f["name"] for f in one["figures"]] == [f["name"] for f in sent["figures"]]
            assert [f["hist"] for f in one["figures"]] == [f["hist"] for f in sent["figures"]]
        code, text, _ = server.get("/metrics")
        assert code == 200
        fams = {f.name: f for f in text_string_to_metric_families(text)}
        (end,) = fams["rtgauge_interval_end_timestamp_seconds"].samples
        assert end.labels == {"host": host, "label": LABEL, "test": "TMR-P-LAT"}
        newest = max(intervals, key=lambda iv: iv["start"])
        tops = {s.labels["figure"]: s.value for s in fams["rtgauge_latency_max_seconds"].samples}
        assert tops == pytest.approx(
            {f["name"]: f["max"] * 1e-9 for f in newest["figures"] if f["count"]}
        )
