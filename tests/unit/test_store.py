"""The store: records are on disk as they arrive; the bundle and the index at the end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rtgauge.model import load_bundle
from rtgauge.store import RunWriter, list_runs, safe_name


def test_records_are_kept_as_they_arrive(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    w = RunWriter(tmp_path, ["rtgauge-probe", "--quick"], {"kind": "local"})
    w.add(sample_records[0])
    w.add(sample_records[1])
    assert w.partial is not None
    kept = [json.loads(x) for x in w.partial.read_text().splitlines()]
    assert kept == sample_records[:2]  # a kill now loses nothing
    for r in sample_records[2:]:
        w.add(r)
    path = w.finish()
    assert path is not None and path.exists() and not w.partial.exists()
    b = load_bundle(path)
    assert b.complete and b.command == ["rtgauge-probe", "--quick"]
    rows = list_runs(tmp_path)
    assert len(rows) == 1 and rows[0]["complete"] == 1 and rows[0]["tests"] == 3


def test_index_is_rebuilt_from_bundles(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    w = RunWriter(tmp_path, [], {"kind": "local"})
    for r in sample_records[:2]:  # an interrupted run: no end record
        w.add(r)
    w.finish()
    (tmp_path / "index.sqlite").unlink()
    rows = list_runs(tmp_path)
    assert len(rows) == 1 and rows[0]["complete"] == 0


def test_host_names_cannot_escape_the_store() -> None:
    assert safe_name("../../etc") == "etc"
    assert safe_name("<script>alert(1)</script>") == "script_alert_1_script"
    assert safe_name("") == "host"


def test_runs_of_one_host_in_one_second_keep_apart(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    writers = [RunWriter(tmp_path, ["rtgauge-probe"], {"kind": "local"}) for _ in range(3)]
    for w in writers:
        w.stamp = "20260101T000000Z"  # as if all started at once
        w.add(sample_records[0])
    paths = [w.finish() for w in writers]
    assert len({p for p in paths if p}) == 3
    assert [p.name for p in paths if p][1] == "20260101T000000Z-2.json"


def test_runs_per_board(sample_records: list[dict[str, Any]], tmp_path: Path, cli: Any) -> None:
    for place in ("rpi-1", "rpi-2"):
        target = {"kind": "labgrid", "name": f"labgrid://lab/{place}", "place": place}
        w = RunWriter(tmp_path, ["rtgauge-probe"], target)
        for r in sample_records:
            w.add(r)
        w.finish()
    code, out, _ = cli("runs", "--results-dir", str(tmp_path), "--host", "rpi-2")
    assert code == 0 and "labgrid:rpi-2" in out and "rpi-1" not in out
    code, out, _ = cli("runs", "--results-dir", str(tmp_path))
    assert "labgrid:rpi-1" in out and "labgrid:rpi-2" in out
