"""Where one operation's instructions go, from QEMU's instruction trace of a
firmware (-d exec,nochain -singlestep: one line per instruction run, with
the symbol it lies in). The trace streams through a FIFO and QEMU is ended
once enough operations are seen, so a run of any length costs only what
is read.

An operation is a window between two entries to a boundary function (the
instruction at its address): Thread-Metric's loop calls one per operation;
rtgauge's figures run from one read of its clock to the next, so their
windows are those between two entries to the clock read that contain a
marker function (the call measured). Under -icount every instruction is
2^shift ns of the board's time, so a window's length is its time.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

LINE = re.compile(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/[0-9a-f]+/[0-9a-f]+\] (\S*)")
EXCEPTION = re.compile(r"taking pending (?:non)?secure exception (\d+)")


def symbol_address(elf: Path, name: str) -> int:
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True).stdout
    for ln in out.splitlines():
        parts = ln.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16) & ~1  # Thumb: the PC has no low bit
    raise KeyError(f"{name} not in {elf.name}")


def labelled_loads(elf: Path, prefix: str) -> frozenset[int]:
    """The addresses of every symbol named prefix… (the clock's labelled loads)."""
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True).stdout
    return frozenset(
        int(p[0], 16) & ~1
        for p in (ln.split() for ln in out.splitlines())
        if len(p) == 3 and p[2].startswith(prefix)
    )


def trace(cmd: list[str], stdin: bytes = b"") -> Iterator[tuple[int, str]]:
    """(pc, symbol) per instruction QEMU runs; an exception taken is
    (-number, "exception"). QEMU is ended when the consumer stops."""
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "trace")
        os.mkfifo(fifo)
        qemu = subprocess.Popen(
            [*cmd, "-d", "exec,nochain,int", "-singlestep", "-D", fifo],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert qemu.stdin is not None
            qemu.stdin.write(stdin)
            qemu.stdin.flush()
            with open(fifo, errors="replace") as f:
                rewound = False
                for ln in f:
                    m = LINE.match(ln)
                    if m:
                        if rewound:  # the same instruction again, after an I/O rewind
                            rewound = False
                            continue
                        yield int(m.group(1), 16), m.group(2)
                    elif ln.startswith("cpu_io_recompile"):
                        rewound = True
                    else:
                        e = EXCEPTION.search(ln)
                        if e:
                            yield -int(e.group(1)), "exception"
        finally:
            qemu.kill()
            qemu.wait()


@dataclass
class Windows:
    """The operations' windows: how many, and their instructions per symbol."""

    n: int = 0
    insns: int = 0
    by_symbol: Counter[str] = field(default_factory=Counter)

    def add(self, window: Counter[str]) -> None:
        self.n += 1
        self.insns += sum(window.values())
        self.by_symbol.update(window)

    def mean(self) -> float:
        return self.insns / self.n if self.n else 0.0

    def top(self, k: int = 8) -> list[tuple[str, float]]:
        return [(s, c / self.n) for s, c in self.by_symbol.most_common(k)] if self.n else []


def _ordered(first: dict[str, int], markers: tuple[str, ...]) -> bool:
    """Every marker ran in the window, each first seen after the one before."""
    at = [first.get(m) for m in markers]
    return all(a is not None for a in at) and at == sorted(at)  # type: ignore[type-var]


def windows(
    lines: Iterator[tuple[int, str]],
    boundary: int,
    specs: dict[str, tuple[str, ...]],
    skip: int = 20,
    count: int = 100,
    exclude_tick: int = 15,
) -> dict[str, Windows]:
    """Windows between entries to the boundary address, one collection per
    spec: those that run its markers in that order (every window for no
    markers). The first skip of each are left out (set-up), and so is any a
    tick (exception exclude_tick) fell into: its share of an interval is the
    tick's, not the operation's. Ends once each has count."""
    out = {k: Windows() for k in specs}
    seen = dict.fromkeys(specs, 0)
    cur: Counter[str] | None = None
    first: dict[str, int] = {}
    ticked = False
    i = 0
    for pc, sym in lines:
        if pc == boundary:
            if cur is not None and not ticked:
                for k, markers in specs.items():
                    if out[k].n < count and _ordered(first, markers):
                        seen[k] += 1
                        if seen[k] > skip:
                            out[k].add(cur)
                if all(w.n >= count for w in out.values()):
                    break
            cur, first, ticked, i = Counter(), {}, False, 0
        if cur is None:
            continue
        if pc < 0:
            ticked = ticked or -pc == exclude_tick
            continue
        cur[sym] += 1
        first.setdefault(sym, i)
        i += 1
    return out


def interrupt_windows(
    lines: Iterator[tuple[int, str]],
    exception: int,
    read: int | frozenset[int],
    reads: int = 2,
    skip: int = 20,
    count: int = 50,
) -> list[Windows]:
    """From an interrupt's entry (exception taken) to each of the next
    reads entries to the read address: what runs between the interrupt and
    each instant a figure ends at."""
    out = [Windows() for _ in range(reads)]
    cur: Counter[str] | None = None
    got = 0
    seen = 0
    for pc, sym in lines:
        if pc == -exception:
            cur, got = Counter(), 0
            continue
        if cur is None or pc < 0:
            continue
        if pc == read or (isinstance(read, frozenset) and pc in read):
            if seen >= skip:
                out[got].add(Counter(cur))
            got += 1
            if got == reads:
                seen += 1
                cur = None
                if out[0].n >= count:
                    break
                continue
        cur[sym] += 1
    return out
