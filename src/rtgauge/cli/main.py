"""rtgauge: the command line. Thin: each command lives in its own module."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from rtgauge import __version__
from rtgauge.cli import (
    check,
    compare,
    explain,
    history,
    import_cmd,
    lab,
    list_cmd,
    push,
    report,
    run,
    runs,
    serve,
)
from rtgauge.cli.common import resolve_store
from rtgauge.errors import RunError, UsageError
from rtgauge.fmt import term

COMMANDS = (
    run,
    check,
    list_cmd,
    report,
    explain,
    runs,
    compare,
    lab,
    history,
    import_cmd,
    push,
    serve,
)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is our one line and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="rtgauge", description="Evaluate and compare real-time behaviour of OSes.")
    p.add_argument("--version", action="version", version=f"rtgauge {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for cmd in COMMANDS:
        cmd.add_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
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
