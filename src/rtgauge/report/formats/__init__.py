"""Every output format of a report, one module each, behind one interface
(exporter.py): text, html, md, json, csv, junit, lava, cyclictest-hist."""

from __future__ import annotations

from rtgauge.report.formats.csv_tables import CsvExporter
from rtgauge.report.formats.cyclictest_hist import CyclictestHistExporter
from rtgauge.report.formats.exporter import Exporter
from rtgauge.report.formats.html_page import HtmlExporter
from rtgauge.report.formats.json_bundle import JsonExporter
from rtgauge.report.formats.junit_xml import JunitExporter
from rtgauge.report.formats.lava_cases import LavaExporter
from rtgauge.report.formats.markdown import MarkdownExporter
from rtgauge.report.formats.plain_text import PlainTextExporter

EXPORTERS: dict[str, Exporter] = {
    e.name: e
    for e in (
        HtmlExporter(),
        MarkdownExporter(),
        JsonExporter(),
        CsvExporter(),
        JunitExporter(),
        LavaExporter(),
        CyclictestHistExporter(),
        PlainTextExporter(),
    )
}
