"""A tune result in every kind of store and on its way to a server: the
loader that every copy passes (a pushed one trusted in nothing), the store's
add_tune / tune / tunes on a directory store (the files) and on the
tune_results table (on SQLite here; PostgreSQL in tests/e2e), the server's
POST /api/tunes and its pages, and how `rtgauge push` recognises and routes
a tune result. The result comes from synthetic rounds (test_tune_report)."""

from __future__ import annotations

import argparse
import json
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.dialects import sqlite
from starlette.testclient import TestClient
from test_tune_report import _result

from rtgauge import pushing
from rtgauge.cli.push import file_bytes
from rtgauge.cli.tune import finish
from rtgauge.errors import UsageError
from rtgauge.server.app import make_app
from rtgauge.server.settings import Settings
from rtgauge.store import open_store
from rtgauge.store.location import Location
from rtgauge.store.tune_results import TuneResults
from rtgauge.tune import result as stored
from rtgauge.tune.result import TuneResult, loads, name_of


def _json(r: TuneResult | None = None) -> dict[str, Any]:
    return json.loads(stored.dumps(r or _result()))  # type: ignore[no-any-return]


def _spoilt(change: Any) -> bytes:
    d = _json()
    change(d)
    return json.dumps(d).encode()


def test_a_result_reads_back_through_the_loader() -> None:
    r = _result()
    assert loads(stored.dumps(r)) == r
    assert name_of(r) == "tune-20260102T030405+0000"


def _set(d: dict[str, Any], path: list[Any], value: Any) -> None:
    for key in path[:-1]:
        d = d[key]
    d[path[-1]] = value


@pytest.mark.parametrize(
    "path, value, said",
    [
        (["host"], 7, "result.host is not str"),
        (["rounds"], "4", "result.rounds is not int"),
        (["rounds"], True, "result.rounds is not int"),
        (["seconds"], None, "result.seconds is not float"),
        (["created_at"], "yesterday", "created_at 'yesterday' is not an ISO time"),
        (["written"], "cmdline.txt", "result.written is not a list"),
        (["trials", 0, "figures", 0, "before", "max_ns"], "x", "before.max_ns is not float"),
        (["trials", 0, "figures", 0, "decision", "p"], [], "decision.p is not float"),
        (["trials", 0, "shift", "windows"], [1], "a tune result that does not read"),
        (["trials", 0, "knob"], {"a": 1}, "trials[0].knob is not str"),
        (["not_tried"], [{"knob": "x"}], "a tune result that does not read"),
        (["version"], 2, "not a tune result (kind tune, version 1)"),
    ],
)
def test_a_field_of_the_wrong_shape_is_refused_saying_where(
    path: list[Any], value: Any, said: str
) -> None:
    with pytest.raises(UsageError, match=None) as caught:
        loads(_spoilt(lambda d: _set(d, path, value)))
    assert said in str(caught.value)


def test_a_missing_field_and_what_is_not_json_are_said() -> None:
    with pytest.raises(UsageError, match="it has no 'trials'"):
        loads(_spoilt(lambda d: d.pop("trials")))
    with pytest.raises(UsageError, match="body: not UTF-8 JSON"):
        loads(b"\xff{", "the body")
    with pytest.raises(UsageError, match="not a tune result"):
        loads(b"[1, 2]")


def test_a_name_is_made_of_safe_characters_only() -> None:
    odd = TuneResult("2026-01-02 03:04:05/../x", "h", "k", "local", "1", "T", 1, 1000, 1.0)
    assert stored.NAME.fullmatch(name_of(odd)) and "/" not in name_of(odd)


def test_a_directory_store_keeps_tune_results_as_its_files(tmp_path: Path) -> None:
    body = stored.dumps(_result())
    with open_store(tmp_path) as store:
        assert store.tunes() == [] and store.tune("tune-x") is None
        name, new = store.add_tune("tune-20260102T030405+0000", body, "lab")
        assert (name, new) == ("tune-20260102T030405+0000", True)
        assert (tmp_path / f"{name}.json").read_text() == body
        assert store.add_tune(name, body) == (name, False)  # the same JSON: once
        other = stored.dumps(_result()).replace('"host": "box"', '"host": "other"')
        assert store.add_tune(name, other) == (f"{name}-2", True)  # the same second
        assert store.tune(name) == body
        listed = store.tunes(10)
        assert sorted(n for n, _, _ in listed) == [name, f"{name}-2"]
        assert {h for _, _, h in listed} == {"box", "other"}
        assert store.tunes(1) == listed[:1]
        assert store.tune("../index") is None
    assert not list(tmp_path.glob(".tune-*"))  # no temporary file left


def test_the_store_refuses_a_bad_result_or_name_and_keeps_nothing(tmp_path: Path) -> None:
    with open_store(tmp_path) as store:
        with pytest.raises(UsageError, match="not a tune result"):
            store.add_tune("tune-1", '{"kind": "run"}')
        with pytest.raises(UsageError, match="not a tune result's name"):
            store.add_tune("../tune-1", stored.dumps(_result()))
        assert store.tunes() == []
    assert not list(tmp_path.glob("*.json"))


