"""rtgauge monitor end to end: the probe measured interval by interval (2 s),
each closed interval pushed to a real HTTP receiver on 127.0.0.1 that answers
503, then 201, then 400 once: intervals arrive in order, those closed while
it answered 503 are queued and drained oldest first, the refused one is sent
once and never queued; /metrics, read by a real OpenMetrics parser, holds
the newest interval's figures; SIGTERM ends it, saying what was kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from monitor_wait import BOUND_S, kept, wait_for

parser = pytest.importorskip("prometheus_client.openmetrics.parser")

TOKEN = "monitor-e2e-token"
INTERVAL_KEYS = {"start", "end", "test", "gap_ms", "rt", "figures", "worst"}


@dataclass
class Post:
    status: int
    body: dict[str, Any]
    auth: str


@dataclass
class Receiver:
    """Records every POST and answers by its mode: 503, 201, or 400 once
    (then 201 again)."""

    mode: str = "503"
    posts: list[Post] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, body: dict[str, Any], auth: str) -> int:
        with self.lock:
            status = {"503": 503, "201": 201, "400": 400}[self.mode]
            if self.mode == "400":
                self.mode = "201"
            self.posts.append(Post(status, body, auth))
            return status

    def starts(self, status: int) -> list[str]:
        with self.lock:
            return [p.body["intervals"][0]["start"] for p in self.posts if p.status == status]


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, str]]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            status = state.answer(json.loads(raw), self.headers.get("Authorization", ""))
            said = {"stored": 1, "duplicates": 0} if status == 201 else {"error": "no"}
            body = json.dumps(said).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


class Lines:
    """A pipe's lines as they come, read in a thread."""

    def __init__(self, pipe: Any) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self._thread.start()

    def _read(self, pipe: Any) -> None:
        for line in pipe:
            self.lines.append(line.rstrip("\n"))

    def join(self) -> None:
        self._thread.join(timeout=10)


def _check_metrics(url: str, store: Path) -> None:
    with urllib.request.urlopen(url, timeout=10) as answer:
        assert answer.headers["Content-Type"].startswith("application/openmetrics-text")
        text = answer.read().decode()
    fams = {f.name: f for f in parser.text_string_to_metric_families(text)}
    assert fams["rtgauge_latency_seconds"].unit == "seconds"
    assert fams["rtgauge_latency_max_seconds"].type == "gauge"
    (end,) = fams["rtgauge_interval_end_timestamp_seconds"].samples
    # the interval shown is the one the store holds with that end
    from datetime import datetime

    def when(iv: dict[str, Any]) -> float:
        return datetime.fromisoformat(iv["end"].replace("Z", "+00:00")).timestamp()

    (iv,) = [i for i in kept(store) if abs(when(i) - end.value) < 1e-3]
    assert end.labels == {"host": iv["host"], "label": "e2e", "test": "TMR-P-LAT"}
    (rt,) = fams["rtgauge_interval_realtime"].samples
    assert rt.value == (1 if iv["rt"] else 0)
    tops = {s.labels["figure"]: s.value for s in fams["rtgauge_latency_max_seconds"].samples}
    summary = fams["rtgauge_latency_seconds"].samples
    counts = {s.labels["figure"]: s.value for s in summary if s.name.endswith("_count")}
    p50 = {s.labels["figure"]: s.value for s in summary if s.labels.get("quantile") == "0.5"}
    figures = [f for f in iv["figures"] if f["count"]]
    assert figures and set(tops) == {f["name"] for f in figures}
    for f in figures:
        assert tops[f["name"]] == pytest.approx(f["max"] * 1e-9)
        assert counts[f["name"]] == f["count"]
        assert p50[f["name"]] == pytest.approx(f["p50"] * 1e-9)
    if iv["worst"] is not None:
        (info,) = fams["rtgauge_worst"].samples
        assert info.labels["figure"] == iv["worst"]["figure"]


