"""Monitored intervals on a real server, on both engines: pushed as
`rtgauge monitor` pushes them, stored once each, drawn on the long view and
shown one by one, the newest at /metrics; an alert rule with a webhook fires
once for a run of bad intervals, naming the culprit, and clears once."""

from __future__ import annotations

import json
import re
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

from interval_payloads import interval, payload
from prometheus_client.openmetrics.parser import text_string_to_metric_families
from server_proc import Server, running_server
from webhook_receiver import webhook_receiver

HOST, LABEL = "line-3", "line-3-controller"
T0 = datetime(2026, 11, 20, 0, 0)


def push(server: Server, body: Any, token: str | None) -> tuple[int, Any]:
    req = urllib.request.Request(
        server.url + "/api/intervals", data=json.dumps(body).encode(), method="POST"
    )
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def rules(tmp_path: Path, webhook: str) -> str:
    path = tmp_path / "alerts.toml"
    path.write_text(
        f'[labels."{LABEL}"]\nmax_above = "100us"\nwebhook = "{webhook}"\nclear_after = 3\n'
    )
    return str(path)


def test_intervals_stored_shown_and_alerted_once(store_spec: str, tmp_path: Path) -> None:
    # 10 clean intervals, 4 bad ones (a hog on CPU 1), 3 clean: one incident
    worst = [20_000] * 10 + [150_000, 180_000, 40_000, 160_000] + [20_000] * 3
    culprit = (
        ["irq/36 virtio1-req.0"] * 10 + ["stress-ng-cpu/4242"] * 4 + ["irq/36 virtio1-req.0"] * 3
    )
    ivs = [
        interval(T0 + timedelta(minutes=5 * i), w, c)
        for i, (w, c) in enumerate(zip(worst, culprit, strict=True))
    ]
    with (
        webhook_receiver() as hook,
        running_server(store_spec, "--alerts", rules(tmp_path, hook.url)) as server,
    ):
        token = server.token("monitor-1")
        code, body = push(server, payload(HOST, LABEL, ivs[:12]), None)
        assert code == 401 and "push token" in body["error"]
        assert push(server, payload(HOST, LABEL, ivs[:12]), token) == (
            201,
            {"stored": 12, "duplicates": 0},
        )
        # re-sent with the rest: the first 12 are duplicates, not errors
        assert push(server, payload(HOST, LABEL, ivs), token) == (
            201,
            {"stored": 5, "duplicates": 12},
        )
        got = hook.wait_for(lambda b: any(x["event"] == "cleared" for x in b))
        assert [b["event"] for b in got] == ["fired", "cleared"]
        fired = got[0]
        assert fired["rule"] == "max_above" and fired["host"] == HOST and fired["label"] == LABEL
        assert fired["culprit"] == "stress-ng-cpu/4242" and fired["value"] == 150_000.0
        assert fired["interval"]["start"] == "2026-11-20T00:50:00.000Z"
        assert fired["summary"].startswith("stress-ng-cpu/4242") and fired["window"]["cpu"] == 1

        bad = payload(HOST, LABEL, [dict(ivs[0], test="../etc")])
        code, body = push(server, bad, token)
        assert code == 422 and body["error"].startswith("invalid intervals at intervals/0/test")
        code, body = push(server, payload("<b>x</b>", LABEL, ivs[:1]), token)
        assert code == 422 and "is not a host name" in body["error"]

        view = server.json(f"/api/long?host={HOST}&label={quote(LABEL)}")
        (series,) = view["series"]
        assert series["test"] == "TMR-P-LAT" and series["rt"] and series["intervals"] == 17
        assert max(series["max_us"]) == 180.0
        (hist,) = view["histograms"]
        assert hist["count"] == 17 * 2 * 60_000
        (incident,) = view["incidents"]
        assert incident["rule"] == "max_above" and not incident["open"]
        assert incident["culprit"] == "stress-ng-cpu/4242"

        code, page, headers = server.get(f"/long?host={HOST}&label={quote(LABEL)}")
        assert code == 200 and "script-src 'self'" in headers["content-security-policy"]
        assert "/static/long.js" in page and "stress-ng-cpu/4242" in page
        assert ">150.0 µs<" in page  # the incident's maximum as a reader takes it
        code, runs, _ = server.get("/")
        assert code == 200 and f'href="/long?host={HOST}&amp;label={quote(LABEL)}"' in runs

        worst_id = series["id"][series["max_us"].index(180.0)]
        one = server.json(f"/api/intervals/{worst_id}")
        assert one["max_ns"] == 180_000.0 and one["worst"]["culprit"] == "stress-ng-cpu/4242"
        assert [f["name"] for f in one["figures"]] == ["timer.wakeup.cpu0", "timer.wakeup.cpu1"]
        code, page, _ = server.get(f"/intervals/{worst_id}")
        assert code == 200 and "180.00 µs" in page and "stress-ng-cpu/4242" in page
        assert re.search(r"ran on CPU 1 for the whole delay", page)
        # /metrics: the newest interval of each host, label and test, as OpenMetrics
        code, text, headers = server.get("/metrics")
        assert code == 200
        assert (
            headers["content-type"] == "application/openmetrics-text; version=1.0.0; charset=utf-8"
        )
        fams = {f.name: f for f in text_string_to_metric_families(text)}
        (end,) = fams["rtgauge_interval_end_timestamp_seconds"].samples
        assert end.labels == {"host": HOST, "label": LABEL, "test": "TMR-P-LAT"}
        assert end.value == (T0 + timedelta(minutes=5 * 17)).replace(tzinfo=UTC).timestamp()
        tops = {s.labels["figure"]: s.value for s in fams["rtgauge_latency_max_seconds"].samples}
        assert tops == {"timer.wakeup.cpu0": 9e-6, "timer.wakeup.cpu1": 20e-6}
        assert server.get("/intervals/999999")[0] == 404
        assert server.get(f"/long?host=nobody&label={quote(LABEL)}")[0] == 404
        code, body, _ = server.get("/api/long?label=x")
        assert code == 400 and json.loads(body) == {"error": "a long view needs host="}
    assert server.code == 0
