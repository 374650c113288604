"""A run of the firmware on a board, over its console, however the board is
reached (QEMU's serial on a pipe, a lab board's serial port through labgrid).

The firmware frames every line "@RTG@ " (core/boards/firmware/main.c): it
says BEGIN, then READY until the host sends `ARGS <arguments>`; then PLAN
(the selected ids in run order), the records, and EXIT code. After a fault,
or a test the watchdog had to stop, it says RESTART instead and stops: the
board is booted again with the tests left, and the records of every boot
become one stream (one system record, one end record made from the test
records, with the last boot's "board": what its stacks came to). A firmware
older than that said its stacks on a MEMORY line instead: ignored, as every
line that is neither a record nor a word of the session.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from rtgauge.errors import UsageError
from rtgauge.targets.framing import Silent

ARGS_MAX = 1023  # the firmware's command line buffer, less its end


@dataclass
class BoardRun:
    """How the boots went: their count, the exit code, the error if any."""

    exit_code: int | None = None
    error: str | None = None
    boots: int = 0
    restarts: list[str] = field(default_factory=list)  # the test after which each came
    output_tail: list[str] = field(default_factory=list)


class Boot(Protocol):
    """One boot of the board: its framed lines, and a way to answer."""

    def bodies(self) -> Iterator[str]:
        """The bodies of the framed lines as they come (Silent if none comes)."""
        ...

    def send(self, data: bytes) -> None:
        """Writes to the board's console."""
        ...

    def close(self) -> str:
        """Ends this boot; returns the board's last word on an error, or ""."""
        ...


def args_line(args: list[str]) -> bytes:
    """The ARGS line the firmware reads: arguments separated by single spaces."""
    for a in args:
        if not a or any(c.isspace() for c in a):
            raise UsageError(f"the firmware takes arguments without spaces: {a!r}")
    text = " ".join(args)
    if len(text) > ARGS_MAX:
        raise UsageError(
            f"the firmware's command line holds {ARGS_MAX} characters, not {len(text)}"
        )
    return f"ARGS {text}\n".encode()


def with_tests(args: list[str], tests: list[str]) -> list[str]:
    """args with --tests replaced by exactly these ids."""
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "--tests":
            skip = True
            continue
        out.append(a)
    return [*out, "--tests", ",".join(tests)]


class _BootState:
    """One boot's words beside its records."""

    def __init__(self) -> None:
        self.begun = False
        self.plan: list[str] | None = None
        self.restart = False
        self.exit_code: int | None = None
        self.error: str | None = None
        self.usage_error: str | None = None
        self.fault: str | None = None


def _one_boot(boot: Boot, args: bytes, state: _BootState) -> Iterator[str]:
    sent = False
    try:
        for body in boot.bodies():
            if body == "BEGIN":
                state.begun = True
            elif body == "READY":
                state.begun = True
                if not sent:
                    boot.send(args)
                    sent = True
            elif body.startswith("PLAN "):
                state.plan = [t for t in body[5:].split(",") if t]
            elif body.startswith("FAULT "):
                state.fault = body[6:]
            elif body == "RESTART":
                state.restart = True
                break
            elif body.startswith("ERROR "):
                state.usage_error = body[6:]
            elif body.startswith("EXIT "):
                state.exit_code = int(body[5:].strip() or "3")
                break
            elif body.startswith("{"):
                yield body
    except Silent as silent:
        state.error = (
            f"the board went silent: no output for {silent.waited_s:.0f} s"
            if state.begun
            else f"the firmware did not boot: no output in {silent.waited_s:.0f} s"
        )
    finally:
        last = boot.close()
        if not state.begun and state.error is None and state.usage_error is None:
            state.error = "the firmware did not boot" + (f": {last}" if last else "")


def _end_record(
    tests: list[dict[str, object]], complete: bool, elapsed_ms: float
) -> tuple[dict[str, object], int]:
    """The end record of a run that took several boots, from its test records;
    and its exit code."""
    count = {s: sum(1 for t in tests if t.get("status") == s) for s in
             ("ok", "pass", "fail", "error", "skipped", "interrupted")}  # fmt: skip
    code = 3 if count["error"] or not complete else 1 if count["fail"] else 0
    return {
        "record": "end", "schema_version": 1,
        "status": "complete" if complete else "interrupted",
        "tests": len(tests), "passed": count["ok"] + count["pass"], "failed": count["fail"],
        "errors": count["error"], "skipped": count["skipped"],
        "interrupted": count["interrupted"], "exit_code": code,
        "elapsed_ms": round(elapsed_ms),
    }, code  # fmt: skip


def run_boots(
    start: Callable[[], Boot],
    probe_args: list[str],
    run: BoardRun,
    extra_args: list[str] | None = None,
    max_boots: int = 64,
) -> Iterator[str]:
    """Boots the board (start(), again after each RESTART) and yields the
    records of every boot as one run."""
    extra = extra_args or []
    args = list(probe_args)
    args_line([*args, *extra])  # refused before anything starts
    plan: list[str] | None = None
    done: list[str] = []
    tests: list[dict[str, object]] = []
    end_line: str | None = None
    t0 = time.monotonic()
    while run.boots < max_boots:
        state = _BootState()
        run.boots += 1
        before = len(done)
        for line in _one_boot(start(), args_line([*args, *extra]), state):
            record = _peek(line)
            kind = record.get("record")
            if kind == "system" and run.boots > 1:
                continue  # the first boot's describes the run
            if kind == "end":
                end_line = line
                continue
            if kind == "test":
                done.append(str(record.get("id")))
                tests.append(record)
            yield line
        if plan is None:
            plan = state.plan
        if state.usage_error:
            run.exit_code, run.error = 2, state.usage_error
            return
        if state.error:
            run.exit_code, run.error = 3, state.error
            break
        if not state.restart:
            run.exit_code = state.exit_code if state.exit_code is not None else 3
            break
        run.restarts.append(done[-1] if done else "?")
        if state.fault and len(done) == before:
            run.exit_code, run.error = 3, f"the board faulted: {state.fault}"
            break
        left = [t for t in (plan or []) if t not in done]
        if not left:
            break
        if len(done) == before:
            run.exit_code, run.error = 3, "the board restarted without finishing any test"
            break
        args = with_tests(probe_args, left)
    else:
        run.exit_code, run.error = 3, f"gave up after {max_boots} boots"
    complete = plan is not None and all(t in done for t in plan) and run.error is None
    if run.boots == 1 and end_line is not None:
        yield end_line
    elif tests or end_line is not None:
        if run.error is None and not complete:
            run.error = "the run ended before every test had a record"
        end, code = _end_record(tests, complete, (time.monotonic() - t0) * 1000)
        board = _peek(end_line).get("board") if end_line is not None else None
        if isinstance(board, dict):
            end["board"] = board  # the last boot's: a boot that restarts writes no end
        yield json.dumps(end)
        run.exit_code = 3 if run.error else code


def _peek(line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
