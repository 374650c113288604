"""The data itself: the bundle (a list of them for a multi-run report), with
what the report derived from it (its deadline claim) under "analysis"."""

from __future__ import annotations

import json

from rtgauge.report.document import Report
from rtgauge.report.formats.exporter import TextExporter


class JsonExporter(TextExporter):
    name, suffix = "json", ".out.json"

    def render(self, report: Report) -> str:
        data = [r.bundle.to_json() for r in report.runs]
        for d, c in zip(data, report.claims, strict=False):
            d["analysis"] = {"deadline": c.to_json()}
        return json.dumps(data[0] if len(data) == 1 else data, indent=1) + "\n"
