"""Applying one change and undoing it: a file written, a cpuset made, a task
moved, a device held open. Shared by `with Applied` and the janitor, which
restore from the same three strings (path, old, new)."""

from __future__ import annotations

import errno
import os
import struct
from pathlib import Path


def _write(path: str | Path, value: str, *, append: bool = False) -> None:
    """One write(2), as `echo value > path` does: the kernel takes or refuses
    it whole. A task list is appended to (`>>`: a plain file in a test's tree
    keeps every id, as a cgroup's list does)."""
    how = os.O_APPEND if append else os.O_TRUNC
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | how | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, (value + "\n").encode())
    finally:
        os.close(fd)


def _gone(exc: OSError) -> bool:
    """A task that exited in between: nothing to move, nothing to move back."""
    return isinstance(exc, ProcessLookupError) or exc.errno == errno.ESRCH


def apply_one(path: str, new: str) -> int | None:
    """Apply a change; a held device returns its descriptor (closing it undoes it)."""
    kind, _, rest = path.partition(":")
    if kind == "cpuset":
        fields = dict(part.partition("=")[::2] for part in new.split())
        os.mkdir(rest)
        try:
            _write(Path(rest, "cpuset.cpus"), fields.get("cpus", ""))
            if fields.get("mems"):
                _write(Path(rest, "cpuset.mems"), fields["mems"])
        except OSError:
            _remove_cpuset(Path(rest))  # not applied: not left half made
            raise
    elif kind == "cpuset-task":
        try:
            _write(new, rest, append=True)
        except OSError as exc:
            if not _gone(exc):
                raise
    elif kind == "pid-affinity":
        try:
            os.sched_setaffinity(int(rest), _cpus(new))
        except OSError as exc:
            if not _gone(exc):
                raise
    elif kind == "hold":
        fd = os.open(rest, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, struct.pack("i", int(new)))
        except OSError:
            os.close(fd)
            raise
        return fd
    else:
        _write(path, new)
    return None


def restore_one(path: str, old: str, new: str, held: int | None = None) -> None:
    """Put back what apply_one changed; OSError names what could not be. A
    task is moved back only if it is still in the shield (the janitor may
    find a state file whose moves were never all made)."""
    kind, _, rest = path.partition(":")
    if kind == "cpuset":
        _remove_cpuset(Path(rest))
    elif kind == "cpuset-task":
        try:
            if rest not in Path(new).read_text().split():
                return
        except FileNotFoundError:
            return
        try:
            _write(old, rest, append=True)
        except OSError as exc:
            if not _gone(exc):
                raise
    elif kind == "pid-affinity":
        try:
            os.sched_setaffinity(int(rest), _cpus(old))
        except OSError as exc:
            if not _gone(exc):
                raise
    elif kind == "hold":
        if held is not None:  # the janitor holds nothing: the kernel let go when its holder died
            os.close(held)
    else:
        _write(path, old)


def _cpus(text: str) -> set[int]:
    """ "0-2,5" -> {0, 1, 2, 5} (the janitor runs before every command: no
    import of the audit for this)."""
    cpus: set[int] = set()
    try:
        for part in text.split(","):
            lo, _, hi = part.partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        cpus = set()
    if not cpus:
        raise OSError(errno.EINVAL, f"not a CPU list: {text!r}")
    return cpus


def _remove_cpuset(d: Path) -> None:
    """Move out what is still in the shield (tasks forked there since) to the
    parent, then remove it; gone already is done."""
    if not d.exists():
        return
    for name in ("tasks", "cgroup.procs"):
        try:
            ids = Path(d, name).read_text().split()
        except OSError:
            continue
        for i in ids:
            try:
                _write(d.parent / name, i, append=True)
            except OSError as exc:
                if not _gone(exc):
                    raise
    try:
        os.rmdir(d)
    except OSError as exc:
        if exc.errno != errno.ENOTEMPTY:
            raise
        # a plain directory (a test's tree) holds the files written into it;
        # a cgroup's own files cannot be unlinked, and it never gets here
        for f in d.iterdir():
            f.unlink()
        os.rmdir(d)