def test_the_table_keeps_them_by_name_newest_first(tmp_path: Path) -> None:
    """The database store's code path, on the SQLite engine of a directory
    store (its schema holds the table too)."""
    with open_store(tmp_path) as store:
        table = TuneResults(store.engine, None, nullcontext(), sqlite.insert)
        older = _result()
        newer = _result()
        newer.created_at, newer.host = "2026-02-01T00:00:00+01:00", "newer"
        a, b = stored.dumps(older), stored.dumps(newer)
        assert table.add("tune-a", a, "lab") == ("tune-a", True)
        assert table.add("tune-a", a) == ("tune-a", False)
        assert table.add("tune-a", b) == ("tune-a-2", True)
        assert table.add("tune-b", b) == ("tune-a-2", False)  # the same JSON, any name
        assert table.get("tune-a") == a and table.get("tune-a-2") == b
        assert table.get("tune-c") is None and table.get("../x") is None
        (first, second) = table.listed(10)
        assert first[0] == "tune-a-2" and first[2] == "newer"
        assert str(first[1]) == "2026-01-31 23:00:00"  # UTC
        assert second[0] == "tune-a" and table.listed(1) == [first]
        assert not list(tmp_path.glob("tune-*.json"))  # rows, not files


def _client(root: Path) -> tuple[TestClient, str, str]:
    store = open_store(root)
    push, read = store.add_token("lab", "push"), store.add_token("viewer", "read")
    return TestClient(make_app(store, Settings("127.0.0.1", 8080))), push, read


def _post(client: TestClient, body: bytes, token: str | None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return client.post("/api/tunes", content=body, headers=headers)


def test_a_pushed_result_is_stored_once_and_shown(tmp_path: Path) -> None:
    client, push, _ = _client(tmp_path)
    body = stored.dumps(_result()).encode()
    got = _post(client, body, push)
    assert got.status_code == 201, got.text
    name = got.json()["name"]
    assert got.json() == {"name": name, "new": True, "url": f"/tune/{name}"}
    again = _post(client, body, push)
    assert again.status_code == 200 and again.json()["new"] is False
    page = client.get(f"/tune/{name}")
    assert page.status_code == 200 and "irq-affinity" in page.text and "<svg" in page.text
    listing = client.get("/tune")
    assert listing.status_code == 200 and f'href="/tune/{name.replace("+", "%2B")}"' in listing.text
    assert 'href="/tune">tune results</a>' in client.get("/").text


@pytest.mark.parametrize(
    "body, said",
    [
        (b"{", "not UTF-8 JSON"),
        (b'{"kind": "tune", "version": 1}', "it has no 'created_at'"),
        (json.dumps({**_json(), "rounds": "many"}).encode(), "result.rounds is not int"),
        (json.dumps({**_json(), "host": "<b>x</b>"}).encode(), "is not a host name"),
    ],
)
def test_a_malformed_result_is_a_400_with_the_reason(
    tmp_path: Path, body: bytes, said: str
) -> None:
    client, push, _ = _client(tmp_path)
    got = _post(client, body, push)
    assert got.status_code == 400 and said in got.json()["error"]
    assert client.get("/tune").text.count("/tune/tune-") == 0


def test_pushing_a_result_needs_a_push_token(tmp_path: Path) -> None:
    client, _, read = _client(tmp_path)
    body = stored.dumps(_result()).encode()
    assert _post(client, body, None).status_code == 401
    assert _post(client, body, read).status_code == 403
    assert _post(client, body, "rtg_nothing").status_code == 401
    assert not list(tmp_path.glob("tune-*.json"))


def test_push_sends_a_tune_file_to_its_route_and_checks_it_first(tmp_path: Path) -> None:
    path = stored.save(_result(), tmp_path)
    assert file_bytes(path) == (path.read_bytes(), pushing.TUNES)
    renamed = tmp_path / "result.json"  # known by its kind, whatever its name
    renamed.write_bytes(path.read_bytes())
    assert file_bytes(renamed)[1] == pushing.TUNES
    bad = tmp_path / "tune-bad.json"
    bad.write_text('{"kind": "tune", "version": 1, "host": "x"}')
    with pytest.raises(UsageError, match="tune-bad.json: a tune result that does not read"):
        file_bytes(bad)
    assert pushing.route_of(path.read_bytes()) == pushing.TUNES
    assert pushing.route_of(b'{"bundle_version": 1}') == pushing.RUNS
    assert pushing.route_of(b"\xff") == pushing.RUNS


def test_the_servers_answer_for_a_tune_result_names_its_page() -> None:
    got = pushing.judged("http://s:1", 201, "Created", b'{"name": "tune-1+0000", "new": true}')
    assert got.code == 0 and got.message == "stored as tune-1+0000: http://s:1/tune/tune-1%2B0000"
    again = pushing.judged("http://s:1", 200, "OK", b'{"name": "tune-1", "new": false}')
    assert again.what == "duplicate" and "already stored as tune-1" in again.message


def test_finish_in_a_directory_store_writes_the_file_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = argparse.Namespace(
        store=Location.directory(tmp_path), results_dir=tmp_path, out=None, no_report=True
    )
    assert finish(args, _result(), []) == 0
    (path,) = stored.stored(tmp_path)
    assert stored.load(path).out_dir.endswith("-config")
    out = capsys.readouterr().out
    assert f"stored: {path}\n" in out and " as " not in out.split("stored:")[1].splitlines()[0]
    with open_store(tmp_path) as store:
        assert [n for n, _, _ in store.tunes()] == [path.stem]


def test_finish_says_a_database_it_cannot_reach_after_storing_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing listens on the port: the file and the report stand, exit 2, one line."""
    from pg_cluster import free_port

    url = f"postgresql://rtgauge:x@127.0.0.1:{free_port()}/nothing"
    args = argparse.Namespace(
        store=Location.parse(url), results_dir=tmp_path, out=None, no_report=False
    )
    assert finish(args, _result(), []) == 2
    (path,) = stored.stored(tmp_path)
    assert path.with_suffix(".html").is_file()
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"rtgauge: {path} is stored, but not in postgresql://rtgauge:***@")
