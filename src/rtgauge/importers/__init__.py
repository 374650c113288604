"""Measurements made by other tools, read into bundles (rtgauge import)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rtgauge.errors import UsageError
from rtgauge.importers import cyclictest_hist, cyclictest_json, rtla_hist
from rtgauge.importers.bundle import Imported, to_bundle
from rtgauge.model import Bundle

Parser = Callable[[str, str], Imported]
# --format name -> (recognises the text, parses it); tried in this order.
FORMATS: dict[str, tuple[Callable[[str], bool], Parser]] = {
    "cyclictest-json": (cyclictest_json.looks_like, cyclictest_json.parse),
    "rtla-hist": (rtla_hist.looks_like, rtla_hist.parse),
    "cyclictest-hist": (cyclictest_hist.looks_like, cyclictest_hist.parse),
}


def read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text") from None


def import_file(path: Path, fmt: str = "auto") -> Bundle:
    text = read_text(path)
    if not text.strip():
        raise UsageError(f"{path}: empty file")
    if fmt == "auto":
        found = [name for name, (looks, _) in FORMATS.items() if looks(text)]
        if not found:
            raise UsageError(
                f"{path}: not a format rtgauge imports ({', '.join(FORMATS)}); "
                "give --format to say which"
            )
        fmt = found[0]
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: one of auto, {', '.join(FORMATS)}")
    return to_bundle(FORMATS[fmt][1](text, str(path)), path)
