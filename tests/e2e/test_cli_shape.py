"""The CLI's shape end to end: runs read by their id from a real store (a
directory, and a throwaway PostgreSQL), and the text format by default when
stdout is a terminal (a pseudo-terminal here)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
HOG = DATA / "explain" / "hog_run.json"
IDLE = DATA / "explain" / "idle_vm_run.json"


def rtgauge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rtgauge.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "RTGAUGE_STORE": ""},
    )


def test_runs_by_id_on_either_engine(store_spec: str) -> None:
    from rtgauge.store import open_store

    with open_store(store_spec) as store:
        ids = [store.add(p.read_bytes(), source="run").id for p in (HOG, IDLE)]
    listed = rtgauge("runs", "--store", store_spec, "--format", "json")
    assert listed.returncode == 0, listed.stderr
    assert sorted(r["id"] for r in json.loads(listed.stdout)) == sorted(ids)
    first, second = map(str, ids)

    got = rtgauge("report", first, "--store", store_spec, "--format", "json")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["run"]["created_at"] == json.loads(HOG.read_text())["created_at"]
    got = rtgauge("explain", first, "--store", store_spec, "--format", "json", "--out", "-")
    assert got.returncode == 0 and json.loads(got.stdout)[0]["test"] == "TMR-P-LAT", got.stderr
    got = rtgauge("compare", first, second, "--store", store_spec, "--format", "json")
    assert got.returncode == 0, got.stderr
    assert len(json.loads(got.stdout)) == 2

    missing = str(max(ids) + 10)
    for command in (["report", missing], ["explain", missing], ["compare", first, missing]):
        got = rtgauge(*command, "--store", store_spec)
        assert got.returncode == 2 and got.stdout == ""
        assert got.stderr.startswith(f"rtgauge: error: run {missing}: no such run in ")
        assert got.stderr.count("\n") == 1 and "password" not in got.stderr.lower()


def on_a_terminal(*args: str) -> tuple[int, str]:
    """rtgauge with its stdout on a pseudo-terminal: its exit code and what it showed."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "rtgauge.cli.main", *args],
        stdout=follower,
        stderr=subprocess.PIPE,
        env={**os.environ, "COLUMNS": "100"},
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the program closed the terminal's last writer
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.stderr is not None
    proc.stderr.read()
    code = proc.wait(timeout=60)
    return code, b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def test_text_is_the_default_on_a_terminal(tmp_path: Path) -> None:
    code, shown = on_a_terminal("explain", str(HOG))
    assert code == 0 and "Why the worst case: TMR-P-LAT" in shown
    assert "<1 %" in shown and "&lt;" not in shown and "###" not in shown
    code, shown = on_a_terminal("report", str(HOG))
    assert code == 0 and shown.startswith("rtgauge: vm — ")
    assert "|---|" not in shown and "<!--" not in shown and "\\[" not in shown
    code, shown = on_a_terminal("compare", str(HOG), str(IDLE))
    assert code == 0 and shown.startswith("rtgauge comparison: vm")
    # Off a terminal the documents stay Markdown, as a CI log or a file wants them.
    piped = rtgauge("explain", str(HOG))
    assert piped.returncode == 0 and "### Why the worst case: TMR-P-LAT" in piped.stdout
