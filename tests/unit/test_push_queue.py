"""The push queue: oldest first, one copy of the same bytes, bounded in
count and in bytes (a full queue refuses the newest and keeps what it
holds), refused bundles set aside with their reason; and what each answer
of a server means for a bundle."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from rtgauge import push_queue, pushing
from rtgauge.errors import UsageError
from rtgauge.push_queue import Bound, Queued, QueueFull, enqueue, queued, set_aside

SERVER = "http://results.lab:8080"
ROOMY = Bound(100, 2**20)


def test_the_queue_is_sent_oldest_first_and_holds_one_copy(tmp_path: Path) -> None:
    q = tmp_path / "q"
    paths = [enqueue(f'{{"n": {i}}}'.encode(), SERVER, q, ROOMY) for i in range(5)]
    assert [item.path for item in queued(q)] == paths
    assert enqueue(b'{"n": 2}', SERVER, q, ROOMY) == paths[2]  # the same bytes wait already
    assert len(queued(q)) == 5
    assert {item.server for item in queued(q)} == {SERVER}
    push_queue.dequeue(paths[0])
    assert [item.path for item in queued(q)] == paths[1:]
    assert sorted(p.name for p in q.iterdir()) == sorted(
        n for p in paths[1:] for n in (p.name, p.with_suffix(".server").name)
    )


def test_a_queue_an_older_release_wrote_is_ordered_by_file_time(tmp_path: Path) -> None:
    q = tmp_path / "q"
    q.mkdir()
    older, newer = q / ("f" * 64 + ".json"), q / ("0" * 64 + ".json")
    for i, path in enumerate((older, newer)):
        path.write_bytes(b"{}")
        os.utime(path, ns=(10**18 + i, 10**18 + i))
    stamped = enqueue(b'{"new": 1}', SERVER, q, ROOMY)
    assert [item.path for item in queued(q)] == [older, newer, stamped]
    assert queued(q)[0].server == ""  # no .server beside it: --pending needs --server


def test_a_full_queue_refuses_the_newest_and_keeps_what_it_holds(tmp_path: Path) -> None:
    q = tmp_path / "q"
    bound = Bound(3, 2**20)
    kept = [enqueue(f'{{"n": {i}}}'.encode(), SERVER, q, bound) for i in range(3)]
    with pytest.raises(QueueFull, match=r"holds 3 bundles.*at most 3 bundles, 1.0 MiB"):
        enqueue(b'{"n": 3}', SERVER, q, bound)
    assert [item.path for item in queued(q)] == kept
    assert len(list(q.iterdir())) == 6  # nothing written for the refused one


def test_the_queue_is_bounded_in_bytes(tmp_path: Path) -> None:
    q = tmp_path / "q"
    bound = Bound(100, 1000)
    first = enqueue(b"a" * 600, SERVER, q, bound)
    with pytest.raises(QueueFull, match="not queued"):
        enqueue(b"b" * 401, SERVER, q, bound)  # 1001 bytes in all
    second = enqueue(b"c" * 400, SERVER, q, bound)  # exactly the bound
    assert [item.path for item in queued(q)] == [first, second]
    with pytest.raises(QueueFull):
        enqueue(b"d" * 1001, SERVER, tmp_path / "empty", bound)  # larger than the whole queue
    assert not (tmp_path / "empty").exists()


def test_the_bound_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(push_queue.MAX_BUNDLES_ENV, raising=False)
    monkeypatch.delenv(push_queue.MAX_MB_ENV, raising=False)
    default = push_queue.queue_bound()
    assert default == Bound(push_queue.DEFAULT_MAX_BUNDLES, int(push_queue.DEFAULT_MAX_MB * 2**20))
    monkeypatch.setenv(push_queue.MAX_BUNDLES_ENV, "7")
    monkeypatch.setenv(push_queue.MAX_MB_ENV, "0.5")
    assert push_queue.queue_bound() == Bound(7, 2**19)
    for name, bad in ((push_queue.MAX_BUNDLES_ENV, "0"), (push_queue.MAX_BUNDLES_ENV, "x"),
                      (push_queue.MAX_MB_ENV, "-1"), (push_queue.MAX_MB_ENV, "lots")):  # fmt: skip
        monkeypatch.setenv(name, bad)
        with pytest.raises(UsageError, match=name):
            push_queue.queue_bound()
        monkeypatch.setenv(name, "1")


def test_a_refused_bundle_is_set_aside_with_its_reason(tmp_path: Path) -> None:
    q = tmp_path / "q"
    path = enqueue(b'{"bad": 1}', SERVER, q, ROOMY)
    moved = set_aside(Queued(path, SERVER), "refused by the server (422): not a bundle")
    assert queued(q) == [] and moved == q / "refused" / path.name
    assert moved.read_bytes() == b'{"bad": 1}'
    assert moved.with_suffix(".reason").read_text() == (
        f"{SERVER}: refused by the server (422): not a bundle\n"
    )
    assert not path.with_suffix(".server").exists()


@pytest.mark.parametrize(
    ("status", "what", "code", "bundle_refused"),
    [
        (201, "stored", 0, False),
        (200, "duplicate", 0, False),
        (400, "refused", 2, True),
        (409, "refused", 2, True),
        (413, "refused", 2, True),
        (422, "refused", 2, True),
        (401, "refused", 2, False),  # the token, not the bundle: the queue keeps it
        (403, "refused", 2, False),
        (404, "refused", 2, False),
        (301, "refused", 2, False),  # the address
        (408, "unreachable", 3, False),
        (429, "unreachable", 3, False),
        (500, "unreachable", 3, False),
        (503, "unreachable", 3, False),
    ],
)
def test_what_each_answer_means(status: int, what: str, code: int, bundle_refused: bool) -> None:
    got = pushing.judged(SERVER, status, "Phrase", b'{"id": 4, "error": "why\\nnot"}')
    assert (got.what, got.code, got.bundle_refused) == (what, code, bundle_refused)
    if what == "refused":
        assert got.message == f"refused by the server ({status}): why not"


def _answer_before_the_body(listener: socket.socket, answer: bytes) -> None:
    """A server that answers once it has the headers and closes without
    reading the body, as uvicorn does for a bundle over its limit."""
    conn, _ = listener.accept()
    with conn:
        head = b""
        while b"\r\n\r\n" not in head:
            head += conn.recv(4096)
        conn.sendall(answer)


def test_an_answer_sent_before_the_body_is_read_although_the_send_is_cut() -> None:
    body = b'{"error": "the bundle is larger than the server\'s limit of 1 MiB"}'
    answer = (
        b"HTTP/1.1 413 Content Too Large\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body)
    )
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        server = threading.Thread(target=_answer_before_the_body, args=(listener, answer))
        server.start()
        got = pushing.send(f"http://127.0.0.1:{port}", b"x" * (32 * 2**20), "rtg_t", timeout=30)
        server.join(timeout=30)
    assert got.what == "refused" and got.status == 413 and got.code == 2
    assert "(413): the bundle is larger than the server's limit of 1 MiB" in got.message


def test_a_server_not_listening_is_unreachable() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
    got = pushing.send(f"http://127.0.0.1:{port}", b"{}", "rtg_t", timeout=10)
    assert got.what == "unreachable" and got.code == 3 and "cannot reach" in got.message
