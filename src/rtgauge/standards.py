"""What a failed behaviour verdict means: a failure, or a documented
difference — the OS's own documentation states the behaviour seen, and it
differs from the standard the verdict checks (POSIX, mostly).

The differences are data (data/documented_differences.toml), keyed by OS,
test, check and what was seen: a verdict is excused only when all four
match, so the same check failing on another OS, or failing in another way
on this one, stays a failure. The probe never excuses itself; the host
tells the two apart here, once, for every report, compare, the server's
pages and the exit code.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from rtgauge.errors import UsageError

TABLE = "documented_differences.toml"
_KEYS = ("os", "test", "check", "seen", "says", "reference")


@dataclass(frozen=True)
class Standard:
    """The rule a verdict checks: POSIX, an OS whose documentation states
    it ("Linux"), or "rtgauge" (the catalogue's own criterion)."""

    name: str
    clause: str


@dataclass(frozen=True)
class DocumentedDifference:
    """One row of the table: on `os`, check `check` of `test` sees `seen`,
    as `reference` documents (`says`)."""

    os: str
    test: str
    check: str
    seen: str
    says: str
    reference: str

    def text(self, standard: Standard | None) -> str:
        """ "differs from POSIX, as FreeRTOS documents" (the standard's name;
        "the standard" for a record that did not name it)."""
        return (
            f"differs from {standard.name if standard else 'the standard'}, as {self.os} documents"
        )


def parse(text: str, where: str = TABLE) -> tuple[DocumentedDifference, ...]:
    """The rows of a table in TOML; a malformed one is one clear error."""
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{where}: not TOML: {e}") from None
    rows = data.get("difference", [])
    if set(data) - {"difference"} or not isinstance(rows, list):
        raise UsageError(f"{where}: expected only [[difference]] rows")
    out: list[DocumentedDifference] = []
    seen_keys: set[tuple[str, str, str, str]] = set()
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or sorted(row) != sorted(_KEYS):
            raise UsageError(f"{where}: row {i + 1}: needs exactly {', '.join(_KEYS)}")
        if not all(isinstance(row[k], str) and row[k] for k in _KEYS):
            raise UsageError(f"{where}: row {i + 1}: every field is a non-empty string")
        d = DocumentedDifference(*(row[k] for k in _KEYS))
        key = (d.os, d.test, d.check, d.seen)
        if key in seen_keys:
            raise UsageError(f"{where}: row {i + 1}: {' '.join(key)} is given twice")
        seen_keys.add(key)
        out.append(d)
    return tuple(out)


@cache
def table() -> tuple[DocumentedDifference, ...]:
    """The shipped table, read once."""
    text = resources.files("rtgauge").joinpath(f"data/{TABLE}").read_text(encoding="utf-8")
    return parse(text)


def documented(
    os: str | None,
    test: str,
    check: str,
    seen: str | None,
    rows: tuple[DocumentedDifference, ...] | None = None,
) -> DocumentedDifference | None:
    """The row that documents what a failed verdict saw on this OS, or None
    (the failure stays one). A record that names no OS or saw nothing in a
    word is never excused."""
    if os is None or seen is None:
        return None
    for d in table() if rows is None else rows:
        if (d.os, d.test, d.check, d.seen) == (os, test, check, seen):
            return d
    return None
