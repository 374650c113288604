"""LAVA test-shell lines: `lava-test-case NAME --result R [--measurement X
--units us]`, so a LAVA job that runs rtgauge on a board records its verdicts
and figures natively (pipe them to sh inside the job's test shell)."""

from __future__ import annotations

import re

from rtgauge.analysis.deadline_claim import DeadlineClaim
from rtgauge.report.document import Report
from rtgauge.report.formats.exporter import TextExporter
from rtgauge.run import Run

# The figures reported per metric, worst case first.
STATS = (("max", "max"), ("p99_99", "p99_99"), ("p99_9", "p99_9"), ("p99", "p99"), ("mean", "mean"))


def case_name(*parts: str) -> str:
    """A LAVA test case name: letters, digits, '.', '_' and '-' only, so the
    line is also safe for the shell."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", ".".join(parts))[:200]


def lava_lines(run: Run, claim: DeadlineClaim | None) -> list[str]:
    out = []
    missed = set()
    for d in claim.verdicts if claim is not None else []:
        # A deadline the run cannot claim either way is skipped, not passed.
        result = {"met": "pass", "missed": "fail"}.get(d.claim, "skip")
        if d.claim == "missed":
            missed.add((d.test, d.metric))
        rate_pct = d.observed_rate * 100
        out.append(
            f"lava-test-case {case_name(d.test, d.metric, 'deadline')} --result {result} "
            f"--measurement {rate_pct:.6g} --units %"
        )
    for t in run.tests:
        if t.status in ("skipped", "error", "interrupted"):
            result = "skip" if t.status == "skipped" else "fail"
            out.append(f"lava-test-case {case_name(t.id)} --result {result}")
            continue
        for v in t.verdicts:
            result = "fail" if v.failed else "pass"  # a documented difference is no failure
            out.append(f"lava-test-case {case_name(t.id, v.name)} --result {result}")
        for m in t.metrics:
            if not m.count:
                continue
            result = "fail" if (t.id, m.name) in missed else "pass"
            for key, label in STATS:
                value = m.stat(key)
                if value is None:
                    continue
                out.append(
                    f"lava-test-case {case_name(t.id, m.name, label)} --result {result} "
                    f"--measurement {float(value) / 1e3:.3f} --units us"
                )
    return out


def lava_text(report: Report) -> str:
    lines = [line for i, r in enumerate(report.runs) for line in lava_lines(r, report.claim(i))]
    return "\n".join(lines) + "\n"


class LavaExporter(TextExporter):
    """lava-test-case lines, for a LAVA job's test shell."""

    name, suffix = "lava", ".lava.sh"

    def render(self, report: Report) -> str:
        return lava_text(report)
