"""The alert rules of `rtgauge serve --alerts FILE`, a TOML file of rules per
label, checked whole when the server starts (docs/server.md):

    [labels."line-3-controller"]
    max_above = "100us"
    tail_worse = { reference = "7d", quantile = "p99.9", p = 0.01 }
    webhook = "http://alerts.example:9000/rtgauge"
    clear_after = 3
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rtgauge.errors import UsageError

QUANTILES = {"p99": 0.99, "p99.9": 0.999, "p99.99": 0.9999}
_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
_SPAN = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_NUMBER_UNIT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zµ]+)\s*$")


def latency_ns(text: str, where: str) -> float:
    """'100us', '1.5ms', '250ns' in ns."""
    m = _NUMBER_UNIT.match(text)
    if m is None or m[2] not in _NS or float(m[1]) <= 0:
        raise UsageError(f"{where}: {text!r} is not a latency (e.g. 100us, 1.5ms, 800ns)")
    return float(m[1]) * _NS[m[2]]


def span(text: str, where: str) -> timedelta:
    """'7d', '12h', '90m', '400d' as a length of time."""
    m = _NUMBER_UNIT.match(text)
    if m is None or m[2] not in _SPAN or float(m[1]) <= 0:
        raise UsageError(f"{where}: {text!r} is not a length of time (e.g. 7d, 12h, 90m)")
    return timedelta(seconds=float(m[1]) * _SPAN[m[2]])


@dataclass(frozen=True)
class TailRule:
    reference: timedelta
    quantile: str  # "p99.9"
    q: float  # 0.999
    p: float  # the false-alarm probability an interval is judged at


@dataclass(frozen=True)
class LabelRules:
    label: str
    max_above_ns: float | None
    tail_worse: TailRule | None
    webhook: str | None
    clear_after: int

    def kinds(self) -> list[str]:
        return [
            k for k, on in (("max_above", self.max_above_ns), ("tail_worse", self.tail_worse)) if on
        ]


def _tail(value: Any, where: str) -> TailRule:
    if not isinstance(value, dict) or set(value) - {"reference", "quantile", "p"}:
        raise UsageError(f"{where}: a table of reference, quantile and p")
    quantile = value.get("quantile", "p99.9")
    if quantile not in QUANTILES:
        raise UsageError(f"{where}.quantile: one of {', '.join(QUANTILES)}")
    p = value.get("p", 0.01)
    if not isinstance(p, float | int) or isinstance(p, bool) or not 0 < p < 0.5:
        raise UsageError(f"{where}.p: a probability above 0 and below 0.5")
    ref = value.get("reference", "7d")
    if not isinstance(ref, str):
        raise UsageError(f'{where}.reference: a length of time such as "7d"')
    return TailRule(span(ref, f"{where}.reference"), quantile, QUANTILES[quantile], float(p))


def _webhook(value: Any, where: str) -> str:
    parts = urlsplit(value) if isinstance(value, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{where}: an http:// or https:// URL")
    return str(value)


def _label(label: str, table: Any, where: str) -> LabelRules:
    if not isinstance(table, dict):
        raise UsageError(f"{where}: a table of rules")
    unknown = set(table) - {"max_above", "tail_worse", "webhook", "clear_after"}
    if unknown:
        raise UsageError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    max_above = table.get("max_above")
    if max_above is not None and not isinstance(max_above, str):
        raise UsageError(f'{where}.max_above: a latency as text, e.g. "100us"')
    clear_after = table.get("clear_after", 3)
    if (
        not isinstance(clear_after, int)
        or isinstance(clear_after, bool)
        or not 1 <= clear_after <= 10000
    ):
        raise UsageError(f"{where}.clear_after: a count of clean intervals from 1 to 10000")
    rules = LabelRules(
        label=label,
        max_above_ns=None if max_above is None else latency_ns(max_above, f"{where}.max_above"),
        tail_worse=None
        if "tail_worse" not in table
        else _tail(table["tail_worse"], f"{where}.tail_worse"),
        webhook=None if "webhook" not in table else _webhook(table["webhook"], f"{where}.webhook"),
        clear_after=clear_after,
    )
    if not rules.kinds():
        raise UsageError(f"{where}: no rule (max_above or tail_worse)")
    return rules


def parse_rules(text: str, where: str) -> dict[str, LabelRules]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{where}: not TOML ({exc})") from None
    if set(data) - {"labels"}:
        raise UsageError(
            f'{where}: unknown table {sorted(set(data) - {"labels"})[0]!r} (rules go under [labels."NAME"])'
        )
    labels = data.get("labels")
    if not isinstance(labels, dict) or not labels:
        raise UsageError(f'{where}: no rules: give [labels."NAME"] tables')
    out = {}
    for label, table in labels.items():
        if not 1 <= len(label) <= 100 or not label.isprintable():
            raise UsageError(f"{where}: label {label[:40]!r}: 1 to 100 printable characters")
        out[label] = _label(label, table, f"{where}: labels.{label}")
    return out


def load_rules(path: Path) -> dict[str, LabelRules]:
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        raise UsageError(f"--alerts {path}: {reason}") from None
    return parse_rules(text, f"--alerts {path}")
