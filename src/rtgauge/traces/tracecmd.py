"""A trace-cmd recording (trace.dat) read through the real reader: the text
of `trace-cmd report -N -t` (Debian's trace-cmd), parsed here; or the
kernel's own text trace (the tracefs `trace` file, as rtla saves it), laid
out the same way.

-N loads no plugin, so every event is printed by the kernel's own format
(the print formats stored in the file): `prev_comm=… prev_pid=… ==> …`,
`irq=… name=…`, `vec=… [action=…]`, `function=… now=…`, and a marker as
`tracing_mark_write: TEXT`. -t prints the full timestamp (ns). A line the
reader does not know (a header, a warning) is skipped; lost events are
counted per CPU with the timestamp of the CPU's next event (the loss lies
before it)."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from rtgauge.errors import UsageError

# "comm-pid [cpu] (flags) seconds.fraction: event: body"; comm may hold
# spaces and dashes, so the pid is the last "-digits" before the CPU.
_LINE = re.compile(
    r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?:[.a-zA-Z0-9]{2,8}\s+)?"
    r"(?P<sec>\d+)\.(?P<frac>\d+):\s+(?P<event>[\w:.-]+):\s?(?P<body>.*)$"
)
# A tracer's own entry in the kernel's text trace carries no event name:
# timerlat's "#12 context thread timer_latency 4500 ns" (rtla's saved trace)
_TRACER = re.compile(
    r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?:[.a-zA-Z0-9]{2,8}\s+)?"
    r"(?P<sec>\d+)\.(?P<frac>\d+):\s+(?P<body>#\d+\s+context\s.*)$"
)
# trace-cmd says where a CPU lost events in its stream as
# "CPU:1 [102 EVENTS DROPPED]" ("[EVENTS DROPPED]" when the kernel did not
# count them); older versions wrote "[LOST n EVENTS]".
_LOST = (
    re.compile(r"^CPU:?\s*(?P<cpu>\d+)\s*\[(?:(?P<n>\d+)\s+)?EVENTS DROPPED\]", re.I),
    re.compile(r"^CPU:?\s*(?P<cpu>\d+)\s*\[LOST(?:\s+(?P<n>\d+))?\s+EVENTS?\]", re.I),
)


@dataclass(frozen=True)
class Line:
    """One event as `trace-cmd report` prints it."""

    comm: str
    pid: int
    cpu: int
    ts: int  # ns, the trace's clock
    event: str  # the tracepoint's name (sched_switch, print, local_timer_entry …)
    body: str


@dataclass(frozen=True)
class Loss:
    """Events a CPU lost, before its event at ts (None: after its last)."""

    cpu: int
    count: int | None  # None: the kernel did not say how many
    ts: int | None


@dataclass
class Report:
    """A trace as read: its events in the order printed, and its losses."""

    lines: list[Line] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)

    @property
    def events_seen(self) -> set[str]:
        return {ln.event for ln in self.lines}


def _ns(sec: str, frac: str) -> int:
    return int(sec) * 1_000_000_000 + int((frac + "000000000")[:9])


def parse(text: str) -> Report:
    """The lines and losses of `trace-cmd report -N -t` output."""
    rep = Report()
    pending: dict[int, list[int | None]] = {}  # cpu -> losses not yet placed
    for raw in text.splitlines():
        m = _LINE.match(raw)
        event = m["event"] if m is not None else "timerlat"
        if m is None:
            m = _TRACER.match(raw)
        if m is None:
            for pat in _LOST:
                lost = pat.search(raw.strip())
                if lost:
                    n = lost.group("n")
                    pending.setdefault(int(lost.group("cpu")), []).append(int(n) if n else None)
                    break
            continue
        cpu = int(m["cpu"])
        ln = Line(m["comm"].strip(), int(m["pid"]), cpu, _ns(m["sec"], m["frac"]), event,
                  m["body"].strip())  # fmt: skip
        rep.lines.append(ln)
        for n in pending.pop(cpu, []):
            rep.losses.append(Loss(cpu, n, ln.ts))
    rep.losses += [Loss(c, n, None) for c, ns in pending.items() for n in ns]
    return rep


def read(path: Path) -> Report:
    """Runs `trace-cmd report` on path; a missing reader or a file it cannot
    read is a usage error (one line, exit 2)."""
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    exe = shutil.which("trace-cmd")
    if exe is None:
        raise UsageError(f"{path}: reading a trace.dat needs trace-cmd (Debian: trace-cmd)")
    done = subprocess.run(
        [exe, "report", "-N", "-t", "-i", str(path)],
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
    )
    if done.returncode != 0:
        why = next((ln for ln in done.stderr.splitlines() if ln.strip()), "it failed")
        raise UsageError(f"{path}: trace-cmd report cannot read it: {why.strip()}")
    return parse(done.stdout)


def read_text(path: Path) -> Report:
    """A text trace as the kernel prints it (rtla's saved timerlat_trace.txt)."""
    try:
        return parse(path.read_text(errors="replace"))
    except OSError as e:
        raise UsageError(f"{path}: cannot read it: {e.strerror}") from None


# key=value pairs of a kernel print format; a value runs to the next " key="
_FIELD = re.compile(r"(?:^|\s)([a-z_]+)=")


def fields(body: str) -> dict[str, str]:
    """The key=value fields of an event's body, values as printed."""
    marks = list(_FIELD.finditer(body))
    out: dict[str, str] = {}
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(body)
        out[m.group(1)] = body[m.end() : end].strip()
    return out
