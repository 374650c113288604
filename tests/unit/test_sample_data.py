"""The hand-kept sample stream is a valid probe stream: every record passes the
contract, records come in the contract's order, and it covers what the reports
need (per-CPU latency, clock costs, a behaviour test with verdicts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

ROOT = Path(__file__).resolve().parents[2]


def test_every_sample_record_is_valid(sample_records: list[dict[str, Any]]) -> None:
    schema = json.loads((ROOT / "schema" / "result-v1.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for record in sample_records:
        validator.validate(record)


def test_sample_is_a_whole_run_in_order(sample_records: list[dict[str, Any]]) -> None:
    kinds = [r["record"] for r in sample_records]
    assert kinds[0] == "system" and kinds[-1] == "end"
    assert set(kinds[1:-1]) == {"test"}
    tests = {r["id"]: r for r in sample_records if r["record"] == "test"}
    assert list(tests) == sample_records[0]["run"]["tests"]
    assert sample_records[-1]["tests"] == len(tests)
    cpus = [m["name"] for m in tests["TMR-P-LAT"]["metrics"] if ".cpu" in m["name"]]
    assert len(cpus) >= 2
    assert tests["CLK-P-RES"]["metrics"]
    assert tests["SEM-B-LCK"]["kind"] == "B" and tests["SEM-B-LCK"]["verdicts"]
