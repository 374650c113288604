"""Loading bundles and probe streams: valid ones load, bad ones are one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rtgauge.errors import UsageError
from rtgauge.model import bundle_from_records, check_record, load_bundle

ROOT = Path(__file__).resolve().parents[2]


def test_packaged_schema_is_the_contract() -> None:
    packaged = ROOT / "src" / "rtgauge" / "data" / "result-v1.json"
    assert packaged.read_text() == (ROOT / "schema" / "result-v1.json").read_text()


def test_sample_stream_loads(sample_records: list[dict[str, Any]], tmp_path: Path) -> None:
    p = tmp_path / "run.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in sample_records) + "\n")
    b = load_bundle(p)
    assert b.complete and [t["id"] for t in b.tests] == ["CLK-P-RES", "TMR-P-LAT", "SEM-B-LCK"]
    again = tmp_path / "bundle.json"
    again.write_text(json.dumps(b.to_json()))
    b2 = load_bundle(again)
    assert b2.tests == b.tests and b2.system == b.system and b2.complete


def test_a_stream_cut_mid_line_keeps_what_came(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    text = (
        "\n".join(json.dumps(r) for r in sample_records[:2])
        + "\n"
        + json.dumps(sample_records[2])[:50]
    )
    p = tmp_path / "cut.jsonl"
    p.write_text(text)
    b = load_bundle(p)
    assert not b.complete and len(b.tests) == 1


def _write(tmp_path: Path, text: str | bytes) -> Path:
    p = tmp_path / "bad.json"
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return p


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda b: b.update(bundle_version=7), "unsupported bundle_version 7"),
        (lambda b: b["system"].update(schema_version=2), "unsupported schema_version 2"),
        (lambda b: b["system"].pop("clock"), "'clock' is a required property"),
        (lambda b: b["tests"][0].update(status="great"), "'great' is not one of"),
        (lambda b: b["tests"][0]["metrics"][0].update(count="many"), "'many' is not of type"),
        (lambda b: b.update(tests={}), "'tests' must be a list"),
        (lambda b: b["tests"].append({"record": "end"}), "tests[3]"),
    ],
)
def test_bad_bundles_are_one_clear_line(
    sample_records: list[dict[str, Any]], tmp_path: Path, mutate: Any, message: str
) -> None:
    bundle = bundle_from_records(sample_records, "x").to_json()
    mutate(bundle)
    with pytest.raises(UsageError) as e:
        load_bundle(_write(tmp_path, json.dumps(bundle)))
    assert message in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "empty file"),
        ("{not json", "not JSON"),
        (b"\xff\xfe\x00", "not UTF-8"),
        ('{"record":"test"}', "unsupported schema_version"),
        ("[1,2]", "must be a JSON object"),
        ('{"bundle_version": 1, "tests": [], "command": [], "target": {}, "system": 5}', "system"),
    ],
)
def test_unreadable_inputs(tmp_path: Path, content: str | bytes, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        load_bundle(_write(tmp_path, content))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read"):
        load_bundle(tmp_path / "nope.json")


def test_first_record_must_be_system(sample_records: list[dict[str, Any]]) -> None:
    with pytest.raises(UsageError, match="first record must be the system record"):
        bundle_from_records(sample_records[1:], "x")
    with pytest.raises(UsageError):
        check_record(sample_records[1] | {"id": "bad id"}, "x")
