"""A report as a list of blocks, rendered by one exporter per format
(report/formats/): what a report says is decided once, here and in
run_report.py, compare_report.py and history_report.py; how it looks is the
formats' business."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rtgauge.analysis.deadline_claim import DeadlineClaim
from rtgauge.run import Run

if TYPE_CHECKING:  # the analysed run renders into documents, not the other way
    from rtgauge.analysis.analysed_run import AnalysedRun


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
    kind: str = ""  # "", "better", "worse", "pass", "fail", "differs", "muted"
    href: str = ""  # where it leads in the same document ("#why-TMR-P-LAT"); HTML only


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


@dataclass
class WindowFiles:
    """Downloads of one kept window (the HTML formats only; the others leave
    it out): the window as files a trace viewer opens. The renderer decides
    where they are (embedded in a report file, a server's address)."""

    test: str
    index: int  # the window's place among the test's kept windows, worst first
    run: int = 0  # the run's place in the report


Block = Heading | Para | Table | Chart | Pre | Details | Notice | WindowFiles

# a download: (the link's text, where it is, the file name it is saved under)
Link = tuple[str, str, str]
WindowLinks = Callable[[WindowFiles], list[Link]]


def cells(*texts: str) -> list[Cell]:
    return [Cell(t) for t in texts]


@dataclass
class Report:
    """What an exporter renders: a title, the blocks, and the runs behind them."""

    title: str
    blocks: list[Block]
    runs: list[Run] = field(default_factory=list)
    # The analysed runs behind it, in the runs' order: what the formats that
    # carry data (json, junit, lava) render, the deadline verdicts among it.
    analysed: list[AnalysedRun] = field(default_factory=list)
    # where a kept window's files are (HTML): set by whoever writes the
    # report (a file embeds them, a server links its addresses); None: no links
    window_links: WindowLinks | None = None

    def claim(self, i: int) -> DeadlineClaim | None:
        return self.analysed[i].claim if i < len(self.analysed) else None
