"""The audit as a report says it: a table on the first screen, failures and
warnings first with their fixes, the evidence of every check below; and as
`rtgauge check` prints it (text, Markdown, JSON)."""

from __future__ import annotations

import json
from typing import Any

from rtgauge.audit import Audit, Finding
from rtgauge.fmt import term
from rtgauge.report.document import Block, Cell, Details, Heading, Para, Table

KIND = {"fail": "fail", "warn": "warn", "pass": "pass", "unknown": "muted", "n/a": "muted"}
HEADING = "Is this system set up for real time?"


def lead(audit: Audit) -> str:
    budget = audit.budget_ns / 1000
    return (
        f"{len(audit.findings)} checks: {audit.counts_text()}. Failures and warnings first, "
        f"each with its fix; the evidence of every check below. Idle states and time slices "
        f"are weighed against a latency budget of {budget:g} µs."
    )


def _grouped(audit: Audit) -> list[tuple[list[Finding], Finding]]:
    """The findings in order, the checks not judged for one same reason
    (a record from before the audit) on one row: (their findings, the first)."""
    out: list[tuple[list[Finding], Finding]] = []
    for f in audit.ordered():
        same = next(
            (
                g
                for g, first in out
                if f.status == "unknown"
                and first.summary == f.summary
                and first.status == "unknown"
            ),
            None,
        )
        if same is not None:
            same.append(f)
        else:
            out.append(([f], f))
    return out


def audit_blocks(audit: Audit) -> list[Block]:
    """The audit's section of a run report (docs/audit.md)."""
    groups = _grouped(audit)
    rows = [
        [
            Cell(f.status.upper(), KIND[f.status]),
            Cell(", ".join(g.id for g in group)),
            Cell(f.summary),
            Cell(f.fix or ("—" if f.status in ("pass", "n/a") else "")),
        ]
        for group, f in groups
    ]
    evidence = Table(
        ["check", "evidence (what was read, where)", "why it matters"],
        [
            [Cell(f.id), Cell(" · ".join(f.evidence)), Cell(f.why)]
            for group, _ in groups
            if len(group) == 1
            for f in group
        ],
    )
    return [
        Heading(2, HEADING, "audit"),
        Para(lead(audit), "note"),
        Table(["", "check", "finding", "fix"], rows),
        Details("Evidence of each check, and why it matters for latency", [evidence]),
    ]


def _finding_text(f: Finding) -> list[str]:
    lines = [f"{f.status.upper():<7} {f.id:<21} {term(f.summary)}"]
    lines += [f"{'':8}evidence: {term(e)}" for e in f.evidence]
    if f.fix:
        lines.append(f"{'':8}fix: {term(f.fix)}")
        lines.append(f"{'':8}why: {f.why}")
    return lines


def audit_text(audit: Audit, header: str) -> str:
    """`rtgauge check`'s text: a line per check, its evidence and fix below it."""
    lines = [term(header), lead(audit), ""]
    for f in audit.ordered():
        lines += _finding_text(f)
    return "\n".join(lines)


def audit_view(audit: Audit) -> dict[str, Any]:
    """The audit as the analysed run's schema gives it (schema/analysis-v1.json,
    audit): the budget, the counts, a finding per check, worst first."""
    return {
        "budget_ns": audit.budget_ns,
        "counts": audit.counts,
        "findings": [f.to_json() for f in audit.ordered()],
    }


def audit_json(audit: Audit) -> str:
    return json.dumps(audit_view(audit), indent=1, ensure_ascii=False)
