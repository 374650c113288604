"""The Perfetto export read by a real browser: headless Chromium parses the
file with the page's JSON.parse and counts its events by kind; the counts
are Python's, and nothing is logged as an error."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from browser import chromium, severe

DATA = Path(__file__).resolve().parents[1] / "data" / "explain"


def test_chromium_parses_the_export_and_counts_its_events(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "windows.json"
    code, _, err = cli("explain", str(DATA / "hog_run.json"), "--format", "perfetto",
                       "--out", str(out))  # fmt: skip
    assert code == 0, err
    text = out.read_text()
    want = Counter(e["ph"] for e in json.loads(text)["traceEvents"])
    with chromium(tmp_path / "profile") as driver:
        driver.get("about:blank")
        got = driver.execute_script(
            "const d = JSON.parse(arguments[0]); const n = {};"
            "for (const e of d.traceEvents) n[e.ph] = (n[e.ph] || 0) + 1;"
            "return n;",
            text,
        )
        assert severe(driver) == []
    assert got == dict(want)
    assert got["X"] > 0 and got["i"] > 0 and got["M"] > 0
