"""rtgauge history: the stored runs of a system over time, regressions
between consecutive comparable runs, and a long-term HTML view
(--format html)."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from dataclasses import replace
from datetime import datetime
from fnmatch import fnmatchcase
from pathlib import Path

from rtgauge.analysis.history import History, build, system_name
from rtgauge.analysis.likeness import run_name
from rtgauge.cli.common import add_results_dir
from rtgauge.cli.history_json import history_json
from rtgauge.cli.history_limits import DEFAULT_RATE, execute_calibrate, stored_limits
from rtgauge.cli.old_spellings import GOING
from rtgauge.cli.output import add_output, chosen_format, emit, note
from rtgauge.errors import UsageError
from rtgauge.fmt import term
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.history_report import (
    HEADERS,
    group_title,
    history_report,
    limits_line,
    run_cells,
)
from rtgauge.run import Run
from rtgauge.store import RunFilter, open_store, utc_stamp


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_results_dir(p)
    p.add_argument("--system", help="host name (or 'guest <kernel>'), a glob")
    p.add_argument("--test", help="test id or glob, e.g. TMR-P-LAT")
    p.add_argument("--label", help="only the runs stored with this label")
    p.add_argument("--since", help="only runs from this date on, e.g. 2026-11-01")
    p.add_argument(
        "--check", action="store_true", help="exit 1 when the newest run of a system regressed"
    )
    p.add_argument(
        "--calibrate",
        action="store_true",
        help="derive limits per figure from the label's runs (--label): to --out "
        "(default ./limits-LABEL.json) and into the store, where --check applies them",
    )
    p.add_argument(
        "--false-alarm",
        metavar="RATE",
        # argparse formats help with %: the default rate's sign is doubled
        help="with --calibrate: how often an unchanged run may exceed a limit, e.g. 5%% "
        f"or 0.05 ({DEFAULT_RATE.replace('%', '%%')})",
    )
    add_output(p, FORMATS, piped="text", html_name="history.html")
    # The old spelling of --format html --out FILE, kept for one release.
    p.add_argument("--html", nargs="?", const="", metavar="FILE", help=argparse.SUPPRESS)
    p.set_defaults(execute=execute)


FORMATS = ("text", "md", "html", "json")


def _since(text: str) -> str:
    try:
        return datetime.fromisoformat(text).isoformat()
    except ValueError:
        raise UsageError(f"--since {text!r}: give a date, e.g. 2026-11-01") from None


def load(args: argparse.Namespace) -> list[Run]:
    since = _since(args.since) if args.since else None
    out: list[Run] = []
    if args.store.is_directory and not args.store.root.is_dir():
        return out  # no store there: no history, and none is made
    with open_store(args.store) as store:
        bundles = []
        # Oldest first, ties in the order stored: two runs within one second
        # keep their order through the history's stable sort by time.
        for row in store.all_runs(RunFilter(label=args.label, descending=False)):
            if since and row.created_at < since:
                continue
            try:
                bundles.append(store.bundle(row))
            except UsageError as exc:  # a damaged bundle is skipped, said, never fatal
                print(f"rtgauge: warning: skipped: {term(str(exc))}", file=sys.stderr)
    for bundle in bundles:
        run = Run.of(bundle)
        if args.system and not fnmatchcase(system_name(run), args.system):
            continue
        if args.test:
            tests = [t for t in run.tests if fnmatchcase(t.id, args.test)]
            if not tests:
                continue
            run = replace(run, tests=tests)
        out.append(run)
    return out


def print_text(histories: list[History]) -> None:
    widths = [28, 26, 10, 22, 6, 10, 10]
    for h in histories:
        print(f"\n{term(group_title(h))}: {len(h.runs)} runs")
        if h.limits is not None:
            print(f"  {term(limits_line(h))}")
        for line in h.unlike:
            print(f"  note: {term(line)}")
        tests = sorted({t.id for e in h.runs for t in e.run.tests})
        for test_id in tests:
            print(f"  {test_id}")
            print("    " + " ".join(f"{c:<{w}}" for c, w in zip(HEADERS, widths, strict=True)))
            for e in h.runs:
                cells = [term(c) for c in run_cells(e, test_id)]
                print("    " + " ".join(f"{c:<{w}}" for c, w in zip(cells, widths, strict=True)))
        for e in h.runs:
            for c in e.changed:
                print(f"  SETTING {term(run_name(e.run))}: {term(c)}")
        for e in h.runs:
            for f in e.findings:
                if f.regression:
                    print(
                        f"  REGRESSION {term(e.run.created_at)} {f.test} {term(f.name)}: "
                        f"{term(f.evidence)}"
                    )
        for e in h.runs:
            for f in e.findings:
                if f.kind in ("max", "missed") or (f.kind == "verdict" and not f.regression):
                    print(f"  note {term(e.run.created_at)} {f.test} {term(f.name)}: {f.evidence}")
            # A tail no test could judge, once per test and reason (a test has many figures)
            untested: dict[tuple[str, str], list[str]] = {}
            for f in e.findings:
                if f.kind in ("untested", "unlimited"):
                    untested.setdefault((f.test, f.evidence), []).append(f.name)
            for (test, why), names in untested.items():
                print(f"  note {term(e.run.created_at)} {test} {term(', '.join(names))}: {why}")


def execute(args: argparse.Namespace) -> int:
    if args.false_alarm and not args.calibrate:
        raise UsageError("--false-alarm goes with --calibrate")
    runs = load(args)
    if args.calibrate:
        return execute_calibrate(args, runs)
    fmt = chosen_format(args)
    if not runs:
        if fmt == "json":
            emit(args, "[]\n", fmt, "history")
        else:
            print(
                f"no runs in {term(args.store)} match", file=sys.stderr if args.out else sys.stdout
            )
        return 0
    histories = build(runs, stored_limits(args, runs))
    if args.html is not None:
        _old_html(args, histories)
    elif fmt == "text":
        with contextlib.redirect_stdout(io.StringIO()) as text:
            print_text(histories)
        emit(args, text.getvalue().removeprefix("\n"), fmt, "history")
    elif fmt == "json":
        emit(args, history_json(histories), fmt, "history")
    else:
        emit(args, EXPORTERS[fmt].render(history_report(histories)), fmt, "history")
    regressed = [h for h in histories if h.runs[-1].regressed]
    if args.check:
        # beside the text on stdout; on stderr when stdout carries a document
        said = sys.stdout if fmt == "text" and args.out in (None, "-") else sys.stderr
        if regressed:
            names = ", ".join(term(group_title(h)) for h in regressed)
            print(f"check: the newest run regressed: {names}", file=sys.stderr)
            return 1
        print("check: the newest runs show no regression", file=said)
    return 0


def _old_html(args: argparse.Namespace, histories: list[History]) -> None:
    """--html [FILE]: the text on stdout, and the page in FILE (or in the store)."""
    note(f"--html [FILE] is now --format html --out FILE; {GOING}")
    print_text(histories)
    path = Path(args.html) if args.html else args.results_dir / f"history-{utc_stamp()}.html"
    (written,) = EXPORTERS["html"].write(history_report(histories), path)
    print(f"\nhistory page: {written}")
