"""No interval is computed by hand in the catalogue.

A timed sample goes through rtg_metric_interval, which counts an interval
whose end precedes its start (an early wake-up, a clock that stepped) as
`negative` instead of folding it to a 0 ns sample. What is no sample (a
sleep still to go, a counter's growth) uses rtg_past from
core/catalogue/common/catalogue.h. So the shape `a > b ? a - b : 0` (and
`a >= b ? a - b : 0`, `b < a ? a - b : 0`) has no place in a test's file.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "core" / "catalogue"
TERM = r"[A-Za-z_][\w.\[\]]*(?:->[\w.\[\]]+)*"
# a > b ? a - b : 0, a >= b ? ..., b < a ? a - b : 0, b <= a ? ...
FOLD = re.compile(
    rf"(?P<a>{TERM})\s*>=?\s*(?P<b>{TERM})\s*\?\s*\(?\s*(?P=a)\s*-\s*(?P=b)\s*\)?\s*:\s*0\b"
    rf"|(?P<d>{TERM})\s*<=?\s*(?P<c>{TERM})\s*\?\s*\(?\s*(?P=c)\s*-\s*(?P=d)\s*\)?\s*:\s*0\b"
)


def folds(text: str) -> list[int]:
    """Line numbers of every hand-folded difference in a C source."""
    return [n for n, line in enumerate(text.splitlines(), 1) if FOLD.search(line)]


def test_the_shape_is_recognised() -> None:
    """The control: each spelling of the fold is caught, a plain ternary is not."""
    caught = [
        "uint64_t d = now > next ? now - next : 0;",
        "x = t->end >= t->start ? t->end - t->start : 0;",
        "late = next < now ? (now - next) : 0;",
        "room = free_bytes > reserve ? free_bytes - reserve : 0;",
    ]
    for line in caught:
        assert folds(line) == [1], line
    for line in ("n = a > b ? a : b;", "x = a > b ? a - c : 0;", "return rtg_past(now, next);"):
        assert folds(line) == [], line


def test_no_test_folds_an_interval_by_hand() -> None:
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in sorted(CATALOGUE.rglob("*.c")) + sorted(CATALOGUE.rglob("*.h"))
        for n in folds(p.read_text())
    ]
    assert found == [], "use rtg_metric_interval for a sample, rtg_past for the rest: " + str(found)
