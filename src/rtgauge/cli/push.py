"""rtgauge push BUNDLE… --server URL: send stored runs (and tune results,
tune-<time>.json, "kind": "tune") to a result server; --pending sends the
ones queued when the server could not be reached.

Exit codes: 0 every bundle is stored (or was already), 2 the server refused
one (its status and reason are said; it is not queued) or bad usage, 3 the
server could not be reached (the bundle is queued)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rtgauge import push_queue, pushing
from rtgauge.cli.common import add_token_file
from rtgauge.errors import UsageError
from rtgauge.fmt import term


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "bundles",
        nargs="*",
        type=Path,
        help="bundles (.json), probe streams (.jsonl) or tune results (tune-<time>.json)",
    )
    p.add_argument("--server", help="the server, e.g. http://results.lab:8080")
    p.add_argument(
        "--pending", action="store_true", help="send the bundles queued while a server was away"
    )
    add_token_file(p)
    p.set_defaults(execute=execute)


def say(name: str, got: pushing.Pushed) -> None:
    out = sys.stdout if got.code == 0 else sys.stderr
    prefix = "" if got.code == 0 else "rtgauge: "
    print(f"{prefix}{term(name)}: {term(got.message)}", file=out)


# The top-level keys of a bundle (model.Bundle.to_json): a file with others
# is something made from runs (a report's JSON, a comparison), not a run.
BUNDLE_KEYS = {
    "bundle_version",
    "created_at",
    "target",
    "command",
    "probe_version",
    "complete",
    "system",
    "tests",
    "end",
    "label",
    "import",
}


def refuse_non_bundle(path: Path) -> None:
    """A file a glob over a store may also match (a report, an index, a
    comparison) is refused by name, before its content is checked in full."""
    if path.suffix not in (".json", ".jsonl"):
        raise UsageError(f"{path}: not a bundle (.json) or a probe stream (.jsonl): not pushed")
    if path.suffix == ".jsonl":
        return
    if path.name.endswith(".out.json"):  # what `report --format json` wrote beside a bundle
        raise UsageError(
            f"{path}: a report written by rtgauge report --format json, not a bundle: not pushed"
        )
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return  # bundle_bytes says what is wrong with it
    if isinstance(data, list):
        raise UsageError(f"{path}: a list of runs (a report's JSON), not a bundle: not pushed")
    if isinstance(data, dict) and str(data.get("schema", "")).startswith("rtgauge-analysis/"):
        raise UsageError(
            f"{path}: an analysed run (rtgauge report --format json), not a bundle: not pushed"
        )
    extra = sorted(set(data) - BUNDLE_KEYS) if isinstance(data, dict) else []
    if extra:
        raise UsageError(
            f"{path}: not a bundle (it has {', '.join(extra)}: a report made from a run); "
            "push the run's own file"
        )


def file_bytes(path: Path) -> tuple[bytes, str]:
    """What is sent for a file and where: a tune result to its route, a
    bundle (or a probe stream's) to the runs; checked first. A tune result
    is known by its name (tune-….json) or its first line's "kind": "tune"."""
    from rtgauge.tune.result import is_tune_file

    if is_tune_file(path):
        return pushing.tune_bytes(path), pushing.TUNES
    refuse_non_bundle(path)
    return pushing.bundle_bytes(path), pushing.RUNS


def push_files(paths: list[Path], server: str, token: str) -> int:
    """Pushes bundle and tune result files; the exit code of the worst outcome."""
    raws = [(p, *file_bytes(p)) for p in paths]  # every file checked first
    worst = 0
    for path, raw, route in raws:
        got = pushing.push_bytes(raw, server, token, route)
        say(str(path), got)
        worst = max(worst, got.code)
    return worst


def push_pending(server: str | None, token: str) -> int:
    """Sends the queue oldest first. A bundle refused for what it is goes to
    refused/; a server not reached, or a refused token, stops the drain and
    keeps the rest."""
    waiting = push_queue.queued()
    if not waiting:
        refused = len(list((push_queue.queue_dir() / push_queue.REFUSED).glob("*.json")))
        kept = f" ({refused} refused, kept in {push_queue.REFUSED}/)" if refused else ""
        print(f"nothing queued in {push_queue.queue_dir()}{kept}")
        return 0
    worst = 0
    for i, item in enumerate(waiting):
        target = server or item.server
        if not target:
            raise UsageError(f"{item.path}: no server recorded for it: give --server")
        raw = item.path.read_bytes()
        got = pushing.send(pushing.server_url(target), raw, token, route=pushing.route_of(raw))
        if got.code == 0:
            push_queue.dequeue(item.path)
        elif got.bundle_refused:
            aside = push_queue.set_aside(item, got.message)
            got = pushing.Pushed(got.what, f"{got.message}; moved to {aside}", None, got.status)
        say(item.path.name, got)
        worst = max(worst, got.code)
        if got.code != 0 and not got.bundle_refused:
            left = len(waiting) - i
            print(
                f"rtgauge: {left} bundle(s) stay queued in {push_queue.queue_dir()}",
                file=sys.stderr,
            )
            break
    return worst


def execute(args: argparse.Namespace) -> int:
    if args.pending == bool(args.bundles):
        raise UsageError("give bundles to push, or --pending (not both)")
    server = pushing.server_url(args.server) if args.server else None
    token = pushing.read_token(args.token_file)
    if args.pending:
        return push_pending(server, token)
    if server is None:
        raise UsageError("--server: which result server to send the runs to")
    return push_files(args.bundles, server, token)
