"""The monitor's outbox and store: intervals sent oldest first, queued while
the server is not reached and drained in order when it is back, a refusal
said once and never queued, a full queue said once; the store append-only,
read back in order, pruned by whole hours beyond --keep."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rtgauge import push_queue
from rtgauge.monitor import outbox as outbox_module
from rtgauge.monitor.outbox import ROUTE, Outbox
from rtgauge.monitor.store import IntervalStore
from rtgauge.pushing import Pushed

SERVER = "http://results.lab:8080"


class FakeServer:
    """Answers each send with the next of `answers` (the last one repeats)."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.got: list[int] = []  # the payloads' numbers, in the order sent

    def __call__(self, server: str, raw: bytes, token: str, timeout: float, route: str) -> Pushed:
        assert (server, token, route) == (SERVER, "tok", ROUTE)
        self.got.append(json.loads(raw)["n"])
        what = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if what == "refused":
            return Pushed("refused", "refused by the server (400): bad interval", None, 400)
        if what == "bad-token":
            return Pushed("refused", "refused by the server (401): bad token", None, 401)
        return Pushed(what, what)


def _box(
    tmp_path: Path, server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> tuple[Outbox, list[str]]:
    monkeypatch.setattr(outbox_module, "send", server)
    said: list[str] = []
    return Outbox(SERVER, "tok", tmp_path / "outbox", said.append), said


def _payload(n: int) -> bytes:
    return json.dumps({"n": n}).encode()


def test_queued_while_away_then_drained_oldest_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = FakeServer("unreachable", "unreachable", "unreachable", "stored")
    box, said = _box(tmp_path, server, monkeypatch)
    for n in range(3):
        box.put(_payload(n))
        box.drain()
    # each try stops at the oldest, which was not taken
    assert server.got == [0, 0, 0]
    assert box.waiting() == 3 and box.sent == 0
    box.put(_payload(3))
    box.drain()
    assert server.got == [0, 0, 0, 0, 1, 2, 3]
    assert box.waiting() == 0 and box.sent == 4
    assert len([s for s in said if "queued" in s]) == 1  # said once while away
    assert any("reached again" in s for s in said)


def test_a_refusal_is_said_once_and_never_queued(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = FakeServer("refused", "stored", "refused", "stored")
    box, said = _box(tmp_path, server, monkeypatch)
    for n in range(4):
        box.put(_payload(n))
        box.drain()
    assert server.got == [0, 1, 2, 3]  # nothing sent twice
    assert (box.sent, box.refused, box.waiting()) == (2, 2, 0)
    assert len([s for s in said if "(400)" in s]) == 1
    refused = sorted((tmp_path / "outbox" / push_queue.REFUSED).glob("*.json"))
    assert [json.loads(p.read_bytes())["n"] for p in refused] == [0, 2]
    assert all(p.with_suffix(".reason").exists() for p in refused)


def test_a_refused_token_keeps_the_queue_for_a_monitor_with_a_good_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = FakeServer("bad-token")
    box, said = _box(tmp_path, server, monkeypatch)
    for n in range(3):
        box.put(_payload(n))
        box.drain()
    assert server.got == [0, 0, 0] and box.waiting() == 3 and box.refused == 0
    assert len([s for s in said if "(401)" in s]) == 1
    assert not (box.folder / push_queue.REFUSED).exists()
    good = FakeServer("stored")
    again, _ = _box(tmp_path, good, monkeypatch)
    again.drain()
    assert good.got == [0, 1, 2] and again.waiting() == 0


def test_a_full_queue_takes_no_more_and_says_so_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(push_queue.MAX_BUNDLES_ENV, "2")
    server = FakeServer("unreachable")
    box, said = _box(tmp_path, server, monkeypatch)
    for n in range(4):
        box.put(_payload(n))
    assert box.waiting() == 2 and box.not_queued == 2
    assert [json.loads(q.path.read_bytes())["n"] for q in push_queue.queued(box.folder)] == [0, 1]
    assert len([s for s in said if "not queued" in s]) == 1


def test_the_default_bound_is_the_monitors_and_the_environment_overrides_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(push_queue.MAX_BUNDLES_ENV, raising=False)
    monkeypatch.delenv(push_queue.MAX_MB_ENV, raising=False)
    assert outbox_module.bound().bundles == outbox_module.DEFAULT_MAX_INTERVALS
    monkeypatch.setenv(push_queue.MAX_MB_ENV, "1")
    assert outbox_module.bound() == push_queue.Bound(push_queue.DEFAULT_MAX_BUNDLES, 2**20)


def test_another_servers_queue_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = FakeServer("stored")
    box, _ = _box(tmp_path, server, monkeypatch)
    push_queue.enqueue(_payload(9), "http://elsewhere:8080", box.folder, box.bound)
    box.put(_payload(1))
    box.drain()
    assert server.got == [1]
    assert [q.server for q in push_queue.queued(box.folder)] == ["http://elsewhere:8080"]


def _iv(end: str, n: int) -> dict[str, object]:
    return {"host": "vm", "label": None, "start": end, "end": end, "test": "TMR-P-LAT", "n": n}


def test_the_store_appends_reads_in_order_and_prunes_whole_hours(tmp_path: Path) -> None:
    store = IntervalStore(tmp_path)
    ends = [
        "2026-11-25T09:59:59.000Z",
        "2026-11-25T10:00:00.000Z",
        "2026-11-27T17:30:00.000Z",
        "2026-11-27T17:35:00.000Z",
    ]
    for n, end in enumerate(ends):
        store.append(_iv(end, n))
    assert [iv["n"] for iv in store.intervals()] == [0, 1, 2, 3]
    assert [p.name for p in store.files()] == [
        "2026-11-25T09.jsonl",
        "2026-11-25T10.jsonl",
        "2026-11-27T17.jsonl",
    ]
    # a line cut short by a crash is skipped, the rest still read
    with (store.folder / "2026-11-27T17.jsonl").open("a") as f:
        f.write('{"host": "vm", "cut')
    assert [iv["n"] for iv in store.intervals()] == [0, 1, 2, 3]
    two_days = 2 * 86_400_000
    # the cutoff is 10:30 two days before: 09:00..10:00 lies wholly beyond it
    gone = store.prune(two_days, datetime(2026, 11, 27, 10, 30, tzinfo=UTC))
    assert [p.name for p in gone] == ["2026-11-25T09.jsonl"]
    assert [iv["n"] for iv in store.intervals()] == [1, 2, 3]
    gone = store.prune(two_days, datetime(2026, 11, 27, 11, 0, tzinfo=UTC))
    assert [p.name for p in gone] == ["2026-11-25T10.jsonl"]
    assert [iv["n"] for iv in store.intervals()] == [2, 3]
    (store.folder / "notes.jsonl").write_text("")
    assert store.prune(1000, datetime(2030, 1, 1, tzinfo=UTC))[-1].name == "2026-11-27T17.jsonl"
    assert (store.folder / "notes.jsonl").exists()  # not one of ours: left alone


def test_the_store_writes_one_line_per_interval_and_never_rewrites(tmp_path: Path) -> None:
    store = IntervalStore(tmp_path)
    path = store.append(_iv("2026-11-27T17:30:00.000Z", 0))
    first = path.read_bytes()
    inode = os.stat(path).st_ino
    store.append(_iv("2026-11-27T17:35:00.000Z", 1))
    assert path.read_bytes().startswith(first) and os.stat(path).st_ino == inode
    assert len(path.read_text().splitlines()) == 2
