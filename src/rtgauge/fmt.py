"""Numbers and names as a reader sees them."""

from __future__ import annotations

import re
from typing import Any

# The figure columns, worst case first.
COLUMNS = [
    ("max", "max"),
    ("p99_99", "p99.99"),
    ("p99_9", "p99.9"),
    ("p99", "p99"),
    ("p50", "p50"),
    ("mean", "mean"),
    ("min", "min"),
    ("stddev", "stddev"),
]


def us(ns: Any) -> str:
    """ns as µs with a precision that suits the size; '—' for null."""
    if ns is None:
        return "—"
    v = float(ns) / 1e3
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.3f}"


def us2(ns: Any) -> str:
    """ns as µs with 2 decimals (the metric tables); '—' for null."""
    return "—" if ns is None else f"{float(ns) / 1e3:,.2f}"


_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def term(text: Any) -> str:
    """A target's string made safe for a terminal: control bytes (escape
    sequences could rewrite the screen) shown as \\xNN, newlines as spaces."""
    s = str(text).replace("\n", " ")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", s)


CLIP_MARK = "…"
_NUMBER_WORD = re.compile(r"[-+]?[0-9][0-9,.]*%?")
_NUMBER_TAIL = re.compile(r"[-+]?[0-9][0-9,.]*$")


def clip(text: str, width: int) -> str:
    """text cut to width columns with a visible mark (…): the longest head of
    whole words that fits, a number kept whole or dropped with its unit
    ("20459" without its "ns" says nothing). A single word wider than width
    is cut between letters, a number at its end dropped whole."""
    if len(text) <= width:
        return text
    room = max(width - len(CLIP_MARK), 0)
    words = text.split(" ")
    kept: list[str] = []
    for w in words:
        if len(" ".join([*kept, w])) > room:
            if kept and _NUMBER_WORD.fullmatch(kept[-1]) and w[:1].isalpha():
                kept.pop()
            break
        kept.append(w)
    head = " ".join(kept).rstrip(" :,;(")
    if not head:
        head = _NUMBER_TAIL.sub("", text[:room])
    return head + CLIP_MARK


def duration(ns: float) -> str:
    """A duration as a reader says it: 850 ns, 42.8 µs, 12.6 ms, 2.35 s, with
    thousands separators where a unit's number grows past them."""
    v = abs(float(ns))
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if v >= scale:
            x = ns / scale
            return f"{x:,.3g} {unit}" if abs(x) < 1000 else f"{x:,.0f} {unit}"
    return f"{ns:,.0f} ns"
