"""Spans of time on the command line: `run --duration 24h --interval 5m`."""

from __future__ import annotations

import re

# The probe's limits (core: RTG_DURATION_MAX_MS, RTG_INTERVAL_MIN_MS).
MAX_MS = 7 * 24 * 3600 * 1000
MIN_MS = 100
_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_SPAN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$")


def span_ms(text: str, flag: str) -> int:
    """A span such as 90s, 30m, 24h or 7d, in ms; a ValueError that says what
    is wrong, naming the flag, when it is not one within 100 ms..7 d."""
    found = _SPAN.match(text)
    if not found:
        raise ValueError(
            f"{flag} {text!r}: give a number and a unit, s, m, h or d (e.g. 90s, 30m, 24h)"
        )
    ms = round(float(found[1]) * _UNITS[found[2]])
    if not MIN_MS <= ms <= MAX_MS:
        raise ValueError(f"{flag} {text!r}: give a span from 100 ms to 7 d")
    return ms


def duration_ms(text: str) -> int:
    from rtgauge.errors import UsageError

    try:
        return span_ms(text, "--duration")
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def interval_ms(text: str) -> int:
    """--interval: a span, or 0 (none: no interval records)."""
    from rtgauge.errors import UsageError

    if text.strip() in ("0", "none"):
        return 0
    try:
        return span_ms(text, "--interval")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
