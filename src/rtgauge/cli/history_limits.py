"""`rtgauge history --label L --calibrate`: limits per figure from the stored
runs of one system and label (analysis.limits), written to a file and into
the store for the label, where `history --check` finds them; and the
stored limits read back for `history`."""

from __future__ import annotations

import argparse
import math
import re
import sys
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from pathlib import Path

from rtgauge.analysis.history import build
from rtgauge.analysis.limits import Limits, best_rate, calibrate, pct, runs_needed
from rtgauge.analysis.limits_json import dumps, loads
from rtgauge.cli.output import STDOUT
from rtgauge.errors import UsageError
from rtgauge.fmt import term
from rtgauge.run import Run
from rtgauge.store import open_store

DEFAULT_RATE = "1%"


def parse_false_alarm(text: str) -> float:
    """'1%', '9.1 %' or '0.01' → a rate in (0, 1)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e-?[0-9]+)?)\s*(%?)\s*", text)
    value = float(m.group(1)) / (100 if m.group(2) else 1) if m else -1.0
    if not 0 < value < 1:
        raise UsageError(f"--false-alarm {text!r}: give a rate between 0 and 1, e.g. 1% or 0.01")
    return value


def _path(args: argparse.Namespace, label: str) -> Path | None:
    if args.out == STDOUT:
        return None
    if args.out:
        return Path(args.out)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", label)
    return Path(f"limits-{safe}.json")


def _too_few(lim: Limits, rate: float) -> str:
    """Why no figure could be calibrated at `rate`: the runs are too few."""
    n = lim.runs
    return (
        f"{n} runs of label {lim.label} support a false-alarm rate of "
        f"{pct(best_rate(n))} per figure at best; {pct(rate)} needs at least "
        f"{runs_needed(rate)} runs: store more runs, or ask --false-alarm "
        f"{math.ceil(best_rate(n) * 1e4) / 100:g}% or more"
    )


def execute_calibrate(args: argparse.Namespace, runs: list[Run]) -> int:
    label = args.label
    if not label:
        raise UsageError("--calibrate needs --label: limits are kept per label")
    if args.format:
        raise UsageError("--calibrate writes the limits file (JSON): leave out --format")
    rate = parse_false_alarm(args.false_alarm or DEFAULT_RATE)
    if not runs:
        raise UsageError(f"no stored runs of label {label!r} to calibrate on")
    histories = build(runs)
    if len(histories) > 1:
        systems = ", ".join(h.system for h in histories)
        raise UsageError(
            f"label {label!r} has runs of {len(histories)} systems ({systems}): "
            "choose one with --system"
        )
    h = histories[0]
    now = datetime.now(UTC).isoformat(timespec="seconds")
    lim = calibrate([e.run for e in h.runs], label, h.system, rate, now)
    if not lim.limits:
        if any("needs at least" in u.why for u in lim.uncalibrated):
            raise UsageError(_too_few(lim, rate))
        raise UsageError(f"no figure of label {label!r} can be calibrated: none has samples")
    text = dumps(lim)
    path = _path(args, label)
    said = sys.stdout if path is not None else sys.stderr
    if path is None:
        sys.stdout.write(text)
    else:
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    with open_store(args.store) as store:
        store.set_limits(label, text)
    print(term(lim.summary()), file=said)
    enough = rate >= best_rate(lim.runs) - 1e-12
    support = (
        f"{lim.runs} runs: enough for {pct(rate)} (they support down to {pct(best_rate(lim.runs))})"
        if enough
        else f"{lim.runs} runs: not enough for {pct(rate)} (needs {runs_needed(rate)})"
    )
    print(support, file=said)
    for x in lim.limits:
        print(
            f"  {x.test} {term(x.metric)} {x.stat}: limit {x.limit_ns / 1e3:,.2f} µs, the "
            f"{_ordinal(x.rank)} largest of {x.runs} runs: false-alarm rate "
            f"{pct(x.false_alarm)}",
            file=said,
        )
    for u in lim.uncalibrated:
        print(f"  {u.test} {term(u.metric)} {u.stat}: not calibrated: {u.why}", file=said)
    for n in lim.notes:
        print(f"  note: {term(n)}", file=said)
    if len(lim.limits) > 1:
        print(
            f"a run is checked against {len(lim.limits)} limits: the chance that an unchanged "
            f"run exceeds any is at most {len(lim.limits)} × the per-figure rate, less when "
            "the figures move together",
            file=said,
        )
    if path is not None:
        print(f"limits: {path}", file=said)
    print(
        f"stored for label {term(label)}: `history --label {term(label)} --check` applies them",
        file=said,
    )
    return 0


def _ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def stored_limits(args: argparse.Namespace, runs: list[Run]) -> dict[str, Limits]:
    """The calibrated limits the store keeps for the labels of `runs`; a
    stored body that no longer reads is said and left out, never fatal."""
    labels = sorted({r.label for r in runs if r.label is not None})
    out: dict[str, Limits] = {}
    if not labels:
        return out
    with open_store(args.store) as store:
        for label in labels:
            body = store.limits(label)
            if body is None:
                continue
            try:
                lim = loads(body, f"the stored limits of label {label!r}")
            except UsageError as exc:
                print(f"rtgauge: warning: skipped: {term(str(exc))}", file=sys.stderr)
                continue
            if args.test:  # only the selected tests' limits, as only their figures are read
                lim.limits = [x for x in lim.limits if fnmatchcase(x.test, args.test)]
            out[label] = lim
    return out
