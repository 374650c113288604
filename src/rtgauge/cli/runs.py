"""rtgauge runs: what the result store holds."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rtgauge.cli.common import add_results_dir
from rtgauge.cli.output import add_output, chosen_format, emit
from rtgauge.errors import UsageError
from rtgauge.fmt import clip, term
from rtgauge.store import RunFilter, open_store, row_dict


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_results_dir(p)
    p.add_argument("--label", help="only the runs stored with this label")
    p.add_argument("--host", help="only the runs of this host, or of this labgrid place (a board)")
    add_output(p, ("text", "json"), piped="text")
    p.set_defaults(execute=execute)


def list_runs(args: argparse.Namespace) -> list[dict[str, Any]]:
    if args.store.is_directory and not args.store.root.is_dir():
        return []  # no store there: nothing to list, and none is made
    with open_store(args.store) as store:
        return [row_dict(r) for r in store.all_runs(RunFilter(label=args.label))]


def tune_rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The tune results beside the runs of a directory store (kind tune)."""
    from rtgauge.tune.result import load, stored

    if not args.store.is_directory or args.label:
        return []
    out = []
    for path in stored(args.results_dir):
        try:
            r = load(path)
        except UsageError:
            continue  # not ours to judge here: `rtgauge report` says why
        if args.host is not None and args.host != r.host:
            continue
        out.append(
            {
                "kind": "tune",
                "created_at": r.created_at,
                "host": r.host,
                "kernel": r.kernel,
                "cpus": r.cpus,
                "tried": len(r.trials),
                "helped": [t.knob for t in r.helped],
                "file": str(path),
            }
        )
    return out


def execute(args: argparse.Namespace) -> int:
    rows = [r for r in list_runs(args) if _of(r, args.host)]
    for r in rows:  # where its bundle is: a file of a directory store, else its id alone
        where = args.results_dir / r["path"] if args.store.is_directory and r["path"] else None
        r["file"] = str(where) if where else None
        r["kind"] = "run"
    tunes = tune_rows(args)
    if chosen_format(args) == "json":
        emit(args, json.dumps(rows + tunes, indent=1, ensure_ascii=False) + "\n", "json", "runs")
        return 0
    if tunes:
        emit(args, runs_text(rows) + tunes_text(tunes), "text", "runs")
        return 0
    if not rows:
        which = f" labelled {term(args.label)!r}" if args.label else ""
        emit(args, f"no runs{which} in {term(args.store)}\n", "text", "runs")
        return 0
    emit(args, runs_text(rows), "text", "runs")
    return 0


def runs_text(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    lines = [
        f"{'id':>5} {'created':<26} {'host':<16} {'target':<16} {'kernel':<24} {'preempt':<9} "
        f"{'tests':>5} {'status':<10} {'label':<16} path"
    ]
    for r in rows:
        lines.append(
            f"{r['id']:>5} {term(r['created_at']):<26} {clip(term(r['host']), 16):<16} "
            f"{clip(term(r['target']), 16):<16} {clip(term(r['kernel']), 24):<24} "
            f"{term(r['preempt']):<9} {r['tests']:>5} {status(r):<10} "
            f"{clip(term(r['label'] or '—'), 16):<16} {term(r['file']) if r['file'] else '—'}"
        )
    return "\n".join(lines) + "\n"


def tunes_text(tunes: list[dict[str, Any]]) -> str:
    """The tune results, kind tune: what `rtgauge report FILE` renders."""
    lines = [f"{'kind':<5} {'created':<26} {'host':<16} {'cpus':<8} {'tried':>5} helped, file"]
    for t in tunes:
        helped = ", ".join(t["helped"]) or "none"
        lines.append(
            f"{'tune':<5} {term(t['created_at']):<26} {clip(term(t['host']), 16):<16} "
            f"{clip(term(t['cpus']), 8):<8} {t['tried']:>5} {term(helped)}, {term(t['file'])}"
        )
    return "\n" + "\n".join(lines) + "\n"


def _of(row: dict[str, Any], host: str | None) -> bool:
    target = str(row["target"])
    return host is None or host in (row["host"], target, target.split(":", 1)[-1])


def status(row: dict[str, Any]) -> str:
    """incomplete, else the worst outcome: errors, failed, or ok."""
    if not row["complete"]:
        return "incomplete"
    if row["errors"]:
        return f"{row['errors']} error" + ("s" if row["errors"] > 1 else "")
    if row["failed"]:
        return f"{row['failed']} failed"
    return "ok"
