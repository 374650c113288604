"""A comparison's "What differs between these systems": the settings and
the audit side by side, rows that differ first (rtgauge.analysis.differences)."""

from __future__ import annotations

from rtgauge.analysis.differences import SettingRow, differences
from rtgauge.audit import Audit
from rtgauge.report.document import Block, Cell, Details, Heading, Para, Table
from rtgauge.run import Run

HEADING = "What differs between these systems"


def _row(r: SettingRow) -> list[Cell]:
    return [Cell(r.group), Cell(r.name)] + [
        Cell("—", "muted") if v is None else Cell(v) for v in r.values
    ]


def differences_blocks(labels: list[str], runs: list[Run], audits: list[Audit]) -> list[Block]:
    rows = differences(runs, audits)
    header = ["", "setting", *labels]
    # what differs and can be compared: known on every system
    differ = [r for r in rows if r.differs and len(r.known) == len(r.values)]
    partial = [r for r in rows if r not in differ and (r.differs or r.partial)]
    alike = [r for r in rows if not r.differs and not r.partial]
    out: list[Block] = [
        Heading(2, HEADING, "differs"),
        Para(
            f"{len(differ)} settings or findings differ, {len(partial)} are known for only some "
            f"of the systems, {len(alike)} are alike: the kernel command line parameter by "
            "parameter, the real-time-relevant kernel options, the settings the audit reads, "
            "and the audit's findings (docs/audit.md). — : not read on that system.",
            "note",
        ),
    ]
    # first what differs and can be compared (known on every system); what
    # only some systems have (a FreeRTOS column of "—" beside Linux's kernel
    # command line) and what is alike are folded
    if differ:
        out.append(Table(header, [_row(r) for r in differ]))
    else:
        out.append(Para("Nothing that every system reports differs.", "note"))
    if partial:
        out.append(
            Details(
                f"Known for only some of the systems ({len(partial)})",
                [Table(header, [_row(r) for r in partial])],
            )
        )
    if alike:
        out.append(
            Details(
                f"Alike in every system ({len(alike)})", [Table(header, [_row(r) for r in alike])]
            )
        )
    return out