def test_intervals_are_pushed_in_order_queued_while_away_and_served_as_openmetrics(
    tmp_path: Path, host_probe: Path, receiver: tuple[Receiver, str]
) -> None:
    state, url = receiver
    store = tmp_path / "store"
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "rtgauge.cli.main", "monitor", "--probe", str(host_probe),
            "--cpus", "0", "--interval", "2s", "--label", "e2e", "--server", url,
            "--token-file", str(token), "--store", str(store),
            "--metrics-listen", "127.0.0.1:0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    out, err = Lines(proc.stdout), Lines(proc.stderr)
    try:
        metrics = wait_for(
            "the metrics address",
            lambda: next((x.split()[-1] for x in err.lines if "metrics: http" in x), None),
        )
        # 503: the first intervals are kept and queued, the oldest tried each time
        wait_for("two intervals closed while 503", lambda: len(kept(store)) >= 2)
        wait_for("two answers 503", lambda: len(state.starts(503)) >= 2)
        away = [iv["start"] for iv in kept(store)]
        assert set(state.starts(503)) == {away[0]}  # stopped at the oldest each time
        _check_metrics(metrics, store)
        state.mode = "201"
        wait_for("the queue drained", lambda: set(away) <= set(state.starts(201)))
        state.mode = "400"
        wait_for("a refusal", lambda: state.starts(400))
        (refused,) = state.starts(400)
        wait_for("an interval stored after it", lambda: state.starts(201)[-1] > refused)
        _check_metrics(metrics, store)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=BOUND_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        out.join()
        err.join()
    said = "\n".join(err.lines)
    assert proc.returncode == 0, said
    intervals = kept(store)
    assert f"stopped: {len(intervals)} intervals kept in {store / 'intervals'}" in said
    assert len(out.lines) == len(intervals)  # one line per closed interval
    starts = [iv["start"] for iv in intervals]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)
    stored = state.starts(201)
    assert stored == sorted(stored) and len(set(stored)) == len(stored)  # in order, once each
    assert sorted([*stored, refused]) == starts  # every interval reached it
    assert state.starts(400) == [refused]  # refused once, never sent again
    outbox = store / "outbox"
    assert list(outbox.glob("*.json")) == []
    (aside,) = (outbox / "refused").glob("*.json")
    assert json.loads(aside.read_bytes())["intervals"][0]["start"] == refused
    assert len([x for x in err.lines if "(400)" in x]) == 1
    posts = state.posts
    assert {p.auth for p in posts} == {f"Bearer {TOKEN}"}
    for p in posts:
        assert p.body["kind"] == "rtgauge-intervals" and p.body["version"] == 1
        assert p.body["label"] == "e2e" and p.body["host"] == intervals[0]["host"]
        (iv,) = p.body["intervals"]
        assert set(iv) == INTERVAL_KEYS and iv["test"] == "TMR-P-LAT"
        assert isinstance(iv["rt"], bool) and iv["gap_ms"] >= 0
    first = [p for p in posts if p.body["intervals"][0]["start"] == starts[0]]
    assert all(p.body["system"]["record"] == "system" for p in first)
    assert all("system" not in p.body for p in posts if p not in first)
    by_start = {iv["start"]: iv for iv in intervals}
    for p in posts:
        sent = p.body["intervals"][0]
        assert {**sent, "host": p.body["host"], "label": "e2e"} == by_start[sent["start"]]
    assert intervals[0]["gap_ms"] == 0 and all(iv["gap_ms"] > 0 for iv in intervals[1:])


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--interval", "500ms"], "rtgauge: error: --interval '500ms': at least 1 s"),
        (["--tests", "TMR-P-LAT,IRQ-P-LAT"], "the monitor measures one duration test"),
        (["--metrics-listen", "nope"], "--metrics-listen 'nope': give HOST:PORT"),
        (["--server", "http://127.0.0.1:9"], "rtgauge: error: pushing needs a token"),
        (["--tests", "CLK-P-RES", "--for", "5s"], "--tests CLK-P-RES: not a duration test"),
    ],
)
def test_bad_options_exit_2_with_one_line(
    tmp_path: Path, host_probe: Path, args: list[str], says: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "RTGAUGE_TOKEN"}
    proc = subprocess.run(
        [sys.executable, "-m", "rtgauge.cli.main", "monitor", "--probe", str(host_probe),
         "--store", str(tmp_path / "store"), *args],
        capture_output=True, text=True, timeout=BOUND_S, env=env,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    errors = [x for x in proc.stderr.splitlines() if x.startswith("rtgauge: error:")]
    assert len(errors) == 1 and says in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr
