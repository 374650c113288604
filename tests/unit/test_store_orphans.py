"""A partial run left by a writer that died is sealed into a bundle when
the store is next opened; one whose writer still holds it is left alone."""

from __future__ import annotations

import json
import os
from pathlib import Path

from rtgauge.model import load_bundle
from rtgauge.store import list_runs
from rtgauge.store.orphans import hold, orphaned

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample_run.jsonl"


def _partial(store: Path, cut_end: bool) -> Path:
    """A run's records as a writer leaves them: the end record missing when
    cut_end, and its last line cut half-way, as a kill mid-write leaves it."""
    lines = SAMPLE.read_text().splitlines()
    if cut_end:
        lines = [x for x in lines if json.loads(x)["record"] != "end"]
        lines[-1] = lines[-1][: len(lines[-1]) // 2]
    partial = store / "host" / "20260101T000000Z.partial.jsonl"
    partial.parent.mkdir(parents=True)
    partial.write_text("\n".join(lines) + "\n")
    return partial


def test_a_partial_nobody_holds_is_sealed_and_listed(tmp_path: Path) -> None:
    partial = _partial(tmp_path, cut_end=True)
    assert orphaned(partial)
    runs = list_runs(tmp_path)
    assert len(runs) == 1 and not partial.exists()
    bundle = load_bundle(tmp_path / "host" / "20260101T000000Z.json")
    assert not bundle.complete
    whole = [json.loads(x) for x in SAMPLE.read_text().splitlines()]
    tests = [r for r in whole if r["record"] == "test"]
    assert len(bundle.tests) == len(tests) - 1  # the test cut half-way is the one lost


def test_a_partial_its_writer_holds_is_left_alone(tmp_path: Path) -> None:
    partial = _partial(tmp_path, cut_end=True)
    fd = os.open(partial, os.O_RDWR)
    try:
        hold(fd)
        assert not orphaned(partial)
        assert list_runs(tmp_path) == [] and partial.exists()
    finally:
        os.close(fd)
    assert len(list_runs(tmp_path)) == 1


def test_a_partial_that_cannot_be_read_is_kept(tmp_path: Path) -> None:
    partial = tmp_path / "host" / "x.partial.jsonl"
    partial.parent.mkdir(parents=True)
    partial.write_text("not json\n")
    assert list_runs(tmp_path) == [] and partial.exists()


def test_the_writer_keeps_intervals_on_disk_not_in_memory(tmp_path: Path) -> None:
    """A long run's interval records are read back from the partial file at
    the end: held as objects they would grow the host all through the run."""
    from rtgauge.store.writer import RunWriter

    records = [json.loads(x) for x in SAMPLE.read_text().splitlines()]
    writer = RunWriter(tmp_path, ["rtgauge", "run"], {"kind": "local"})
    writer.add(records[0])
    sent = [
        {"record": "interval", "id": "TMR-P-LAT", "seq": i, "interval_ms": 100.0,
         "planned_ms": 300.0, "from_ms": 100.0 * i, "to_ms": 100.0 * (i + 1), "figures": []}
        for i in range(3)
    ]  # fmt: skip
    for r in sent:
        writer.add(r)
    assert writer.bundle is not None and writer.bundle.intervals == []
    for r in records[1:]:
        writer.add(r)
    path = writer.finish()
    assert path is not None and writer.bundle.intervals == sent
    assert json.loads(path.read_text())["intervals"] == sent
