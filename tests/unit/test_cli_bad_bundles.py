"""`rtgauge report` of a bad bundle: exit 2 and one line on stderr, whatever is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rtgauge.model import bundle_from_records


def _bundle_text(records: list[dict[str, Any]], edit: Any) -> str:
    data = bundle_from_records(json.loads(json.dumps(records)), "x").to_json()
    edit(data)
    return json.dumps(data, indent=1)


CASES = {
    "truncated": (lambda recs: _bundle_text(recs, lambda d: None)[:-200], "not JSON"),
    "not JSON": (lambda recs: "this is not json\n", "not JSON"),
    "wrong bundle version": (
        lambda recs: _bundle_text(recs, lambda d: d.update(bundle_version=2)),
        "unsupported bundle_version 2",
    ),
    "wrong schema version": (
        lambda recs: _bundle_text(recs, lambda d: d["tests"][0].update(schema_version=9)),
        "unsupported schema_version 9",
    ),
    "missing system record": (
        lambda recs: _bundle_text(recs, lambda d: d.pop("system")),
        "the system record is missing",
    ),
    "stream without system record": (
        lambda recs: "\n".join(json.dumps(r) for r in recs[1:]),
        "the first record must be the system record",
    ),
    "mistyped field": (
        lambda recs: _bundle_text(recs, lambda d: d["tests"][1]["metrics"][0].update(count=1.5)),
        "tests[1]: invalid test at metrics/0/count",
    ),
    "hostile value": (
        lambda recs: _bundle_text(
            recs, lambda d: d["system"]["host"].update(hostname=["\x1b[2J<script>"])
        ),
        "invalid system at host/hostname",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_bundle_is_exit_2_and_one_line(
    cli: Any, sample_records: list[dict[str, Any]], tmp_path: Path, case: str
) -> None:
    make, message = CASES[case]
    path = tmp_path / ("bad.jsonl" if "stream" in case else "bad.json")
    path.write_text(make(sample_records))
    for fmt in ("html", "md", "json"):
        code, out, err = cli("report", str(path), "--format", fmt, "--out", "-")
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith("rtgauge: error: ")
        assert message in err and "\x1b" not in err
