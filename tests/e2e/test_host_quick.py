"""The host tool against the real probe, the short way a user first meets it:
`rtgauge list`, one quick test run, its reports. No timing is judged here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from probe_run import validate

from rtgauge.probe import parse_catalogue


def rtgauge(probe: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rtgauge.cli.main", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, "RTGAUGE_PROBE": str(probe)},
        timeout=300,
    )


def test_catalogue_is_valid_and_listed(host_probe: Path) -> None:
    proc = subprocess.run(
        [str(host_probe), "--list-json"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    entries = parse_catalogue(proc.stdout, "--list-json")
    ids = [e.id for e in entries]
    assert {"CLK-P-RES", "TMR-P-LAT"} <= set(ids) and len(ids) == len(set(ids))
    listed = rtgauge(host_probe, "list")
    assert listed.returncode == 0, listed.stderr
    for i in ids:
        assert i in listed.stdout


@pytest.fixture(scope="module")
def quick_run(host_probe: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    results = tmp_path_factory.mktemp("results")
    proc = rtgauge(
        host_probe, "run", "--quick", "--tests", "CLK-P-RES", "--results-dir", str(results)
    )
    assert proc.returncode == 0, proc.stderr
    bundles = list(results.glob("*/*.json"))
    assert len(bundles) == 1
    assert f"report: {bundles[0].with_suffix('.html')}" in proc.stdout
    assert "CLK-P-RES" in proc.stdout and "clock.read_pair" in proc.stdout  # the summary
    return bundles[0]


def test_quick_run_stores_a_valid_bundle(quick_run: Path) -> None:
    data = json.loads(quick_run.read_text())
    assert data["bundle_version"] == 1 and data["complete"] is True
    assert Path(data["command"][0]).is_file()  # the probe that ran, as invoked
    for record in [data["system"], *data["tests"], data["end"]]:
        validate(record)
    assert [t["id"] for t in data["tests"]] == ["CLK-P-RES"]
    assert not list(quick_run.parent.glob("*.partial.jsonl"))
    html = quick_run.with_suffix(".html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "CLK-P-RES" in html and "<svg" in html


def test_quick_run_is_indexed(host_probe: Path, quick_run: Path) -> None:
    proc = rtgauge(host_probe, "runs", "--results-dir", str(quick_run.parents[1]))
    assert proc.returncode == 0 and quick_run.name in proc.stdout and " ok " in proc.stdout


@pytest.mark.parametrize("fmt, marker", [("md", "| figure (µs) |"), ("html", "<!DOCTYPE html>")])
def test_quick_run_reports(
    host_probe: Path, quick_run: Path, tmp_path: Path, fmt: str, marker: str
) -> None:
    out = tmp_path / f"report.{fmt}"
    proc = rtgauge(host_probe, "report", str(quick_run), "--format", fmt, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert marker in text and "clock.read_pair" in text
