"""JUnit XML for CI systems: a test case per behaviour verdict and per
deadline verdict; a failing verdict is a <failure> carrying its evidence, a
test the target could not run is <skipped>, a test in error is <error>. A
deadline verdict the run cannot claim (too few samples, or conditions that
cannot support it: emulated, not real-time) is <skipped>, saying why."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

from rtgauge.analysis.deadline_claim import DeadlineClaim
from rtgauge.fmt import us
from rtgauge.report.document import Report
from rtgauge.report.formats.exporter import TextExporter
from rtgauge.run import Run

# XML 1.0 cannot carry most control characters, even escaped.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_text(text: object) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


def _case(suite: ET.Element, classname: str, name: str, seconds: float = 0.0) -> ET.Element:
    return ET.SubElement(
        suite,
        "testcase",
        classname=xml_text(classname),
        name=xml_text(name),
        time=f"{seconds:.3f}",
    )


def _child(case: ET.Element, tag: str, message: str, body: str = "") -> None:
    el = ET.SubElement(case, tag, message=xml_text(message)[:500])
    if body:
        el.text = xml_text(body)


def suite_of(run: Run, claim: DeadlineClaim | None) -> ET.Element:
    suite = ET.Element(
        "testsuite",
        name=xml_text(f"rtgauge {run.host} {run.system.host.release}"),
        hostname=xml_text(run.host),
        timestamp=xml_text(run.created_at or run.system.started_at or ""),
    )
    for t in run.tests:
        seconds = float(t.duration_ms) / 1e3
        cls = f"rtgauge.{t.id}"
        if t.status in ("skipped", "error", "interrupted"):
            case = _case(suite, cls, t.id, seconds)
            tag = "skipped" if t.status == "skipped" else "error"
            _child(case, tag, f"{t.status}: {t.reason or 'no reason given'}")
            continue
        if not t.verdicts:  # a performance test: it ran; its figures as output
            case = _case(suite, cls, t.id, seconds)
            figures = [
                f"{m.name}: max {us(m.max)} µs, mean {us(m.mean)} µs, {m.count} samples"
                for m in t.metrics
                if m.count
            ]
            if figures:
                ET.SubElement(case, "system-out").text = xml_text("\n".join(figures))
        for v in t.verdicts:
            case = _case(suite, cls, v.name, seconds / max(len(t.verdicts), 1))
            if v.documented:  # not a failure: said in the case's output
                ET.SubElement(case, "system-out").text = xml_text(
                    f"{v.outcome_text}: {v.documented.says}; {v.documented.reference}"
                )
            if v.failed:
                evidence = json.dumps(v.evidence, indent=1, ensure_ascii=False)
                _child(
                    case,
                    "failure",
                    f"expected {v.expected}; observed {v.observed}",
                    f"expected: {v.expected}\nobserved: {v.observed}\nevidence: {evidence}",
                )
    if claim is not None:
        deadline = us(claim.deadline_ns)
        for d in claim.verdicts:
            case = _case(suite, f"rtgauge.deadline.{d.test}", f"{d.metric} <= {deadline} µs")
            said = f"deadline {deadline} µs, tolerated rate {claim.rate:g}: {d.explanation()}"
            if d.claim == "missed":
                _child(case, "failure", said, said)
            elif d.claim == "not claimed":
                why = d.limit or "not enough samples to back the rate"
                verb = "meets it" if d.meets else "misses it"
                _child(case, "skipped", f"{verb}, not claimed: {why}; {said}")
    counts = {k: 0 for k in ("tests", "failures", "errors", "skipped")}
    for case in suite.iter("testcase"):
        counts["tests"] += 1
        for tag, key in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
            counts[key] += len(case.findall(tag))
    for k, n in counts.items():
        suite.set(k, str(n))
    return suite


def junit_xml(report: Report) -> str:
    root = ET.Element("testsuites", name="rtgauge")
    totals = {k: 0 for k in ("tests", "failures", "errors", "skipped")}
    for i, run in enumerate(report.runs):
        suite = suite_of(run, report.claim(i))
        root.append(suite)
        for k in totals:
            totals[k] += int(suite.get(k, "0"))
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


class JunitExporter(TextExporter):
    """Behaviour and deadline verdicts as JUnit XML, for CI systems."""

    name, suffix = "junit", ".junit.xml"

    def render(self, report: Report) -> str:
        return junit_xml(report)
