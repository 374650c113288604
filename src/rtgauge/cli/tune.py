"""rtgauge tune: for each audit finding whose fix can be applied at run time
and undone, measure the latency tests before and after applying it (A/B
rounds interleaved, each knob alone, then the helpful ones together), say
what helped beyond chance and how the explanation of the worst samples
moved, store the result beside the runs and write out (never apply) the
configuration that helped. Every change is undone on every way out."""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rtgauge.cli.common import add_push, add_results_dir
from rtgauge.errors import UsageError
from rtgauge.fmt import term
from rtgauge.tune.measure import DEFAULT_ROUND_MS, DEFAULT_ROUNDS, DEFAULT_TESTS

if TYPE_CHECKING:
    from rtgauge.targets.base import Target
    from rtgauge.tune.knobs import Candidate
    from rtgauge.tune.measure import Apply
    from rtgauge.tune.result import TuneResult

ROUNDS_MAX = 100


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--target",
        default="local",
        help="where to tune: local (this machine) or ssh://[user@]host[:port]",
    )
    p.add_argument("--probe", help="the probe binary (default: $RTGAUGE_PROBE, else the tree's)")
    p.add_argument("--cpus", help="the CPUs to tune for, e.g. 1 or 2-3 (default: all but CPU 0)")
    p.add_argument(
        "--tests", default=DEFAULT_TESTS, help=f"latency tests to measure (default {DEFAULT_TESTS})"
    )
    p.add_argument("--knobs", help="only these knobs, comma-separated ids (default: every one)")
    p.add_argument(
        "--movable",
        help="PIDs the shield and a task move may move, comma-separated "
        "(default: every movable task)",
    )
    p.add_argument(
        "--rounds",
        default=str(DEFAULT_ROUNDS),
        help=f"A/B rounds per side and knob (default {DEFAULT_ROUNDS})",
    )
    p.add_argument(
        "--round",
        dest="round_span",
        default=f"{DEFAULT_ROUND_MS // 1000}s",
        metavar="SPAN",
        help=f"how long each round measures (default {DEFAULT_ROUND_MS // 1000}s)",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="say what would be changed, measure nothing"
    )
    add_results_dir(p)
    p.add_argument(
        "--out", type=Path, metavar="DIR", help="where the configuration that helped is written"
    )
    p.add_argument("--no-report", action="store_true", help="do not write the HTML report")
    from rtgauge.targets.ssh import SshHost

    SshHost.add_options(p)
    add_push(p, "the tune result")
    p.set_defaults(execute=checked_execute)


def checked_execute(args: argparse.Namespace) -> int:
    """--server's token and a database store checked before anything is measured."""
    if not args.dry_run:
        from rtgauge.cli.tune_keep import check_first

        check_first(args)
    return execute(args)


def parse_cpus(
    text: str | None, n: int | None = None, where: str = "this machine"
) -> frozenset[int]:
    """--cpus against the CPUs of the machine tuned: n of them (default this one's)."""
    from rtgauge.audit.cpus import parse_list

    n = n or os.cpu_count() or 1
    if text is None:
        return frozenset(range(1, n)) if n > 1 else frozenset({0})
    cpus = parse_list(text, n)
    if not cpus:
        raise UsageError(f"--cpus {text!r}: give a CPU list such as 1 or 2-3")
    if max(cpus) >= n:
        raise UsageError(f"--cpus {text!r}: {where} has CPUs 0-{n - 1}")
    return frozenset(cpus)


def parse_pids(text: str | None, *, here: bool = True) -> frozenset[int] | None:
    """--movable; here=False: another machine's PIDs, checked against what is
    read from it (knobs.candidates), not this machine's /proc."""
    if text is None:
        return None
    words = [w.strip() for w in text.split(",") if w.strip()]
    if not words or not all(w.isdigit() and int(w) > 0 for w in words):
        raise UsageError(f"--movable {text!r}: give process ids, comma-separated")
    pids = frozenset(int(w) for w in words)
    if not here:
        return pids
    gone = sorted(p for p in pids if not Path(f"/proc/{p}").is_dir())
    if gone:
        raise UsageError(f"--movable: no process {', '.join(map(str, gone))}")
    return pids


