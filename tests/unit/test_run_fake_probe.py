"""`rtgauge run` against a stand-in probe (a shell script replaying lines), so the
host's side of a run is checked without building or timing anything."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from rtgauge.model import load_bundle


def fake_probe(tmp_path: Path, lines: list[str], code: int = 0, stderr: str = "") -> Path:
    data = tmp_path / "stream.jsonl"
    data.write_text("".join(line + "\n" for line in lines))
    script = tmp_path / "fake-probe"
    err = f"echo {shlex.quote(stderr)} >&2\n" if stderr else ""
    script.write_text(f"#!/bin/sh\ncat {shlex.quote(str(data))}\n{err}exit {code}\n")
    script.chmod(0o755)
    return script


@pytest.fixture
def results(tmp_path: Path) -> Path:
    return tmp_path / "results"


def _run(cli: Any, probe: Path, results: Path) -> tuple[int, str, str]:
    return cli("run", "--probe", str(probe), "--results-dir", str(results), "--quick")


def test_a_whole_run_is_stored_indexed_and_reported(
    cli: Any, sample_records: list[dict[str, Any]], tmp_path: Path, results: Path
) -> None:
    probe = fake_probe(tmp_path, [json.dumps(r) for r in sample_records])
    code, out, err = _run(cli, probe, results)
    assert code == 0, err
    (bundle,) = results.glob("vm/*.json")
    b = load_bundle(bundle)
    assert b.complete and b.command == [str(probe), "--quick"]
    assert bundle.with_suffix(".html").exists() and f"report: {bundle.with_suffix('.html')}" in out
    assert "[3/3] SEM-B-LCK pass" in err  # progress, one line per test off a terminal
    assert not list(results.glob("vm/*.partial.jsonl"))
    assert (results / "index.sqlite").exists()


def test_invalid_lines_are_kept_and_the_run_is_flagged(
    cli: Any, sample_records: list[dict[str, Any]], tmp_path: Path, results: Path
) -> None:
    lines = [json.dumps(r) for r in sample_records]
    lines.insert(2, "garbage \x1b[2J")
    code, _, err = _run(cli, fake_probe(tmp_path, lines), results)
    assert code == 3  # something the target sent could not be used
    assert "probe output: not JSON" in err and "\x1b" not in err
    (rejected,) = results.glob("vm/*.rejected.txt")
    assert rejected.read_text() == "garbage \x1b[2J\n"  # verbatim
    (bundle,) = results.glob("vm/*.json")
    assert len(load_bundle(bundle).tests) == 3


def test_a_stream_that_stops_is_stored_incomplete(
    cli: Any, sample_records: list[dict[str, Any]], tmp_path: Path, results: Path
) -> None:
    lines = [json.dumps(r) for r in sample_records[:2]]
    code, out, _ = _run(cli, fake_probe(tmp_path, lines, code=137), results)
    assert code == 3
    (bundle,) = results.glob("vm/*.json")
    b = load_bundle(bundle)
    assert not b.complete and b.end is None and [t["id"] for t in b.tests] == ["CLK-P-RES"]
    assert "incomplete" in out


def test_probe_usage_error_is_relayed_and_nothing_stored(
    cli: Any, tmp_path: Path, results: Path
) -> None:
    probe = fake_probe(tmp_path, [], code=2, stderr="rtgauge-probe: error: --prio 200: above 98")
    code, out, err = _run(cli, probe, results)
    assert code == 2 and out == ""
    assert err == "rtgauge: error: --prio 200: above 98\n"
    assert not results.exists() or not any(results.iterdir())


def test_a_failed_behaviour_test_is_exit_1(
    cli: Any, sample_records: list[dict[str, Any]], tmp_path: Path, results: Path
) -> None:
    recs = json.loads(json.dumps(sample_records))
    recs[3]["status"] = "fail"
    recs[3]["verdicts"][0]["pass"] = False
    recs[4].update(passed=2, failed=1, exit_code=1)
    code, out, _ = _run(cli, fake_probe(tmp_path, [json.dumps(r) for r in recs], code=1), results)
    assert code == 1 and "FAIL p_on_positive_count_does_not_block" in out


def test_a_run_into_a_database_store_keeps_its_files_here_too(
    cli: Any,
    sample_records: list[dict[str, Any]],
    tmp_path: Path,
    pg_store: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--store postgresql://…: the records still land in ./rtgauge-results as they
    arrive (nothing lost if the host dies), and the bundle goes into the database;
    runs and history then read it from there."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RTGAUGE_STORE", pg_store)
    probe = fake_probe(tmp_path, [json.dumps(r) for r in sample_records])
    code, out, err = cli("run", "--probe", str(probe), "--quick", "--label", "db")
    assert code == 0, err
    (bundle,) = (tmp_path / "rtgauge-results").glob("vm/*.json")
    assert not (tmp_path / "rtgauge-results" / "index.sqlite").exists()
    code, out, _ = cli("runs", "--label", "db", "--format", "json")
    (row,) = json.loads(out)
    assert code == 0 and row["id"] == 1 and row["host"] == "vm" and row["file"] is None
    code, out, _ = cli("history", "--label", "db")
    assert code == 0 and "vm — label db: 1 runs" in out

    from rtgauge.store import open_store

    with open_store(pg_store) as store:
        row = store.get(1)
        assert row is not None and store.raw(row) == bundle.read_bytes()
