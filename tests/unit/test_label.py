"""--label: kept in the bundle and the index; an index from before labels still works."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from rtgauge.model import bundle_from_records, load_bundle
from rtgauge.store import RunWriter, list_runs

OLD_INDEX = """CREATE TABLE runs (
    path TEXT PRIMARY KEY, host TEXT, created_at TEXT, target TEXT,
    kernel TEXT, preempt TEXT, tests INTEGER, passed INTEGER, failed INTEGER,
    errors INTEGER, complete INTEGER)"""


def _store(records: list[dict[str, Any]], results: Path, label: str | None) -> Path:
    w = RunWriter(results, ["rtgauge-probe"], {"kind": "local"}, label)
    for r in records:
        w.add(r)
    path = w.finish()
    assert path is not None
    return path


def test_label_is_in_the_bundle_and_the_index(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    path = _store(sample_records, tmp_path, "kvm-6.18")
    assert load_bundle(path).run_label == "kvm-6.18"
    assert [r["label"] for r in list_runs(tmp_path)] == ["kvm-6.18"]
    assert list_runs(tmp_path, "other") == []


def test_a_bundle_without_label_loads_and_writes_no_label_key(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    path = _store(sample_records, tmp_path, None)
    assert '"label"' not in path.read_text()
    assert load_bundle(path).run_label is None


def test_an_index_from_before_labels_is_migrated(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    (tmp_path / "h").mkdir()
    old = bundle_from_records(sample_records, "old")
    (tmp_path / "h" / "old.json").write_text(json.dumps(old.to_json(), indent=1))
    db = sqlite3.connect(tmp_path / "index.sqlite")
    db.execute(OLD_INDEX)
    db.execute("INSERT INTO runs VALUES ('h/old.json','h','2020','local','6.1','full',1,1,0,0,1)")
    db.commit()
    db.close()
    _store(sample_records, tmp_path, "new")
    rows = list_runs(tmp_path)
    assert {r["path"]: r["label"] for r in rows}["h/old.json"] is None
    assert [r["label"] for r in list_runs(tmp_path, "new")] == ["new"]


def test_runs_lists_and_filters_labels(
    sample_records: list[dict[str, Any]], tmp_path: Path, cli: Any
) -> None:
    _store(sample_records, tmp_path, "board-a")
    code, out, _ = cli("runs", "--results-dir", str(tmp_path), "--label", "board-a")
    assert code == 0 and "board-a" in out
    code, out, _ = cli("runs", "--results-dir", str(tmp_path), "--label", "board-b")
    assert code == 0 and "no runs labelled 'board-b'" in out


def test_a_bad_label_is_a_usage_error(cli: Any) -> None:
    code, _, err = cli("run", "--label", "a\nb")
    assert code == 2 and "--label" in err
