"""Where a tune result goes beyond its file (tune-<time>.json in the local
folder, which `rtgauge tune` always writes): into a database store's
tune_results (as a run's bundle goes into the database beside its file),
and with --server to a result server, under the rules of a pushed run
(0 sent, 2 refused and not queued, 3 not reached and queued). Both are
checked before anything is measured: a push or a store that cannot happen
is said at once, not after the minutes a tune takes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rtgauge import pushing
from rtgauge.errors import UsageError
from rtgauge.fmt import term
from rtgauge.store.location import Location


def _location(args: argparse.Namespace) -> Location:
    store = args.store
    return store if isinstance(store, Location) else Location.parse(str(store))


def check_first(args: argparse.Namespace) -> None:
    """--server's address and token read, a database store opened (and
    brought to the current schema): before the tune, not after it."""
    if getattr(args, "push", None):
        pushing.server_url(args.push)
        args.push_token = pushing.read_token(args.token_file)
    location = _location(args)
    if location.root is None:
        from rtgauge.store import open_store

        open_store(location).close()


def keep_and_push(args: argparse.Namespace, path: Path) -> int:
    """After the file and the report: the database store, then --server.
    The exit code: 0, 2 (not stored in the database, or the push refused),
    3 (the server not reached: queued). A database that fails is said and
    does not stop the push: the server may well be another store."""
    code = 0
    try:
        keep(args, path)
    except UsageError as exc:
        print(f"rtgauge: {term(str(exc))}", file=sys.stderr)
        code = 2
    return max(code, push(args, path))


def keep(args: argparse.Namespace, path: Path) -> None:
    """The result's file stored in a database store too (a directory store's
    copy is the file itself), and said."""
    from sqlalchemy.exc import SQLAlchemyError

    location = _location(args)
    if location.root is not None:
        return
    from rtgauge.store import open_store

    try:
        with open_store(location) as store:
            name, new = store.add_tune(path.stem, path.read_text(encoding="utf-8"))
    except (UsageError, SQLAlchemyError, OSError) as exc:
        said = getattr(exc, "orig", None) or exc  # the database's own words
        why = (str(said).strip().splitlines() or [type(exc).__name__])[0]
        raise UsageError(f"{path} is stored, but not in {location}: {why}") from None
    print(f"stored in {location} as {name}" + ("" if new else " (stored already)"))


def push(args: argparse.Namespace, path: Path) -> int:
    """Sends the stored result to --server: 0 sent, 2 refused, 3 queued."""
    if not getattr(args, "push", None):
        return 0
    token = getattr(args, "push_token", None) or pushing.read_token(args.token_file)
    got = pushing.push_bytes(
        pushing.tune_bytes(path), pushing.server_url(args.push), token, pushing.TUNES
    )
    where = sys.stdout if got.code == 0 else sys.stderr
    print(f"{'push' if got.code == 0 else 'rtgauge: push'}: {term(got.message)}", file=where)
    return got.code