def parse_rounds(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= ROUNDS_MAX:
        raise UsageError(f"--rounds {text!r}: give a whole number from 1 to {ROUNDS_MAX}")
    return int(text)


def parse_round(text: str) -> int:
    from rtgauge.cli.spans import span_ms

    try:
        ms = span_ms(text, "--round")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if ms < 1000:
        raise UsageError(f"--round {text!r}: a round needs at least 1s (ten 100 ms blocks)")
    return ms


def chosen_knobs(text: str | None, all_ids: Sequence[str]) -> list[str] | None:
    if text is None:
        return None
    ids = [w.strip() for w in text.split(",") if w.strip()]
    unknown = [i for i in ids if i not in all_ids]
    if not ids or unknown:
        raise UsageError(
            f"--knobs {text!r}: unknown {', '.join(unknown) or 'list'}; "
            f"the knobs are {', '.join(all_ids)}"
        )
    return ids


def dry_run_text(cands: Sequence[Candidate]) -> str:
    lines = []
    for c in cands:
        if c.state == "try":
            lines.append(f"{c.knob}: would try: {c.title} ({c.why})")
            lines += [f"    {ch.command()}" for ch in c.changes]
    rest = [c for c in cands if c.state != "try"]
    if rest:
        lines.append("not tried:")
        lines += [f"  {c.knob}: {c.state}: {c.why}" for c in rest]
    if not any(c.state == "try" for c in cands):
        lines.insert(0, "nothing to try: no knob can be applied at run time here")
    return "\n".join(term(x) for x in lines)


def execute(args: argparse.Namespace) -> int:
    if args.target.startswith("ssh://"):
        return execute_ssh(args)
    if args.target != "local":
        raise UsageError(
            f"--target {args.target!r}: rtgauge tune tunes local or ssh://[user@]host[:port]"
        )
    cpus = parse_cpus(args.cpus)
    movable = parse_pids(args.movable)
    rounds = parse_rounds(args.rounds)
    round_ms = parse_round(args.round_span)
    from rtgauge.tune import knobs, state

    found = knobs.candidates(cpus, movable=movable)
    wanted = chosen_knobs(args.knobs, [c.knob for c in found])
    cands = [c for c in found if wanted is None or c.knob in wanted]
    if args.dry_run:
        print(dry_run_text(cands))
        return 0
    state.require_root()
    from rtgauge.targets.local import LocalTarget

    state.terminate_as_exit()  # a SIGTERM restores like ^C
    with LocalTarget(args.probe) as target:
        result = measure(args, cands, cpus, rounds, round_ms, target, state.Applied)
    return finish(args, result, cands)


def execute_ssh(args: argparse.Namespace) -> int:
    """The same over ssh: the target read in one command, each `with` of
    changes a holder shell there (tune/remote*.py)."""
    from rtgauge.probe import repo_root
    from rtgauge.targets.ssh import SshHost
    from rtgauge.tune import state
    from rtgauge.tune.remote import read_candidates
    from rtgauge.tune.remote_applied import RemoteApplied

    host = SshHost.from_args(args.target, args)
    movable = parse_pids(args.movable, here=False)
    rounds = parse_rounds(args.rounds)
    round_ms = parse_round(args.round_span)
    if args.knobs is not None:
        from rtgauge.tune.knobs import KNOBS

        chosen_knobs(args.knobs, KNOBS)  # bad input said before the target is reached
    found, cpus = read_candidates(
        host.target,
        lambda n: parse_cpus(args.cpus, n, f"the target {host.target.label}"),
        movable,
        to_apply=not args.dry_run,
        probes=repo_root(),
    )
    wanted = chosen_knobs(args.knobs, [c.knob for c in found])
    cands = [c for c in found if wanted is None or c.knob in wanted]
    if args.dry_run:
        print(dry_run_text(cands))
        return 0
    state.terminate_as_exit()
    with host as target:
        result = measure(
            args,
            cands,
            cpus,
            rounds,
            round_ms,
            target,
            lambda changes: RemoteApplied(host.target, changes),
        )
    return finish(args, result, cands)


def measure(
    args: argparse.Namespace,
    cands: Sequence[Candidate],
    cpus: frozenset[int],
    rounds: int,
    round_ms: int,
    target: Target,
    apply: Apply,
) -> TuneResult:
    """The rounds on the target; its host and kernel as its probe says them."""
    from rtgauge.audit.cpus import format_list
    from rtgauge.tune import measure as m
    from rtgauge.tune.result import TuneResult

    plan = m.Plan(format_list(set(cpus)), args.tests, rounds, round_ms)
    started = datetime.datetime.now(datetime.UTC)

    def said(text: str) -> None:
        print(f"tune: {term(text)}", file=sys.stderr, flush=True)

    host: dict[str, str] = {}
    held: list[tuple[str, ...]] = []  # each round's conditions

    def prober() -> m.Round:
        lines = list(target.run(m.probe_args(plan)))
        code, message = target.outcome()
        if code not in (0, 1):
            raise UsageError(f"the probe failed in a round: {message or f'exit {code}'}")
        host.update(host or _host_of(lines))
        got = m.round_of(iter(lines), target.describe())
        held.append(got.conditions)
        return got

    outcome = m.tune(cands, prober, apply, rounds, said)
    label = str(target.describe().get("name") or target.kind)
    return TuneResult(
        created_at=started.isoformat(timespec="seconds"),
        host=host.get("hostname") or platform.node(),
        kernel=host.get("release") or platform.release(),
        target="local" if target.kind == "local" else label,
        cpus=plan.cpus,
        tests=plan.tests,
        rounds=rounds,
        round_ms=round_ms,
        seconds=round(outcome.seconds, 1),
        trials=outcome.trials,
        together=outcome.together,
        not_tried=outcome.not_tried,
        conditions=m.conditions_of(held),
    )


def _host_of(lines: Sequence[str]) -> dict[str, str]:
    """The probe's own hostname and kernel release (its system record)."""
    import json

    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and rec.get("record") == "system":
            h = rec.get("host") or {}
            return {k: str(h[k]) for k in ("hostname", "release") if h.get(k)}
    return {}


def finish(args: argparse.Namespace, result: TuneResult, cands: Sequence[Candidate]) -> int:
    from rtgauge.cli import tune_keep
    from rtgauge.report.formats import EXPORTERS
    from rtgauge.report.tune_report import tune_report, tune_text
    from rtgauge.tune import result as stored
    from rtgauge.tune.writeout import write_out

    folder: Path = args.results_dir
    path = stored.save(result, folder)  # first, so the files name it
    out = args.out or path.with_name(path.stem + "-config")
    helped = {t.knob for t in result.helped}
    written = write_out(
        [c for c in cands if c.knob in helped], [c for c in cands if c.state != "try"], out
    )
    result.written = [str(p) for p in written]
    result.out_dir = str(out)
    path.write_text(stored.dumps(result), encoding="utf-8")
    print(tune_text(result))
    print(f"\nstored: {path}")
    if not args.no_report:
        html = EXPORTERS["html"]
        (report,) = html.write(tune_report(result), path.with_suffix(html.suffix))
        print(f"report: {report}")
    print(f"written out (not applied): {out}")
    return tune_keep.keep_and_push(args, path)  # the database store, --server
