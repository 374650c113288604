"""A result server against hostile input, on both engines: a missing or wrong
token, an oversize upload, malformed JSON, a bundle the schema refuses, a
host name that is markup or a path, filters carrying SQL. Each gets the
right 4xx with one line, nothing is stored, nothing runs, and the server
goes on answering."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from bundle_bytes import bundle_bytes
from server_proc import Server, running_server

SCRIPT = "<script>alert('pwned')</script>"


@pytest.fixture
def server(store_spec: str) -> Iterator[Server]:
    with running_server(store_spec, "--max-bundle-mb", "0.1") as s:
        yield s


def _one_line(body: str) -> str:
    reason = json.loads(body)["error"]
    assert "\n" not in reason and "Traceback" not in body and 0 < len(reason) <= 300
    return str(reason)


def test_hostile_pushes_are_refused_and_store_nothing(
    server: Server, sample_records: list[dict[str, Any]]
) -> None:
    push, read = server.token("lab"), server.token("viewer", "read")
    good = bundle_bytes(sample_records)
    invalid = json.loads(good)
    invalid["tests"][1]["metrics"][0]["count"] = "many"
    huge = json.loads(good)
    huge["command"] = ["x" * 200_000]
    cases = [
        ("no token", good, None, "application/json", 401, "needs a push token"),
        ("wrong token", good, push + "x", "application/json", 401, "not valid"),
        ("a made-up token", good, "rtg_" + "A" * 43, "application/json", 401, "not valid"),
        ("a read token", good, read, "application/json", 403, "may read, not push"),
        ("oversize", json.dumps(huge).encode(), push, "application/json", 413, "larger"),
        ("malformed JSON", b'{"bundle_version": 1, "system": ', push, "application/json", 400, "not JSON"),
        ("not UTF-8", "{\"x\": \"\xe9\"}".encode("latin-1"), push, "application/json", 400, "UTF-8"),
        ("empty", b"", push, "application/json", 400, "empty"),
        ("schema-invalid", json.dumps(invalid).encode(), push, "application/json", 422, "invalid test"),
        ("NaN", good.replace(b'"mean": 15.615', b'"mean": NaN'), push, "application/json", 400, "NaN is not JSON"),
        ("1e999", good.replace(b'"mean": 15.615', b'"mean": 1e999'), push, "application/json", 400, "beyond a double"),
        ("not a bundle", b"[1, 2]", push, "application/json", 422, "JSON object"),
        ("host a script tag", bundle_bytes(sample_records, host=SCRIPT), push, "application/json", 422, "not a host name"),
        ("host a path", bundle_bytes(sample_records, host="../../etc/passwd"), push, "application/json", 422, "not a host name"),
        ("host a dot", bundle_bytes(sample_records, host=".."), push, "application/json", 422, "not a host name"),
        ("form post", good, push, "application/x-www-form-urlencoded", 415, "application/json"),
    ]  # fmt: skip
    for name, body, token, media, code, reason in cases:
        got, text, _ = server.post(body, token, media)
        assert got == code, (name, got, text)
        assert reason in _one_line(text), (name, text)
    assert server.json("/api/runs")["total"] == 0  # nothing stored
    assert server.get("/api/health")[0] == 200  # still answering
    got, text, _ = server.post(good, push)
    assert got == 201 and json.loads(text)["new"] is True  # and still storing
    assert server.json("/api/runs")["total"] == 1


def test_filters_carrying_sql_are_refused_or_matched_as_text(
    server: Server, sample_records: list[dict[str, Any]]
) -> None:
    push = server.token("lab")
    assert server.post(bundle_bytes(sample_records), push)[0] == 201
    refused = [
        "sort=run_time;DROP%20TABLE%20indexed_runs",
        "order=desc;--",
        "since=2026-01-01'%20OR%201=1--",
        "page=1%20OR%201=1",
        "per_page=-1",
        "status=ok'--",
    ]
    for query in refused:
        for path in ("/api/runs?", "/?"):
            code, text, _ = server.get(path + query)
            assert code == 400, (path, query, code)
            assert "Traceback" not in text and text.count("\n") <= 1
    for query in ("host=vm'%20OR%20'1'='1", "label=x';DROP%20TABLE%20tokens;--", "test=%25"):
        assert server.json("/api/runs?" + query)["total"] == 0  # a value, matched as text
    assert server.json("/api/runs")["total"] == 1  # the table is intact
    assert server.get("/history?label=x'%20OR%201=1--")[0] == 404
    for path in (
        "/runs/1;DROP", "/runs/99999", "/api/runs/abc", "/runs/%C2%B2", "/api/runs?page=%D9%A1",
        "/compare?run=1", "/compare?run=1&run=1", "/nothing",
    ):  # fmt: skip
        code, text, _ = server.get(path)
        assert 400 <= code < 500 and "Traceback" not in text, (path, code)
    assert server.get("/api/health")[0] == 200


def test_every_string_is_escaped_in_pages(
    server: Server, sample_records: list[dict[str, Any]]
) -> None:
    push = server.token("lab")
    label = "<img src=x onerror=alert(1)>"
    assert server.post(bundle_bytes(sample_records, label=label), push)[0] == 201
    for path in ("/", "/runs/1", "/history?label=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"):
        code, html, headers = server.get(path)
        assert code == 200, path
        assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html, path
        assert "script-src 'self'" in headers["content-security-policy"]
    assert server.get("/api/runs/1")[0] == 200
