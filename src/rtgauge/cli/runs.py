"""rtgauge runs: what the result store holds."""

from __future__ import annotations

import argparse

from rtgauge.cli.common import add_results_dir
from rtgauge.store import list_runs


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("runs", help="the stored runs, newest first")
    add_results_dir(p)
    p.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    rows = list_runs(args.results_dir)
    if not rows:
        print(f"no runs in {args.results_dir}")
        return 0
    print(
        f"{'created':<26} {'host':<16} {'target':<8} {'kernel':<24} {'preempt':<9} "
        f"{'tests':>5} {'fail':>4} {'err':>4}  path"
    )
    for r in rows:
        state = "" if r["complete"] else "  (incomplete)"
        print(
            f"{r['created_at']:<26} {r['host'][:16]:<16} {r['target'][:8]:<8} "
            f"{r['kernel'][:24]:<24} {str(r['preempt']):<9} {r['tests']:>5} "
            f"{r['failed']:>4} {r['errors']:>4}  {args.results_dir / r['path']}{state}"
        )
    return 0
