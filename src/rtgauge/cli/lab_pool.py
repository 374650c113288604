"""Runs a lab's targets, up to N at once, never two on one machine at once.

Each run is `rtgauge run` in a worker thread, its progress lines prefixed with
the target's name. A target that fails is said and the others go on; Ctrl-C
stops every running target (each keeps what it measured) and starts no more.
"""

from __future__ import annotations

import argparse
import queue
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TextIO, cast

from rtgauge.cli import run
from rtgauge.cli.lab_file import LabEntry, apply
from rtgauge.errors import RunError, UsageError
from rtgauge.fmt import term
from rtgauge.targets.base import Target


@dataclass
class Outcome:
    entry: LabEntry
    code: int  # the run's exit code (3 when it did not run)
    path: Path | None = None  # the stored bundle
    error: str | None = None


class Prefixed:
    """A text stream that writes whole lines, each prefixed with a name."""

    def __init__(self, out: TextIO, name: str, lock: threading.Lock) -> None:
        self.out, self.prefix, self.lock = out, f"[{term(name)}] ", lock
        self._partial = ""

    def write(self, text: str) -> int:
        *lines, self._partial = (self._partial + text).split("\n")
        if lines:
            with self.lock:
                self.out.writelines(self.prefix + line + "\n" for line in lines)
                self.out.flush()
        return len(text)

    def flush(self) -> None:
        return None

    def isatty(self) -> bool:
        return False  # one line per event: lines of several targets interleave


def run_all(entries: list[LabEntry], args: argparse.Namespace, parallel: int) -> list[Outcome]:
    """Every entry run once; outcomes in the entries' order."""
    lock = threading.Lock()
    done: queue.Queue[Outcome] = queue.Queue()
    active: dict[str, Target] = {}
    pending = list(entries)
    busy: set[str] = set()  # machine keys with a run under way
    outcomes: dict[str, Outcome] = {}
    stopping: list[int] = []

    def work(entry: LabEntry) -> None:
        out = cast(TextIO, Prefixed(sys.stderr, entry.name, lock))  # writes like one

        def started(target: Target) -> None:
            with lock:
                active[entry.name] = target
            if stopping:
                target.stop()

        try:
            code, path = run.perform(apply(args, entry), out, summary=False, started=started)
            result = Outcome(entry, code, path)
        except (UsageError, RunError) as exc:
            result = Outcome(entry, 3, error=str(exc))
        except Exception as exc:  # one target's fault must not lose the others'
            result = Outcome(entry, 3, error=f"internal error ({type(exc).__name__}: {exc})")
        finally:
            with lock:
                active.pop(entry.name, None)
        done.put(result)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.append(signum)
        with lock:
            targets = list(active.values())
        for target in targets:
            target.stop()

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while pending or busy:
            for entry in list(pending):
                if stopping or len(busy) >= parallel:
                    break
                if entry.machine in busy:
                    continue  # that machine is measuring: its next run waits
                pending.remove(entry)
                busy.add(entry.machine)
                print(f"[{term(entry.name)}] started ({term(entry.target)})", file=sys.stderr)
                threading.Thread(target=work, args=(entry,), daemon=True).start()
            if stopping and pending:
                for entry in pending:
                    outcomes[entry.name] = Outcome(entry, 3, error="not started: interrupted")
                pending.clear()
            if not busy:
                break
            try:
                result = done.get(timeout=0.5)  # short: a signal is handled between waits
            except queue.Empty:
                continue
            busy.discard(result.entry.machine)
            outcomes[result.entry.name] = result
            _said(result)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    return [outcomes[e.name] for e in entries]


def _said(result: Outcome) -> None:
    name = term(result.entry.name)
    if result.path is None:
        print(f"[{name}] failed: {term(result.error or 'no results')}", file=sys.stderr)
    else:
        print(f"[{name}] finished (exit {result.code}): {result.path}", file=sys.stderr)
