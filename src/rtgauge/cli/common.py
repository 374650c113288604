"""Options shared by several commands."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from rtgauge.errors import UsageError
from rtgauge.store.location import DEFAULT_DIR, ENV, Location, default_store

DEFAULT_RESULTS = DEFAULT_DIR


def add_results_dir(p: argparse.ArgumentParser) -> None:
    """--store DIR|URL (--results-dir is its older name): where runs are stored."""
    p.add_argument(
        "--store",
        "--results-dir",
        dest="store",
        default=default_store(),
        metavar="DIR|URL",
        help=f"the result store: a directory or a postgresql:// URL (default ${ENV}, "
        f"else ./{DEFAULT_RESULTS})",
    )


def resolve_store(args: argparse.Namespace) -> None:
    """args.store becomes a Location; args.results_dir the local folder a run or
    an import writes its files in: the store itself, or for a database store
    ./rtgauge-results (the bundle then goes into the database as well)."""
    if isinstance(getattr(args, "store", None), str):
        args.store = Location.parse(args.store)
        args.results_dir = args.store.root or Path(DEFAULT_RESULTS)


def add_push(p: argparse.ArgumentParser, what: str = "the run") -> None:
    """--server URL: also send the run (or `what`) to a result server, spelt as
    `rtgauge push --server` spells it (--push URL is its old spelling, noted)."""
    from rtgauge.cli.old_spellings import Renamed

    p.add_argument(
        "--server", dest="push", metavar="URL", help=f"also send {what} to this result server"
    )
    p.add_argument("--push", dest="push", action=Renamed, new="--server")
    add_token_file(p)


def add_token_file(p: argparse.ArgumentParser) -> None:
    p.add_argument("--token-file", type=Path, help="the push token (default: $RTGAUGE_TOKEN)")


_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}


def parse_duration_ns(text: str, option: str = "--deadline", example: str = "100us") -> float:
    """'100us', '1.5ms', '250000ns' → ns."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ns|us|µs|ms|s)\s*", text)
    if not m or float(m.group(1)) <= 0:
        raise UsageError(f"{option} {text!r}: give a positive time with a unit, e.g. {example}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def _fraction(text: str, option: str, low: float, allowed: str) -> float:
    """A number in [low, 1) given on the command line, or a usage error."""
    try:
        value = float(text)
    except ValueError as exc:
        raise UsageError(f"{option} {text!r}: not a number") from exc
    if not low <= value < 1:
        raise UsageError(f"{option} {text!r}: must be in {allowed}")
    return value


def parse_rate(text: str) -> float:
    return _fraction(text, "--miss-rate", 0.0, "[0, 1)")


def parse_confidence(text: str) -> float:
    return _fraction(text, "--confidence", 0.5, "[0.5, 1), e.g. 0.95")


def add_deadline(p: argparse.ArgumentParser) -> None:
    p.add_argument("--deadline", help="a latency deadline to judge against, e.g. 100us")
    p.add_argument("--miss-rate", default="1e-6", help="tolerated fraction of misses (1e-6)")
    p.add_argument(
        "--confidence",
        default="0.95",
        help="confidence of the miss-rate bound and the pWCET interval (0.95)",
    )
