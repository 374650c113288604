"""The files the knobs read, under a root ("/" live, a temporary tree in
tests): values, tasks and their flags, the cpuset cgroup hierarchy."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

PF_KTHREAD = 0x00200000


class Tree:
    def __init__(self, root: Path) -> None:
        self.root = root

    def p(self, path: str) -> Path:
        """An absolute system path under the root."""
        return self.root / path.lstrip("/")

    def read(self, path: str) -> str | None:
        try:
            return self.p(path).read_text().strip()
        except (OSError, UnicodeDecodeError):
            return None

    def entries(self, path: str) -> list[Path]:
        try:
            return sorted(self.p(path).iterdir())
        except OSError:
            return []

    @staticmethod
    def writable(path: Path) -> bool:
        """The kernel makes a setting it refuses read-only (an IRQ whose
        affinity it manages): the owner's write bit says."""
        try:
            return bool(path.stat().st_mode & 0o200)
        except OSError:
            return False

    def pids(self) -> list[int]:
        return sorted(int(d.name) for d in self.entries("/proc") if d.name.isdigit())

    def _stat_fields(self, pid: int) -> list[str] | None:
        text = self.read(f"/proc/{pid}/stat")
        if text is None or ")" not in text:
            return None
        return text.rsplit(")", 1)[1].split()

    def stat_flags(self, pid: int) -> int | None:
        """The task's flags (the stat file's 9th field: PF_KTHREAD ...)."""
        fields = self._stat_fields(pid)
        try:
            return int(fields[6]) if fields else None
        except (IndexError, ValueError):
            return None

    def status_field(self, pid: int, name: str) -> str | None:
        for line in (self.read(f"/proc/{pid}/status") or "").splitlines():
            key, _, value = line.partition(":")
            if key == name:
                return value.strip()
        return None

    def comm(self, pid: int) -> str:
        return self.read(f"/proc/{pid}/comm") or "?"

    def cpuset_root(self) -> tuple[Path, bool] | None:
        """Where the cpuset controller is mounted, and whether it is cgroup v2
        (then only when child cgroups may use it)."""
        for line in (self.read("/proc/mounts") or "").splitlines():
            parts = line.split()
            if len(parts) < 4:
                continue
            where, kind, options = self.p(parts[1]), parts[2], parts[3].split(",")
            if kind == "cgroup" and "cpuset" in options:
                return where, False
            if kind == "cgroup2":
                rel = str(where.relative_to(self.root))
                control = (self.read(f"{rel}/cgroup.subtree_control") or "").split()
                if "cpuset" in control:
                    return where, True
        return None

    def movable_tasks(self, movable: frozenset[int] | None) -> Iterator[tuple[int, list[int]]]:
        """(pid, its thread ids) of each process the shield may move: the
        given ones, or every user process but this one."""
        if movable is not None:
            pids = sorted(movable)
        else:
            own = os.getpid()
            pids = [
                p
                for p in self.pids()
                if p != own and (flags := self.stat_flags(p)) is not None and not flags & PF_KTHREAD
            ]
        for pid in pids:
            tids = sorted(
                int(d.name) for d in self.entries(f"/proc/{pid}/task") if d.name.isdigit()
            )
            yield pid, tids or [pid]

    def cpuset_of(self, task: int, pid: int, base: Path, v2: bool) -> Path | None:
        """The cpuset cgroup directory a thread (v1) or process (v2) is in."""
        where = f"/proc/{pid}/task/{task}/cgroup" if not v2 else f"/proc/{pid}/cgroup"
        for line in (self.read(where) or "").splitlines():
            _, controllers, path = line.split(":", 2) if line.count(":") >= 2 else ("", "", "")
            if (v2 and controllers == "") or (not v2 and "cpuset" in controllers.split(",")):
                return base / path.lstrip("/") if path.strip("/") else base
        return None
