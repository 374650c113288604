"""bench/RESULTS.md is written by several scripts, each owning one section
between its own begin and end markers: a script replaces its section and
leaves every other as it was."""

from __future__ import annotations

from pathlib import Path


def write_section(out: Path, begin: str, end: str, new: str) -> None:
    """Puts new (which starts with begin and ends with end) in place of the
    section between those markers in out, or after the last section when
    out has none yet."""
    text = out.read_text() if out.exists() else ""
    if begin in text and end in text:
        text = text[: text.index(begin)] + new + text[text.index(end) + len(end) + 1 :]
    else:
        text = text.rstrip("\n") + "\n\n" + new
    out.write_text(text)
