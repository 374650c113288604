"""rtgauge serve: the result store in a browser and a JSON API; `rtgauge serve
token add|list|revoke NAME` manages who may push and read (docs/server.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rtgauge.cli.common import add_results_dir
from rtgauge.errors import UsageError
from rtgauge.fmt import term
from rtgauge.store import open_store


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_results_dir(p)
    p.add_argument("--listen", default=None, metavar="HOST:PORT", help="default 127.0.0.1:8080")
    p.add_argument(
        "--public",
        action="store_true",
        help="on a non-loopback address, let anyone read without a token",
    )
    p.add_argument(
        "--max-bundle-mb", default=None, metavar="MB", help="largest bundle taken (default 64)"
    )
    p.add_argument(
        "--interval-retention",
        default=None,
        metavar="SPAN",
        help="monitored intervals older than this are deleted (default 400d)",
    )
    p.add_argument(
        "--alerts",
        default=None,
        metavar="FILE",
        help="alert rules per label (TOML, docs/server.md), checked at start",
    )
    p.set_defaults(execute=execute)
    tokens = p.add_subparsers(dest="serve_command", parser_class=type(p))
    t = tokens.add_parser("token", help="add, list or revoke access tokens")
    t.add_argument("action", choices=["add", "list", "revoke"])
    t.add_argument("name", nargs="?", help="the token's name (add, revoke)")
    t.add_argument(
        "--role", default="push", choices=["push", "read"], help="push (also reads) or read"
    )
    # Given after the action or before it (serve --store S token add): either way.
    t.add_argument("--store", "--results-dir", dest="store", default=argparse.SUPPRESS)


def execute(args: argparse.Namespace) -> int:
    if args.serve_command == "token":
        return token(args)
    from rtgauge.server.alert_rules import load_rules, span
    from rtgauge.server.serve import serve
    from rtgauge.server.settings import (
        DEFAULT_LISTEN,
        DEFAULT_MAX_MB,
        DEFAULT_RETENTION,
        Settings,
        parse_listen,
        parse_max_mb,
    )

    host, port = parse_listen(args.listen or DEFAULT_LISTEN)
    limit = parse_max_mb(args.max_bundle_mb or str(DEFAULT_MAX_MB))
    retention = span(args.interval_retention or DEFAULT_RETENTION, "--interval-retention")
    rules = load_rules(Path(args.alerts)) if args.alerts else None
    store = open_store(args.store)
    try:
        serve(store, Settings(host, port, args.public, limit, retention), rules)
    finally:
        store.close()
    return 0


def token(args: argparse.Namespace) -> int:
    with open_store(args.store) as store:
        if args.action == "list":
            found = store.token_list()
            if not found:
                print(f"no tokens in {term(args.store)}")
            for t in found:
                state = f"revoked {t.revoked_at:%Y-%m-%d}" if t.revoked_at else "active"
                used = f"last used {t.last_used_at:%Y-%m-%d %H:%M}" if t.last_used_at else "unused"
                print(f"{t.name:<24} {t.role:<5} {state:<18} made {t.created_at:%Y-%m-%d}  {used}")
            return 0
        if not args.name:
            raise UsageError(f"serve token {args.action}: give the token's NAME")
        if args.action == "revoke":
            store.revoke_token(args.name)
            print(f"revoked: {args.name}")
            return 0
        secret = store.add_token(args.name, args.role)
    print(secret)
    print(
        f"token {args.name!r} ({args.role}) added to {term(args.store)}; it is shown this once "
        "(the store keeps its hash): give it to the host as RTGAUGE_TOKEN or --token-file",
        file=sys.stderr,
    )
    return 0
