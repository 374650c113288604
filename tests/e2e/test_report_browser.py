"""The reports in a real browser (headless Chromium): every section and chart
is there, nothing from the target runs as markup, and no error is logged."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rtgauge.cli.compare import run_compare
from rtgauge.model import bundle_from_records
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import bundle_report

HOSTILE = "<script>alert('pwned')</script>"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
]


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.fail("chromium is missing: make deps-browser")
    return path


def browse(page: Path, tmp: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chromium(), *FLAGS, f"--user-data-dir={tmp / 'profile'}", *extra, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _bundles(records: list[dict[str, Any]], tmp: Path) -> list[Path]:
    a = copy.deepcopy(records)
    a[0]["host"]["hostname"] = HOSTILE
    b = copy.deepcopy(records)
    b[0]["privileges"]["sched_fifo"] = False
    out = []
    for i, recs in enumerate((a, b)):
        p = tmp / f"run{i}.json"
        p.write_text(json.dumps(bundle_from_records(recs, "x").to_json()))
        out.append(p)
    return out


def test_run_report_in_chromium(sample_records: list[dict[str, Any]], tmp_path: Path) -> None:
    recs = copy.deepcopy(sample_records)
    recs[0]["host"]["hostname"] = HOSTILE
    (page,) = EXPORTERS["html"].write(
        bundle_report(bundle_from_records(recs, "x")), tmp_path / "run.html"
    )
    dom = browse(page, tmp_path, "--dump-dom")
    assert dom.returncode == 0
    for section in (
        "System and how it was measured",
        "Behaviour verdicts",
        "Performance, worst case first",
        "TMR-P-LAT — Periodic wake-up latency",
    ):
        assert section in dom.stdout
    assert dom.stdout.count("<svg") >= 2
    assert "<script>" not in dom.stdout  # the host name stayed text
    assert "&lt;script&gt;alert('pwned')&lt;/script&gt;" in dom.stdout
    assert "Uncaught" not in dom.stderr and "CONSOLE" not in dom.stderr


def test_compare_report_in_chromium(sample_records: list[dict[str, Any]], tmp_path: Path) -> None:
    paths = run_compare(_bundles(sample_records, tmp_path), tmp_path / "cmp", None, "100us", "1e-6")
    html = paths[0]
    dom = browse(html, tmp_path, "--dump-dom")
    for section in (
        "Ratings",
        "Behaviour verdicts",
        "Deadline 100.0 µs",
        "Strong and weak points",
        "Figures side by side",
    ):
        assert section in dom.stdout
    assert "<script>" not in dom.stdout and "CONSOLE" not in dom.stderr
    assert dom.stdout.count("<svg") >= 2  # grouped bars of avg and max
    shot = tmp_path / "cmp.png"
    browse(html, tmp_path, f"--screenshot={shot}", "--window-size=1200,1600")
    assert shot.exists() and shot.stat().st_size > 10000
    assert "| Ratings" not in paths[1].read_text()  # the Markdown twin exists
    assert "## Ratings" in paths[1].read_text()
