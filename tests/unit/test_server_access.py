"""Who may read and push, in-process (Starlette's test client: no socket, so
a non-loopback address can be tried without listening on one), and the
server's small pure parts: settings, the report frame, the names a pushed
bundle may carry, the push client's token and queue."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from bundle_bytes import bundle_bytes
from starlette.testclient import TestClient

from rtgauge import pushing
from rtgauge.errors import UsageError
from rtgauge.model import bundle_from_records
from rtgauge.report.run_report import bundle_report
from rtgauge.server.app import make_app
from rtgauge.server.frame import framed
from rtgauge.server.intake import check_names
from rtgauge.server.serve import banner
from rtgauge.server.settings import Settings, parse_listen, parse_max_mb
from rtgauge.store import ResultStore, open_store


@pytest.fixture
def store(tmp_path: Path, sample_records: list[dict[str, Any]]) -> ResultStore:
    s = open_store(tmp_path / "store")
    s.add(bundle_bytes(sample_records))
    return s


def _basic(token: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"me:{token}".encode()).decode()}


def test_reading_elsewhere_needs_a_token(store: ResultStore) -> None:
    read = store.add_token("viewer", "read")
    push = store.add_token("lab", "push")
    client = TestClient(make_app(store, Settings("192.0.2.10", 8080)))
    for path in ("/", "/runs/1", "/api/runs", "/api/runs/1/bundle", "/history?label=lab"):
        denied = client.get(path)
        assert denied.status_code == 401, path
        assert denied.headers["www-authenticate"].startswith("Basic")
        assert client.get(path, headers={"Authorization": f"Bearer {read}"}).status_code == 200
        assert client.get(path, headers=_basic(push)).status_code == 200  # a push token reads
        assert client.get(path, headers=_basic(read + "x")).status_code == 401
    assert client.get("/api/health").status_code == 200  # says nothing of the store


def test_loopback_and_public_read_without_a_token(store: ResultStore) -> None:
    for settings in (Settings("127.0.0.1", 8080), Settings("192.0.2.10", 8080, public=True)):
        client = TestClient(make_app(store, settings))
        assert client.get("/api/runs").json()["total"] == 1
        assert client.get("/").status_code == 200


def test_pushing_needs_a_bearer_push_token(
    store: ResultStore, sample_records: list[dict[str, Any]]
) -> None:
    push = store.add_token("lab", "push")
    client = TestClient(make_app(store, Settings("127.0.0.1", 8080)))
    body = bundle_bytes(sample_records, host="other")
    json_type = {"Content-Type": "application/json"}
    # A browser sends Basic credentials by itself: they never push.
    assert (
        client.post("/api/runs", content=body, headers={**_basic(push), **json_type}).status_code
        == 401
    )
    ok = client.post(
        "/api/runs", content=body, headers={"Authorization": f"Bearer {push}", **json_type}
    )
    assert ok.status_code == 201 and ok.json()["id"] == 2
    store.revoke_token("lab")
    again = client.post(
        "/api/runs", content=body, headers={"Authorization": f"Bearer {push}", **json_type}
    )
    assert again.status_code == 401 and again.json() == {
        "error": "the token is not valid (unknown or revoked)"
    }


def test_settings() -> None:
    assert parse_listen("127.0.0.1:8080") == ("127.0.0.1", 8080)
    assert parse_listen("[::1]:0") == ("::1", 0)
    for bad in ("8080", "host:", "host:99999", ":80"):
        with pytest.raises(UsageError):
            parse_listen(bad)
    assert parse_max_mb("0.5") == 512 * 1024
    with pytest.raises(UsageError):
        parse_max_mb("lots")
    assert Settings("127.0.0.5", 1).loopback and Settings("::1", 1).loopback
    assert Settings("localhost", 1).loopback
    assert not Settings("0.0.0.0", 1).loopback and not Settings("192.0.2.1", 1).reading_open


def test_public_is_said_loudly(store: ResultStore) -> None:
    said = "\n".join(banner(store, Settings("0.0.0.0", 8080, public=True)))
    assert "WARNING: --public" in said and "without a token" in said and "*" * 70 in said
    closed = "\n".join(banner(store, Settings("0.0.0.0", 8080)))
    assert "needs a read token" in closed and "WARNING" not in closed
    assert "no token yet" in closed


def test_the_frame_keeps_the_whole_report(sample_records: list[dict[str, Any]]) -> None:
    report = bundle_report(bundle_from_records(sample_records, "x"))
    page = framed(report, '<nav id="bar">bar</nav>', "<script src=/static/x.js></script>")
    assert (
        page.index('<nav id="bar">')
        < page.index("<h1>")
        < page.index("x.js")
        < page.index("</body>")
    )
    for section in (
        "System and how it was measured",
        "Behaviour verdicts",
        "Performance, worst case first",
    ):
        assert section in page
    assert page.count("<body") == 1 and 'href="/static/dashboard.css"' in page


@pytest.mark.parametrize(
    "host",
    [
        "<script>alert(1)</script>",
        "../../etc/passwd",
        "a/b",
        "c:\\x",
        "..",
        " ",
        "a\x00b",
        "é" * 300,
    ],
)
def test_a_host_name_that_is_markup_or_a_path_is_refused(
    sample_records: list[dict[str, Any]], host: str
) -> None:
    b = bundle_from_records(json.loads(json.dumps(sample_records)), "x")
    b.system["host"]["hostname"] = host
    with pytest.raises(UsageError, match="not a host name"):
        check_names(b)


def test_friendly_host_names_pass(sample_records: list[dict[str, Any]]) -> None:
    b = bundle_from_records(json.loads(json.dumps(sample_records)), "x")
    for host in ("vm", "rpi4 lab 3", "board-7.lab.example", "guest 6.1.0-rt"):
        b.system["host"]["hostname"] = host
        check_names(b)


def test_the_push_token_and_the_server_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RTGAUGE_QUEUE", str(tmp_path / "q"))
    monkeypatch.delenv("RTGAUGE_TOKEN", raising=False)
    with pytest.raises(UsageError, match="pushing needs a token"):
        pushing.read_token(None)
    monkeypatch.setenv("RTGAUGE_TOKEN", "rtg_abc")
    assert pushing.read_token(None) == "rtg_abc"
    (tmp_path / "t").write_text("rtg_file\n")
    assert pushing.read_token(tmp_path / "t") == "rtg_file"
    with pytest.raises(UsageError, match="token-file"):
        pushing.read_token(tmp_path / "missing")
    for bad in ("ftp://x", "results.lab:8080", ""):
        with pytest.raises(UsageError):
            pushing.server_url(bad)
    assert pushing.server_url("http://results.lab:8080/") == "http://results.lab:8080"


def test_a_kept_history_answer_follows_new_runs(
    store: ResultStore, sample_records: list[dict[str, Any]]
) -> None:
    """History answers are kept by the runs they were made of: a new run of
    the label gives a new answer, the same runs the same one."""
    client = TestClient(make_app(store, Settings("127.0.0.1", 8080)))
    first = client.get("/history?label=lab").text
    assert client.get("/history?label=lab").text == first
    assert client.get("/api/history?label=lab").json()["runs"] == 1
    store.add(bundle_bytes(sample_records, when="2026-11-02T01:00:00+00:00"))
    again = client.get("/history?label=lab").text
    assert "run 2" in again and "run 2" not in first
    points = client.get("/api/history?label=lab").json()
    assert points["runs"] == 2
    assert [p["run"] for p in points["charts"][0]["points"]] == [1, 2]
