"""rtgauge history as a CI job uses it: a real process on a store of bundles
built from fixtures (no timing measured, so no threshold depends on the
machine): exit 0 while the newest run is fine, 1 once it regressed, 2 on bad
input; and the HTML page in headless Chromium."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from history_bundles import body, make, store
from test_report_browser import browse


def history(results: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rtgauge.cli.main", "history", "--results-dir", str(results), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_check_exit_codes(sample_records: list[dict[str, Any]], tmp_path: Path) -> None:
    for day in (1, 2, 3):
        store(tmp_path, make(sample_records, f"2026-01-0{day}T00:00:00+00:00", body(5000, 8)))
    ok = history(tmp_path, "--check")
    assert ok.returncode == 0, ok.stderr
    assert "lab: 3 runs" in ok.stdout and "no regression" in ok.stdout

    store(tmp_path, make(sample_records, "2026-01-04T00:00:00+00:00", body(5000, 400)))
    bad = history(tmp_path, "--check")
    assert bad.returncode == 1
    assert "REGRESSION" in bad.stdout and "one-sided Mann-Whitney" in bad.stdout
    assert "newest run regressed" in bad.stderr
    # Only the older runs: fine again.
    assert history(tmp_path, "--check", "--test", "CLK-*").returncode == 0
    assert history(tmp_path, "--check", "--label", "nothing").returncode == 0

    store(
        tmp_path,
        make(sample_records, "2026-01-05T00:00:00+00:00", body(5000, 400), verdict_pass=False),
    )
    verdict = history(tmp_path, "--check", "--test", "SEM-B-LCK")
    assert verdict.returncode == 1 and "passed before" in verdict.stdout


def test_bad_input_is_exit_2(tmp_path: Path) -> None:
    r = history(tmp_path, "--since", "yesterday-ish")
    assert r.returncode == 2 and r.stderr.startswith("rtgauge: error: --since")


def test_history_page_in_chromium(sample_records: list[dict[str, Any]], tmp_path: Path) -> None:
    results = tmp_path / "store"
    for day, above in ((1, 5), (2, 6), (3, 5), (4, 400)):
        when = f"2026-01-0{day}T00:00:00+00:00"
        store(results, make(sample_records, when, body(5000, above)))
    page = tmp_path / "history.html"
    r = history(results, "--format", "html", "--out", str(page))
    assert r.returncode == 0 and page.exists()
    dom = browse(page, tmp_path, "--dump-dom")
    assert dom.returncode == 0
    for text in ("rtgauge history", "vm — label lab", "Regressions", "TMR-P-LAT", "REGRESSION"):
        assert text in dom.stdout
    assert dom.stdout.count('class="regression"') == 1  # the one regressed run is marked
    assert "CONSOLE" not in dom.stderr and "Uncaught" not in dom.stderr
    shot = tmp_path / "history.png"
    browse(page, tmp_path, f"--screenshot={shot}", "--window-size=1100,1400")
    assert shot.exists() and shot.stat().st_size > 10000
