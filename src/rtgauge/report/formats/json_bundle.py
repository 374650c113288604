"""The analysed run as data (schema/analysis-v1.json): one object, or a
list of them for a comparison. The bundle itself is the store's."""

from __future__ import annotations

import json

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.report.document import Report
from rtgauge.report.formats.exporter import TextExporter


class JsonExporter(TextExporter):
    name, suffix = "json", ".analysis.json"

    def render(self, report: Report) -> str:
        analysed = report.analysed or [AnalysedRun.of(r) for r in report.runs]
        data = [a.to_json() for a in analysed]
        return json.dumps(data[0] if len(data) == 1 else data, indent=1) + "\n"
