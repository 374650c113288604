"""Progress from the probe's records: a rewritten bar on a terminal, a line per
test in a log."""

from __future__ import annotations

import io
from typing import Any

from rtgauge.report.progress import Progress


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_gets_one_rewritten_line(sample_records: list[dict[str, Any]]) -> None:
    out = Tty()
    p = Progress(out)
    for r in sample_records:
        p.update(r)
    p.done()
    text = out.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")  # one line, rewritten with \r
    assert "vm: 3 tests — running CLK-P-RES" in text
    assert "|######..............| [1/3] CLK-P-RES ok — running TMR-P-LAT" in text
    assert "|####################| [3/3] SEM-B-LCK pass" in text


def test_a_log_gets_a_line_per_test(sample_records: list[dict[str, Any]]) -> None:
    out = io.StringIO()
    p = Progress(out)
    for r in sample_records:
        p.update(r)
    p.done()
    lines = out.getvalue().splitlines()
    assert len(lines) == 4 and "\r" not in out.getvalue() and "\x1b" not in out.getvalue()
    assert lines[1].endswith("[1/3] CLK-P-RES ok") and lines[3].endswith("[3/3] SEM-B-LCK pass")


def test_reasons_are_shown_and_made_safe(sample_records: list[dict[str, Any]]) -> None:
    out = io.StringIO()
    p = Progress(out)
    p.update(sample_records[0])
    p.update(sample_records[1] | {"status": "skipped", "reason": "no TSC\x1b[2J"})
    assert "CLK-P-RES skipped (no TSC\\x1b[2J)" in out.getvalue()
