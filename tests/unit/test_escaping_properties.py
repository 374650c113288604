"""Property-based: any string a target sends stays text in every format, and
the histogram chart draws any valid bucket list."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_metric import as_metric

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.fmt import term
from rtgauge.model import bundle_from_records
from rtgauge.report import plots
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import bundle_report
from rtgauge.report.summary import summary_text

SAMPLE = [
    json.loads(x)
    for x in (Path(__file__).parents[1] / "data" / "sample_run.jsonl").read_text().splitlines()
]
NASTY = st.text(alphabet=st.sampled_from(list("<>&\"'`*[]()|\\\n\x1b\x07 az/=!#")), max_size=40)


@settings(max_examples=40, deadline=None)
@given(hostname=NASTY, reason=NASTY, observed=NASTY)
def test_target_strings_never_become_markup(hostname: str, reason: str, observed: str) -> None:
    recs = copy.deepcopy(SAMPLE)
    recs[0]["host"]["hostname"] = hostname
    recs[1]["reason"] = reason
    recs[3]["verdicts"][0]["observed"] = observed
    bundle = bundle_from_records(recs, "x")
    html = EXPORTERS["html"].render(bundle_report(bundle))
    # The only tags are ours: none can start from the target's '<'.
    tags = set(re.findall(r"<([a-zA-Z!/][a-zA-Z0-9]*)", html))
    assert tags <= {
        "!DOCTYPE", "html", "/html", "head", "/head", "meta", "title", "/title", "style",
        "/style", "body", "/body", "h1", "/h1", "h2", "/h2", "h3", "/h3", "p", "/p", "div",
        "/div", "strong", "/strong", "ul", "/ul", "li", "/li", "table", "/table", "thead",
        "/thead", "tbody", "/tbody", "tr", "/tr", "th", "/th", "td", "/td", "pre", "/pre",
        "details", "/details", "summary", "/summary", "figure", "/figure", "figcaption",
        "/figcaption", "svg", "/svg", "rect", "/rect", "line", "text", "/text", "caption",
        "/caption", "polyline", "circle", "/circle", "g", "/g", "path",
    }  # fmt: skip
    md = EXPORTERS["md"].render(bundle_report(bundle))
    body = md.split("\n", 1)[1]  # after the title comment, which _text escapes too
    assert "<" not in body and "](" not in body.replace("\\](", "")
    assert "\x1b" not in summary_text(AnalysedRun.of(bundle)) and "\x07" not in term(observed)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 1 << 30), st.integers(1, 1 << 20)),
        min_size=1,
        max_size=40,
        unique_by=lambda t: t[0],
    ),
    st.integers(0, 5),
)
def test_histogram_draws_any_bucket_list(pairs: list[tuple[int, int]], overflow: int) -> None:
    buckets = sorted([lo, lo + max(1, lo // 128), n] for lo, n in pairs)
    metric = as_metric(
        {
            "name": "t.x",
            "hist": {"buckets": buckets, "overflow": overflow, "overflow_above": 1 << 35},
        }
    )
    svg = plots.histogram_svg(metric)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    bars = re.findall(r"<title>(\d+) samples</title>", svg)
    assert sum(int(b) for b in bars) == sum(n for _, _, n in buckets)  # every sample drawn
    heights = [float(h) for h in re.findall(r'height="([0-9.]+)" fill="#1f6feb"', svg)]
    assert all(h >= 0 for h in heights)
