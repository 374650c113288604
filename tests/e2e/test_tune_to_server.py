"""A tune result reaching a team's server, on a real PostgreSQL and a real
`rtgauge serve` on 127.0.0.1: `rtgauge tune`'s last step (finish(), given a
result built here: a real tune takes minutes) with a postgresql:// store
writes the tune_results row beside its local file and, its --server not
answering yet, queues the push; `rtgauge push --pending` then sends it to
the server (its own database), which shows it at /tune/NAME with its knobs;
a malformed tune file is refused (by the push before sending; by the server
with 400 when the loader reads it but the server does not take it) and
never queued. One cluster (the session's), one server."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from pg_cluster import free_port
from server_proc import rtgauge, running_server

from rtgauge.cli.tune import finish
from rtgauge.store import open_store
from rtgauge.store.location import Location
from rtgauge.tune import result as stored
from rtgauge.tune.result import (
    Decision,
    FigureTrial,
    NotTried,
    Share,
    Shift,
    Side,
    Trial,
    TuneResult,
)


def _trial(knob: str, title: str, before_ns: float, after_ns: float, outcome: str) -> Trial:
    def side(max_ns: float) -> Side:
        return Side(10, 1_000_000, max_ns, max_ns * 0.5, max_ns * 0.3, max_ns * 0.1, 100)

    shift = Shift((Share("device IRQ", 0.61, 0.0),), (12, 11), "device IRQ 61 % → 0 %", False)
    figure = FigureTrial(
        "TMR-P-LAT", "wakeup_latency", side(before_ns), side(after_ns),
        Decision(outcome, 0.001 if outcome == "helped" else 0.4, f"max {outcome}"),
    )  # fmt: skip
    return Trial(knob, title, "why not", (f"echo 2 > /proc/irq/{knob}",), (figure,), shift)


def _result(host: str = "lab-7") -> TuneResult:
    return TuneResult(
        created_at="2026-11-27T21:00:00+00:00",
        host=host,
        kernel="6.12.0-rt",
        target="local",
        cpus="1",
        tests="TMR-P-LAT",
        rounds=10,
        round_ms=3000,
        seconds=84.2,
        trials=[
            _trial("irq-affinity", "IRQs off the measured CPUs", 80_000.0, 21_000.0, "helped"),
            _trial("thp", "transparent huge pages never", 80_000.0, 79_000.0, "no effect"),
        ],
        not_tried=[NotTried("isolcpus", "isolate the CPUs", "boot-only", "a boot", "isolcpus=1")],
    )


def _count(url: str, table: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
    assert row is not None
    return int(row[0])


def test_a_tune_result_reaches_the_teams_server(
    pg: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tune_store = pg.create_database("tune_local")  # where `rtgauge tune --store` keeps it
    server_store = pg.create_database("tune_server")  # the team's server
    queue = tmp_path / "queue"
    port = free_port()  # nothing listens there yet
    with open_store(server_store) as store:
        token = store.add_token("lab-7", "push")
    monkeypatch.setenv("RTGAUGE_QUEUE", str(queue))
    monkeypatch.setenv("RTGAUGE_TOKEN", token)
    env = {"RTGAUGE_QUEUE": str(queue), "RTGAUGE_TOKEN": token}

    # rtgauge tune's last step: the file, the database row, the push queued.
    local = tmp_path / "rtgauge-results"
    args = argparse.Namespace(
        store=Location.parse(tune_store), results_dir=local, out=None, no_report=True,
        push=f"http://127.0.0.1:{port}", token_file=None,
    )  # fmt: skip
    assert finish(args, _result(), []) == 3  # stored, the server not reached
    (path,) = stored.stored(local)
    name = path.stem
    said = capsys.readouterr()
    assert f"stored: {path}\n" in said.out and f"stored in {args.store} as {name}\n" in said.out
    assert "queued as" in said.err and "rtgauge push --pending" in said.err
    assert len(list(queue.glob("*.json"))) == 1
    with open_store(tune_store) as store:
        assert store.tune(name) == path.read_text()
        ((listed, created_at, host),) = store.tunes(10)
        assert (listed, host, created_at.isoformat()) == (name, "lab-7", "2026-11-27T21:00:00")
    assert _count(tune_store, "tune_results") == 1

    with running_server(server_store, port=port) as server:
        sent = rtgauge("push", "--pending", env=env)
        assert sent.returncode == 0 and f"stored as {name}: {server.url}/tune/" in sent.stdout
        assert not list(queue.glob("*.json"))
        code, page, _ = server.get(f"/tune/{name}")
        assert code == 200 and "irq-affinity" in page and "transparent huge pages" in page
        assert "helped" in page and "<svg" in page
        code, listing, _ = server.get("/tune")
        assert code == 200 and f">{name}</a>" in listing and "lab-7" in listing

        again = rtgauge("push", str(path), "--server", server.url, env=env)
        assert again.returncode == 0 and f"already stored as {name}" in again.stdout

        # Another host's result of the same second: kept beside it, not over it.
        other = tmp_path / "other.json"
        other.write_text(stored.dumps(_result("lab-8")))
        got = rtgauge("push", str(other), "--server", server.url, env=env)
        assert got.returncode == 0 and f"stored as {name}-2" in got.stdout, got.stderr
        assert _count(server_store, "tune_results") == 2

        # Malformed: refused before sending, said on one line, never queued.
        broken = json.loads(path.read_text())
        del broken["trials"][0]["figures"][0]["before"]["max_ns"]
        bad = tmp_path / "tune-bad.json"
        bad.write_text(json.dumps(broken, indent=1))
        got = rtgauge("push", str(bad), "--server", server.url, env=env)
        assert got.returncode == 2 and "a tune result that does not read" in got.stderr
        assert len(got.stderr.splitlines()) == 1
        # One the loader reads but the server does not take: its 400, not queued.
        markup = tmp_path / "tune-markup.json"
        markup.write_text(stored.dumps(_result("<b>lab</b>")))
        got = rtgauge("push", str(markup), "--server", server.url, env=env)
        assert got.returncode == 2, got.stderr
        assert (
            "refused by the server (400): host name '<b>lab</b>' is not a host name" in got.stderr
        )
        assert "(not queued)" in got.stderr
        code, body, _ = server.post(bad.read_bytes(), token, route="/api/tunes")
        assert code == 400 and "a tune result that does not read" in json.loads(body)["error"]
        assert not list(queue.glob("*.json")) and not (queue / "refused").exists()
        assert _count(server_store, "tune_results") == 2
    assert server.code == 0
