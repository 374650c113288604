"""`rtgauge history --format json`: the histories as data for CI, with the
same cells as the terminal's table (report.history_report.run_cells) under
their header names, and each run's findings and changed settings."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from rtgauge.analysis.history import History
from rtgauge.analysis.likeness import run_name
from rtgauge.analysis.limits_json import to_dict
from rtgauge.report.history_report import HEADERS, run_cells, test_ids


def history_json(histories: list[History]) -> str:
    out: list[dict[str, Any]] = []
    for h in histories:
        ids = test_ids(h)
        out.append(
            {
                "system": h.system,
                "label": h.label,
                "regressed": h.runs[-1].regressed,
                "limits": None if h.limits is None else to_dict(h.limits),
                "notes": h.unlike,
                "runs": [
                    {
                        "created_at": e.run.created_at,
                        "name": run_name(e.run),
                        "host": e.run.host,
                        "kernel": e.run.system.host.release,
                        "complete": e.run.complete,
                        "regressed": e.regressed,
                        "changed": e.changed,
                        "findings": [asdict(f) for f in e.findings],
                        "tests": {t: dict(zip(HEADERS, run_cells(e, t), strict=True)) for t in ids},
                    }
                    for e in h.runs
                ],
            }
        )
    return json.dumps(out, indent=1, ensure_ascii=False) + "\n"
