"""The rtgauge command line: bad input is one line and exit 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "the following arguments are required: command"),
        (["frobnicate"], "invalid choice"),
        (["report"], "the following arguments are required: RUN"),
        (["report", "/nonexistent/x.json"], "cannot read /nonexistent/x.json"),
        (["runs", "--results-dir"], "expected one argument"),
        (
            ["run", "--target", "ftp://x"],
            "expected local, qemu, freertos-qemu, ssh://[user@]host[:port] or labgrid://",
        ),
        (["run", "--target", "qemu"], "needs --kernel PATH or --kernel-package NAME"),
        (["run", "--target", "ssh://a@b:0"], "port 0 is outside"),
    ],
)
def test_usage_errors(cli: Any, argv: list[str], message: str) -> None:
    code, out, err = cli(*argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rtgauge: error: ") and message in lines[0]


def test_report_formats(cli: Any, sample_records: list[dict[str, Any]], tmp_path: Path) -> None:
    src = tmp_path / "run.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in sample_records) + "\n")
    for fmt, marker in (
        ("html", "<!DOCTYPE html>"),
        ("md", "| figure (µs) |"),
        ("json", '"schema": "rtgauge-analysis/1"'),
    ):
        code, out, _ = cli("report", str(src), "--format", fmt, "--out", "-")
        assert code == 0 and marker in out
    code, out, _ = cli("report", str(src), "--deadline", "100us", "--out", str(tmp_path / "r.html"))
    assert code == 0 and "Deadline 100.0 µs" in (tmp_path / "r.html").read_text()
    code, _, err = cli("report", str(src), "--deadline", "fast")
    assert code == 2 and "give a positive time with a unit" in err
    code, _, err = cli("report", str(src), "--miss-rate", "2")
    assert code == 2 and "must be in [0, 1)" in err


def test_hostile_bundle_does_not_crash(cli: Any, tmp_path: Path) -> None:
    p = tmp_path / "evil.json"
    p.write_text('{"bundle_version": 1, "tests": [1], "command": [], "target": {}, "system": {}}')
    code, _, err = cli("report", str(p))
    assert code == 2 and err.count("\n") == 1


def test_runs_of_an_empty_store(cli: Any, tmp_path: Path) -> None:
    code, out, _ = cli("runs", "--results-dir", str(tmp_path / "none"))
    assert code == 0 and "no runs" in out
