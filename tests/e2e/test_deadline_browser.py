"""End-to-end: a probe run → the host's deadline section → a real browser.

The probe records TMR-P-LAT with its block maxima; the report judges a
100 µs deadline, fits the tail and draws the pWCET curve; headless Chromium
renders it without an error. No timing threshold: whatever the machine's
latencies, the section must say something definite about each figure.
"""

from __future__ import annotations

import json
from pathlib import Path

from probe_run import run_probe
from test_report_browser import browse

from rtgauge.model import bundle_from_records
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import bundle_report

VERDICTS = ("meets", "misses", "not enough samples")


def test_probe_run_to_pwcet_curve_in_chromium(tmp_path: Path) -> None:
    run = run_probe("--tests", "TMR-P-LAT", "--quick", "--opt", "TMR-P-LAT.duration_ms=1500")
    assert run.tests["TMR-P-LAT"]["status"] == "ok"
    report = bundle_report(bundle_from_records(run.records, "e2e"), 100_000.0, 1e-6)

    data = json.loads(EXPORTERS["json"].render(report))["deadline"]
    assert data["verdicts"] and all(v["verdict"] in VERDICTS for v in data["verdicts"])
    assert all(v["upper_bound_per_activation"] > 0 for v in data["verdicts"])
    (pw,) = [p for p in data["pwcet"] if p["metric"].endswith(".all")]
    assert pw["status"] in ("estimated", "estimated, assumptions not tested", "not applicable")
    assert len(pw["checks"]) == 3  # the block maxima were recorded and tested (or said why not)
    if pw["status"] == "not applicable":
        assert pw["reason"].startswith("because")
    else:
        assert set(pw["latency_at_probability"]) == {"1e-06", "1e-09"}

    page = tmp_path / "run.html"
    page.write_text(EXPORTERS["html"].render(report), encoding="utf-8")
    dom = browse(page, tmp_path, "--dump-dom")
    assert dom.returncode == 0
    assert "pWCET of TMR-P-LAT" in dom.stdout and "deadline 100 µs" in dom.stdout
    assert "exceedance probability" in dom.stdout
    assert "Uncaught" not in dom.stderr and "CONSOLE" not in dom.stderr
    shot = tmp_path / "deadline.png"
    browse(page, tmp_path, f"--screenshot={shot}", "--window-size=1200,2000")
    assert shot.exists() and shot.stat().st_size > 10000
