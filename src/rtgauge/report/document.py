"""A report as a list of blocks, rendered by one exporter per format
(report/formats/): what a report says is decided once, here and in
run_report.py, compare_report.py and history_report.py; how it looks is the
formats' business."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rtgauge.model import Bundle


@dataclass
class Heading:
    level: int
    text: str
    anchor: str = ""


@dataclass
class Para:
    text: str
    kind: str = ""  # "", "warn", "note", "lead"


@dataclass
class Cell:
    text: str
    kind: str = ""  # "", "better", "worse", "pass", "fail", "muted"


@dataclass
class Table:
    headers: list[str]
    rows: list[list[Cell]]
    caption: str = ""


@dataclass
class Chart:
    svg: str
    caption: str = ""


@dataclass
class Pre:
    text: str


@dataclass
class Details:
    summary: str
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Notice:
    """A boxed list, e.g. the reasons to trust the figures less."""

    title: str
    items: list[str]
    kind: str = "warn"


Block = Heading | Para | Table | Chart | Pre | Details | Notice


def cells(*texts: str) -> list[Cell]:
    return [Cell(t) for t in texts]


@dataclass
class Report:
    """What an exporter renders: a title, the blocks, and the runs behind them."""

    title: str
    blocks: list[Block]
    bundles: list[Bundle] = field(default_factory=list)
    deadline_ns: float | None = None  # the deadline its verdicts were judged against
    miss_rate: float = 1e-6
    confidence: float = 0.95  # of its deadline bounds and pWCET intervals
    # Numbers the report derived (e.g. a deadline claim), one entry per bundle,
    # for the formats that carry data rather than text.
    analysis: list[dict[str, Any]] = field(default_factory=list)
