"""Pushing runs to a real server, as a lab host does: rtgauge push, --push on
run and import, the queue while the server is away, tokens made and revoked
with rtgauge serve token, and the exit codes (0 stored, 2 refused and never
queued, 3 not reached and queued)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from bundle_bytes import bundle_bytes
from pg_cluster import free_port
from server_proc import rtgauge, running_server

DATA = Path(__file__).parents[1] / "data"


def test_push_stores_once_and_keeps_the_bytes(
    store_spec: str, sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    """On both engines: the bytes kept, the same bytes one run."""
    bundle = tmp_path / "run.json"
    bundle.write_bytes(bundle_bytes(sample_records, host="board-1"))
    with running_server(store_spec) as server:
        env = {"RTGAUGE_TOKEN": server.token("lab-1"), "RTGAUGE_QUEUE": str(tmp_path / "q")}
        first = rtgauge("push", str(bundle), "--server", server.url, env=env)
        assert first.returncode == 0 and "stored as run 1" in first.stdout, first.stderr
        again = rtgauge("push", str(bundle), "--server", server.url, env=env)
        assert again.returncode == 0 and "already stored as run 1" in again.stdout
        listed = server.json("/api/runs")
        assert listed["total"] == 1 and listed["runs"][0]["host"] == "board-1"
        assert listed["runs"][0]["pushed_by"] == "lab-1"
        code, body, headers = server.get("/api/runs/1/bundle")
        assert code == 200 and body.encode() == bundle.read_bytes()
        assert headers["x-content-sha256"] == hashlib.sha256(bundle.read_bytes()).hexdigest()
        one = server.json("/api/runs/1")
        assert [t["id"] for t in one["test_records"]] == ["CLK-P-RES", "TMR-P-LAT", "SEM-B-LCK"]
    # SIGTERM, as a service manager sends it: an ordinary stop.
    assert server.code == 0 and "rtgauge serve: stopped" in server.log


def test_a_refused_bundle_is_exit_2_with_the_servers_reason_and_not_queued(
    pg_store: str, sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(bundle_bytes(sample_records, host="../../etc"))
    with running_server(pg_store) as server:
        env = {"RTGAUGE_TOKEN": server.token("lab"), "RTGAUGE_QUEUE": str(tmp_path / "q")}
        got = rtgauge("push", str(bad), "--server", server.url, env=env)
        assert got.returncode == 2
        assert "refused by the server (422): host name '../../etc' is not a host name" in got.stderr
        assert "not queued" in got.stderr and len(got.stderr.splitlines()) == 1
        wrong = rtgauge(
            "push", str(bad), "--server", server.url,
            env={"RTGAUGE_TOKEN": "rtg_x", "RTGAUGE_QUEUE": str(tmp_path / "q")},
        )  # fmt: skip
        assert wrong.returncode == 2
        assert "refused by the server (401): the token is not valid" in wrong.stderr
        assert server.json("/api/runs")["total"] == 0
    assert not (tmp_path / "q").exists()  # refused bundles are not queued


def test_a_bundle_over_the_servers_limit_is_a_413_said_as_such_and_not_queued(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    """The server answers 413 from the Content-Length and closes without
    reading the body: the push reads that answer although its send is cut
    (a bundle of a few MiB is larger than what the sockets buffer)."""
    big = json.loads(bundle_bytes(sample_records))
    big["command"] = ["x" * (4 * 2**20)]
    bundle = tmp_path / "big.json"
    bundle.write_text(json.dumps(big))
    queue = tmp_path / "q"
    with running_server(str(tmp_path / "store"), "--max-bundle-mb", "0.1") as server:
        env = {"RTGAUGE_TOKEN": server.token("lab"), "RTGAUGE_QUEUE": str(queue)}
        for _ in range(3):  # every time, not by luck of timing
            got = rtgauge("push", str(bundle), "--server", server.url, env=env)
            assert got.returncode == 2, got.stderr
            (line,) = got.stderr.splitlines()
            assert line.startswith(f"rtgauge: {bundle}: refused by the server (413): the bundle (4")
            assert line.endswith("MiB) is larger than the server's limit of 0.1 MiB (not queued)")
        assert server.json("/api/runs")["total"] == 0
    assert not queue.exists()


def test_no_token_is_said_before_anything_runs(tmp_path: Path) -> None:
    env = {"RTGAUGE_TOKEN": ""}
    got = rtgauge("push", str(tmp_path / "x.json"), "--server", "http://127.0.0.1:9", env=env)
    assert got.returncode == 2 and "pushing needs a token" in got.stderr
    imp = rtgauge(
        "import", str(DATA / "import" / "cyclictest-h200.json"), "--store", str(tmp_path / "s"),
        "--push", "http://127.0.0.1:9", env=env,
    )  # fmt: skip
    assert imp.returncode == 2 and "pushing needs a token" in imp.stderr
    assert not (tmp_path / "s").exists()  # nothing was imported either


def test_an_unreachable_server_queues_and_push_pending_sends_later(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    store_spec = str(tmp_path / "store")
    queue = tmp_path / "queue"
    token_file = tmp_path / "token"
    port = free_port()  # nothing listens there yet
    away = f"http://127.0.0.1:{port}"
    runs = [tmp_path / f"r{i}.json" for i in range(2)]
    for i, path in enumerate(runs):
        path.write_bytes(bundle_bytes(sample_records, when=f"2026-11-0{i + 1}T00:00:00+00:00"))
    token_file.write_text("rtg_not-yet-known\n")
    env = {"RTGAUGE_QUEUE": str(queue), "RTGAUGE_TOKEN": ""}
    got = rtgauge(
        "push", *map(str, runs), "--server", away, "--token-file", str(token_file), env=env
    )
    assert got.returncode == 3
    assert got.stderr.count("queued as") == 2 and "rtgauge push --pending" in got.stderr
    assert len(list(queue.glob("*.json"))) == 2
    with running_server(store_spec, port=port) as server:
        token_file.write_text(server.token("lab") + "\n")
        sent = rtgauge("push", "--pending", "--token-file", str(token_file), env=env)
        assert sent.returncode == 0, sent.stderr
        assert sent.stdout.count("stored as run") == 2
        assert server.json("/api/runs")["total"] == 2
    assert list(queue.glob("*.json")) == []
    empty = rtgauge("push", "--pending", "--token-file", str(token_file), env=env)
    assert empty.returncode == 0 and "nothing queued" in empty.stdout


def test_import_push_and_tokens_from_the_command_line(pg_store: str, tmp_path: Path) -> None:
    store = pg_store
    made = rtgauge("serve", "token", "add", "ci-runner", "--store", store)
    assert made.returncode == 0 and made.stdout.startswith("rtg_")
    token = made.stdout.strip()
    assert "shown this once" in made.stderr and token not in made.stderr
    listed = rtgauge("serve", "token", "list", "--store", store)
    assert "ci-runner" in listed.stdout and "active" in listed.stdout and token not in listed.stdout
    with running_server(store) as server:
        env = {"RTGAUGE_TOKEN": token, "RTGAUGE_QUEUE": str(tmp_path / "q")}
        imp = rtgauge(
            "import", str(DATA / "import" / "cyclictest-h200.json"), "--label", "ct",
            "--store", str(tmp_path / "local"), "--push", server.url, env=env,
        )  # fmt: skip
        assert imp.returncode == 0, imp.stderr
        assert "push: stored as run 1" in imp.stdout
        assert server.json("/api/runs?label=ct")["runs"][0]["target_kind"] == "import"
        revoked = rtgauge("serve", "token", "revoke", "ci-runner", "--store", store)
        assert revoked.returncode == 0
        again = rtgauge(
            "import", str(DATA / "import" / "cyclictest-h200.txt"), "--host", "h",
            "--store", str(tmp_path / "local"), "--push", server.url, env=env,
        )  # fmt: skip
        assert again.returncode == 2 and "not valid" in again.stderr
    assert "revoked" in rtgauge("serve", "token", "list", "--store", store).stdout


def test_run_push_from_a_probe_run(pg_store: str, host_probe: Path, tmp_path: Path) -> None:
    """rtgauge run --push: the real probe, measured here, sent to the server."""
    with running_server(pg_store) as server:
        env = {"RTGAUGE_TOKEN": server.token("lab"), "RTGAUGE_QUEUE": str(tmp_path / "q")}
        got = rtgauge(
            "run", "--probe", str(host_probe), "--quick", "--tests", "CLK-P-RES",
            "--store", str(tmp_path / "local"), "--label", "pushed", "--push", server.url,
            "--no-report", env=env,
        )  # fmt: skip
        assert got.returncode in (0, 1), got.stderr
        assert "push: stored as run 1" in got.stdout
        row = server.json("/api/runs?label=pushed")["runs"][0]
        local = next((tmp_path / "local").glob("*/*.json"))
        assert row["sha256"] == hashlib.sha256(local.read_bytes()).hexdigest()
        assert json.loads(server.get("/api/runs/1/bundle")[1])["label"] == "pushed"


def test_the_queue_drains_in_order_and_sets_a_refused_bundle_aside(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    store, queue, port = str(tmp_path / "store"), tmp_path / "queue", free_port()
    runs = {name: tmp_path / f"{name}.json" for name in ("first", "second", "refused", "third")}
    for i, (name, path) in enumerate(runs.items()):
        host = "../../etc" if name == "refused" else name
        path.write_bytes(
            bundle_bytes(sample_records, host=host, when=f"2026-11-0{i + 1}T00:00:00Z")
        )
    with running_server(store, port=port) as server:
        token = server.token("lab")
        env = {"RTGAUGE_TOKEN": token, "RTGAUGE_QUEUE": str(queue)}
        got = rtgauge("push", str(runs["first"]), "--server", server.url, env=env)
        assert got.returncode == 0 and "stored as run 1" in got.stdout
    # The server is away: each push is queued, in the order pushed.
    for name in ("second", "refused", "third"):
        got = rtgauge("push", str(runs[name]), "--server", server.url, env=env)
        assert got.returncode == 3 and "Connection refused" in got.stderr, got.stderr
        assert "queued as" in got.stderr
    full = rtgauge(
        "push", str(runs["first"]), "--server", server.url,
        env={**env, "RTGAUGE_QUEUE_MAX_BUNDLES": "3"},
    )  # fmt: skip
    assert full.returncode == 3 and "not queued: the queue in" in full.stderr
    assert "holds 3 bundles" in full.stderr
    assert len(list(queue.glob("*.json"))) == 3
    away = rtgauge("push", "--pending", env=env)
    assert away.returncode == 3 and "3 bundle(s) stay queued" in away.stderr
    assert len(list(queue.glob("*.json"))) == 3
    with running_server(store, port=port) as server:
        badtoken = rtgauge("push", "--pending", env={**env, "RTGAUGE_TOKEN": "rtg_wrong"})
        assert badtoken.returncode == 2 and "(401)" in badtoken.stderr
        assert "3 bundle(s) stay queued" in badtoken.stderr  # the token, not the bundles
        assert len(list(queue.glob("*.json"))) == 3 and not (queue / "refused").exists()
        sent = rtgauge("push", "--pending", env=env)
        assert sent.returncode == 2, sent.stderr
        assert sent.stdout.count("stored as run") == 2
        assert "refused by the server (422): host name '../../etc'" in sent.stderr
        rows = server.json("/api/runs")["runs"]
        assert sorted((r["id"], r["host"]) for r in rows) == [
            (1, "first"), (2, "second"), (3, "third"),
        ]  # fmt: skip
    assert list(queue.glob("*.json")) == []
    (aside,) = (queue / "refused").glob("*.json")
    assert aside.read_bytes() == runs["refused"].read_bytes()
    reason = aside.with_suffix(".reason").read_text()
    assert reason.startswith(f"{server.url}: refused by the server (422): host name")
    again = rtgauge("push", "--pending", env=env)
    assert again.returncode == 0 and "nothing queued" in again.stdout  # never retried
    assert "(1 refused, kept in refused/)" in again.stdout
