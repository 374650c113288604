"""The data itself: the bundle (a list of them for a multi-run report), with
what the report derived from it under "analysis"."""

from __future__ import annotations

import json

from rtgauge.report.document import Report
from rtgauge.report.formats.exporter import TextExporter


class JsonExporter(TextExporter):
    name, suffix = "json", ".out.json"

    def render(self, report: Report) -> str:
        data = [b.to_json() for b in report.bundles]
        for d, extra in zip(data, report.analysis, strict=False):
            if extra:
                d["analysis"] = extra
        return json.dumps(data[0] if len(data) == 1 else data, indent=1) + "\n"
