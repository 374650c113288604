"""Changes applied for as long as a `with` lasts, and undone on every way
out: a state file names every change before the first is made, so what a
killed process leaves behind, the janitor (restore_leftovers, at the start
of every rtgauge command run as root) puts back.

A state file is locked (flock) by the process that wrote it for as long as
it lives: a lock that can be taken means its owner is gone, whatever became
of its pid. This module is imported at every command's start: the standard
library only, the rest when there is something to do."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from rtgauge.errors import RunError, UsageError

if TYPE_CHECKING:
    from rtgauge.tune.knobs import Change

DEFAULT_DIR = "/run/rtgauge/tune"
_SIGNALS = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}


def state_dir() -> Path:
    """/run/rtgauge/tune (gone at reboot, as every run-time setting), or
    $RTGAUGE_TUNE_STATE_DIR."""
    return Path(os.environ.get("RTGAUGE_TUNE_STATE_DIR") or DEFAULT_DIR)


def require_root() -> None:
    if os.geteuid() != 0:
        raise UsageError("rtgauge tune changes kernel settings: run it as root")


def terminate_as_exit() -> None:
    """SIGTERM and SIGHUP raise SystemExit in the main thread, so every
    `with Applied` restores on its way out."""

    def _exit(signum: int, _frame: FrameType | None) -> None:
        global _pending
        if _writing:  # values half written: the exit waits for the last one
            _pending = signum
            return
        raise SystemExit(128 + signum)

    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _exit)


# While values are written or restored, a SIGTERM or SIGHUP is held back.
# The signal mask alone cannot: a process-directed signal goes to any thread
# that does not block it, and Python then runs the handler in the main thread
# at once; so the handler itself defers while _writing.
_writing = 0
_pending: int | None = None


def _block() -> set[int]:
    """Hold back termination while values are written or restored."""
    global _writing
    _writing += 1
    return set(signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS))


def _unblock(before: set[int]) -> None:
    """Let a held-back signal in: its handler runs (and may raise) here."""
    global _writing, _pending
    signal.pthread_sigmask(signal.SIG_SETMASK, before)
    _writing -= 1
    if not _writing and _pending is not None:
        signum, _pending = _pending, None
        raise SystemExit(128 + signum)


class _StateFile:
    """One state file, written atomically (a temporary file fsynced, then
    renamed, then the directory fsynced) and locked while its owner lives."""

    def __init__(self) -> None:
        self.dir = state_dir()
        self.path = self.dir / f"{os.getpid()}-{time.time_ns()}.json"
        self.fd: int | None = None

    def write(self, entries: list[dict[str, str]], note: str | None = None) -> None:
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        body = {"pid": os.getpid(), "written": time.time(), "changes": entries, "note": note}
        fd = _write_locked(self.path, body)
        if self.fd is not None:
            os.close(self.fd)  # the lock moved to the new file
        self.fd = fd

    def remove(self) -> None:
        if self.fd is None:
            return
        self.path.unlink(missing_ok=True)
        _fsync_dir(self.dir)
        os.close(self.fd)
        self.fd = None

    def release(self) -> None:
        """Keep the file, let the janitor have it."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _write_locked(path: Path, body: dict[str, Any]) -> int:
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, json.dumps(body, indent=1).encode())
        os.fsync(fd)
        os.rename(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    return fd


def _fsync_dir(d: Path) -> None:
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _entry(c: Change) -> dict[str, str]:
    return {"path": c.path, "old": c.old, "new": c.new}


class Applied:
    """with Applied(changes): ... — writes (and fsyncs) a state file naming
    every Change and this pid before it writes any new value, then applies
    them in order; if one fails, restores those applied and raises
    UsageError naming it. On every way out restores in reverse order and
    removes the state file; a value it cannot restore is said on stderr and
    kept in the file for the janitor."""

    def __init__(self, changes: Sequence[Change]) -> None:
        self.changes = list(changes)
        self._state = _StateFile()
        self._applied = 0
        self._held: dict[int, int] = {}

    def __enter__(self) -> Applied:
        before = _block()
        try:
            self._apply()
        finally:
            try:
                _unblock(before)
            except BaseException:  # a signal held back during the writes
                self._undo()
                raise
        return self

    def __exit__(self, *exc: object) -> None:
        failed = self._undo()
        if failed and exc[0] is None:
            raise RunError(
                f"could not restore {len(failed)} settings (said above); "
                f"{self._state.path} keeps them for the next rtgauge command"
            )

    def _apply(self) -> None:
        from rtgauge.tune.writes import apply_one

        self._state.write([_entry(c) for c in self.changes])
        for i, c in enumerate(self.changes):
            try:
                fd = apply_one(c.path, c.new)
            except OSError as exc:
                self._undo()
                raise UsageError(
                    f"could not apply `{c.command()}`: {exc.strerror or exc}; the {i} "
                    "settings applied before it are restored"
                ) from None
            except BaseException:  # anything else: undone all the same
                self._undo()
                raise
            if fd is not None:
                self._held[i] = fd
            self._applied = i + 1

    def _undo(self) -> list[str]:
        """Restore what was applied, newest first; idempotent. Returns what failed."""
        from rtgauge.tune.writes import restore_one

        before = _block()
        try:
            failed: list[dict[str, str]] = []
            lines: list[str] = []
            for i in reversed(range(self._applied)):
                c = self.changes[i]
                try:
                    restore_one(c.path, c.old, c.new, self._held.pop(i, None))
                except OSError as exc:
                    failed.append(_entry(c))
                    lines.append(f"could not restore {c.path} to {c.old!r}: {exc.strerror or exc}")
            self._applied = 0
            if failed:
                self._state.write(failed[::-1], note="its owner could not restore them")
                self._state.release()
                for line in lines:
                    print(f"rtgauge: {line}", file=sys.stderr)
            else:
                self._state.remove()
            return lines
        finally:
            _unblock(before)


def restore_leftovers() -> list[str]:
    """The janitor: for each state file whose owner is gone, restore every
    value it names (reverse order) and remove it; one line per file for the
    user. A value that cannot be restored is named and kept in the file."""
    d = state_dir()
    try:
        names = sorted(p for p in d.iterdir() if p.suffix == ".json" and p.name[0] != ".")
    except OSError:
        return []
    lines: list[str] = []
    for path in names:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # its owner is alive
            try:
                if os.stat(path).st_ino != os.fstat(fd).st_ino:
                    continue  # replaced or removed meanwhile: another janitor had it
            except FileNotFoundError:
                continue
            lines += _restore_file(path, fd)
        finally:
            os.close(fd)
    return lines


def _holder_alive(pid: int, marker: str) -> bool:
    """Whether the process is the shell holder (of an ssh target that is this
    machine) that wrote the file: its command line names the marker."""
    try:
        return marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _restore_file(path: Path, fd: int) -> list[str]:
    from rtgauge.tune.writes import restore_one

    try:
        body = json.loads(path.read_text())
        pid = int(body["pid"])
        entries = [(str(e["path"]), str(e["old"]), str(e["new"])) for e in body["changes"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [f"kept {path}: not a state file of rtgauge tune ({exc})"]
    if body.get("holder") and _holder_alive(pid, str(body["holder"])):
        return []  # an ssh target's holder on this machine, without flock(1): alive
    failed, lines = [], []
    for p, old, new in reversed(entries):
        try:
            restore_one(p, old, new)
        except OSError as exc:
            failed.append({"path": p, "old": old, "new": new})
            lines.append(f"could not restore {p} to {old!r}: {exc.strerror or exc}")
    how = body.get("note") or "killed"
    held = [p for p, _, _ in entries if p.startswith("hold:")]
    done = len(entries) - len(failed)
    line = (
        f"restored {done} setting{'s' if done != 1 else ''} left by rtgauge tune (pid {pid}, {how})"
    )
    if held:
        line += f"; the kernel let go of {', '.join(h[5:] for h in held)} when it ended"
    if failed:
        body["changes"] = failed[::-1]
        new_fd = _write_locked(path, body)
        os.close(new_fd)
        lines.append(f"{path} keeps the {len(failed)} not restored for the next try")
    else:
        path.unlink(missing_ok=True)
        _fsync_dir(path.parent)
    return [line, *lines]
