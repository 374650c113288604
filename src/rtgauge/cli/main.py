"""rtgauge: the command line. Thin: each command lives in its own module,
imported only when that command is chosen, so `rtgauge --help` or `rtgauge
runs` never pays for the statistics, the store's migrations or the targets
another command needs (tests/unit/test_import_cost.py)."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from rtgauge.errors import RunError, UsageError
from rtgauge.fmt import term


@dataclass(frozen=True)
class Command:
    name: str
    module: str  # whose add_arguments(parser) declares its options and its execute
    help: str


COMMANDS = (
    Command("run", "rtgauge.cli.run", "evaluate a system and store the run"),
    Command("check", "rtgauge.cli.check", "is this system set up for real time? (the audit)"),
    Command("list", "rtgauge.cli.list_cmd", "the tests and their options"),
    Command("report", "rtgauge.cli.report", "render a stored run"),
    Command("explain", "rtgauge.cli.explain", "why the worst samples of a stored run were late"),
    Command("runs", "rtgauge.cli.runs", "the stored runs, newest first"),
    Command("compare", "rtgauge.cli.compare", "compare stored runs side by side"),
    Command("lab", "rtgauge.cli.lab", "evaluate a set of systems and compare them"),
    Command("history", "rtgauge.cli.history", "runs of a system over time, with regressions"),
    Command("plan", "rtgauge.cli.plan", "how long a run must be to back a miss-rate claim"),
    Command(
        "import",
        "rtgauge.cli.import_cmd",
        "store another tool's results (cyclictest, rtla) as a run",
    ),
    Command("push", "rtgauge.cli.push", "send runs to a result server (rtgauge serve)"),
    Command(
        "monitor",
        "rtgauge.cli.monitor",
        "measure a target without end, interval by interval, and push each",
    ),
    Command("serve", "rtgauge.cli.serve", "serve the result store to browsers and pushing hosts"),
)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is our one line and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


class _Version(argparse.Action):
    """--version, reading the package's metadata only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **_: object) -> None:
        super().__init__(
            option_strings,
            dest,
            default=argparse.SUPPRESS,
            nargs=0,
            help="show program's version number and exit",
        )

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from rtgauge import __version__

        print(f"rtgauge {__version__}")
        parser.exit()


def chosen(argv: Sequence[str]) -> str | None:
    """The command argv names: its first word that is not an option (the
    top level's options, --help and --version, take no value)."""
    return next((a for a in argv if not a.startswith("-")), None)


def parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line. Given argv, only the command it names has its options
    (and its module imported); the others are there by name and help, which is
    all `rtgauge --help` shows. Without argv, every command has its options."""
    name = None if argv is None else chosen(argv)
    p = _Parser(prog="rtgauge", description="Evaluate and compare real-time behaviour of OSes.")
    p.add_argument("--version", action=_Version)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for cmd in COMMANDS:
        cp = sub.add_parser(cmd.name, help=cmd.help)
        if argv is None or cmd.name == name:
            importlib.import_module(cmd.module).add_arguments(cp)
    return p


def restore_left_settings() -> None:
    """Settings a killed `rtgauge tune` left changed on this machine are put
    back before any command (as root: only root can have changed them). It
    never fails the command: what cannot be restored is said and kept."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    try:
        from rtgauge.tune.state import restore_leftovers

        for line in restore_leftovers():
            print(f"rtgauge: {term(line)}", file=sys.stderr)
    except Exception as exc:
        print(f"rtgauge: settings left by rtgauge tune not checked: {exc}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    restore_left_settings()
    try:
        words = sys.argv[1:] if argv is None else argv
        args = parser(words).parse_args(words)
        if isinstance(getattr(args, "store", None), str):
            from rtgauge.cli.common import resolve_store

            resolve_store(args)
        code: int = args.execute(args)
        return code
    except UsageError as exc:
        return _fail(str(exc))
    except RunError as exc:
        return _fail(str(exc), 3)
    except KeyboardInterrupt:
        print("rtgauge: interrupted", file=sys.stderr)
        return 3
    except BrokenPipeError:
        return 3
    except OSError as exc:  # a file or a pipe: say which and why, not where in the code
        where = f"{exc.filename}: " if exc.filename else ""
        return _fail(f"{where}{exc.strerror or exc}")
    except Exception as exc:  # one line for the user; the traceback on request
        if os.environ.get("RTGAUGE_DEBUG"):
            raise
        return _fail(f"internal error ({type(exc).__name__}: {exc}); RTGAUGE_DEBUG=1 shows more")


def _fail(message: str, code: int = 2) -> int:
    print(f"rtgauge: error: {term(message)}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
