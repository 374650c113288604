"""Bundles as the bytes a host sends, built from the recorded sample run with
a chosen host, label and time (no timing measured: every figure is known)."""

from __future__ import annotations

import copy
import json
from typing import Any

from rtgauge.model import bundle_from_records


def bundle_bytes(
    records: list[dict[str, Any]],
    host: str = "vm",
    label: str | None = "lab",
    when: str = "2026-11-01T01:00:00+00:00",
    target: dict[str, Any] | None = None,
    failed: bool = False,
    complete: bool = True,
) -> bytes:
    recs = copy.deepcopy(records if complete else records[:-1])
    recs[0]["host"]["hostname"] = host
    if failed:
        for r in recs:
            if r.get("id") == "SEM-B-LCK":
                r["verdicts"][0]["pass"] = False
                r["status"] = "fail"
            if r["record"] == "end":
                r["failed"], r["passed"] = 1, r["passed"] - 1
    b = bundle_from_records(recs, "fixture")
    b.created_at = when
    b.run_label = label
    b.target = target or {"kind": "local", "name": "local"}
    return json.dumps(b.to_json(), indent=1).encode()
