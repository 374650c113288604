"""The recorder's events (schema trace_event) as the kernel's tracepoints in
a trace.dat: the same systems, names, fields and print formats as a Linux
kernel's (sched_switch's prev_state letters, softirq names, `vector=`), so
`trace-cmd report` prints them as it prints a recording and KernelShark
draws tasks from sched_switch. An RTOS's events take the same shapes: its
task switches are sched_switch, its wake-ups sched_wakeup, its interrupts
irq_vectors entries and exits named after the vector.

What the recorder kept as a name where the kernel has an address (an
hrtimer's or a work item's function) gets an address of its own, listed in
the file's symbols, so `%ps` prints the name.
"""

from __future__ import annotations

import re

from rtgauge.model import TraceEvent
from rtgauge.traces.tracedat_format import EventType, Field

COMM = 16
NAME = 32  # an irq's or IPI's name: the kernel's is a string of any length
SYMBOL_BASE = 0xFFFFFFFFC0000000
MARKER_SYMBOL = "rtgauge"  # what a marker's `ip` names
MARKER_MAX = 1024  # a marker's text in bytes at most (the kernel's trace_marker: 4 KB)
_IDLE_EXIT = 0xFFFFFFFF  # cpu_idle's state (u32)-1: the CPU left its idle state

_STATE_MASK = "(0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040)"
_SWITCH_FMT = (
    '"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d '
    'next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, '
    f"(REC->prev_state & ((({_STATE_MASK} + 1) << 1) - 1)) ? "
    f'__print_flags(REC->prev_state & ((({_STATE_MASK} + 1) << 1) - 1), "|", '
    '{ 0x00000001, "S" }, { 0x00000002, "D" }, { 0x00000004, "T" }, { 0x00000008, "t" }, '
    '{ 0x00000010, "X" }, { 0x00000020, "Z" }, { 0x00000040, "P" }, { 0x00000080, "I" }) : "R", '
    f'REC->prev_state & ((({_STATE_MASK} + 1) << 1)) ? "+" : "", '
    "REC->next_comm, REC->next_pid, REC->next_prio"
)
_SOFTIRQS = ("HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
             "HRTIMER", "RCU")  # fmt: skip
_SOFTIRQ_FMT = (
    '"vec=%u [action=%s]", REC->vec, __print_symbolic(REC->vec, '
    + ", ".join(f'{{ {i}, "{n}" }}' for i, n in enumerate(_SOFTIRQS))
    + ")"
)
_WAKE_FMT = (
    '"comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, REC->prio, REC->target_cpu'
)
_WORK_FMT = '"work struct %p: function %ps", REC->work, REC->function'


def _i(name: str) -> Field:
    return Field("int", name, 4, True, "i")


def _u(name: str) -> Field:
    return Field("unsigned int", name, 4, False, "I")


def _ptr(name: str) -> Field:
    return Field("void *", name, 8, False, "Q")


def _chars(name: str, n: int) -> Field:
    return Field("char", f"{name}[{n}]", n, False, f"{n}s")


_WAKE_FIELDS = (_chars("comm", COMM), Field("pid_t", "pid", 4, True, "i"), _i("prio"),
                _i("target_cpu"))  # fmt: skip
_SOFTIRQ_FIELDS = (_u("vec"),)
_WORK_FIELDS = (_ptr("work"), _ptr("function"))

# the fixed events, by the recorder's kind; ids are the file's own
_FIXED: dict[str, EventType] = {
    "switch": EventType("sched", "sched_switch", 100, (
        _chars("prev_comm", COMM), Field("pid_t", "prev_pid", 4, True, "i"), _i("prev_prio"),
        Field("long", "prev_state", 8, True, "q"), _chars("next_comm", COMM),
        Field("pid_t", "next_pid", 4, True, "i"), _i("next_prio"),
    ), _SWITCH_FMT),
    "waking": EventType("sched", "sched_waking", 101, _WAKE_FIELDS, _WAKE_FMT),
    "wakeup": EventType("sched", "sched_wakeup", 102, _WAKE_FIELDS, _WAKE_FMT),
    "irq_entry": EventType("irq", "irq_handler_entry", 110, (_i("irq"), _chars("name", NAME)),
                           '"irq=%d name=%s", REC->irq, REC->name'),
    "irq_exit": EventType("irq", "irq_handler_exit", 111, (_i("irq"), _i("ret")),
                          '"irq=%d ret=%s", REC->irq, REC->ret ? "handled" : "unhandled"'),
    "softirq_raise": EventType("irq", "softirq_raise", 112, _SOFTIRQ_FIELDS, _SOFTIRQ_FMT),
    "softirq_entry": EventType("irq", "softirq_entry", 113, _SOFTIRQ_FIELDS, _SOFTIRQ_FMT),
    "softirq_exit": EventType("irq", "softirq_exit", 114, _SOFTIRQ_FIELDS, _SOFTIRQ_FMT),
    "timer_entry": EventType("timer", "hrtimer_expire_entry", 120, (
        _ptr("hrtimer"), Field("s64", "now", 8, True, "q"), _ptr("function"),
    ), '"hrtimer=%p function=%ps now=%llu", REC->hrtimer, REC->function, '
       "(unsigned long long) REC->now"),
    "timer_exit": EventType("timer", "hrtimer_expire_exit", 121, (_ptr("hrtimer"),),
                            '"hrtimer=%p", REC->hrtimer'),
    "idle_entry": EventType("power", "cpu_idle", 130, (
        Field("u32", "state", 4, False, "I"), Field("u32", "cpu_id", 4, False, "I"),
    ), '"state=%lu cpu_id=%lu", (unsigned long)REC->state, (unsigned long)REC->cpu_id'),
    "work_start": EventType("workqueue", "workqueue_execute_start", 140, _WORK_FIELDS,
                            _WORK_FMT),
    "work_end": EventType("workqueue", "workqueue_execute_end", 141, _WORK_FIELDS, _WORK_FMT),
    "ipi_send": EventType("ipi", "ipi_send_cpu", 150, (_u("cpu"), _ptr("callsite"),
                                                       _ptr("callback")),
                          '"cpu=%u callsite=%pS callback=%pS", REC->cpu, '
                          "(void *)REC->callsite, (void *)REC->callback"),
    "ipi_entry": EventType("ipi", "ipi_entry", 151, (_chars("reason", NAME),),
                           '"(%s)", REC->reason'),
    "ipi_exit": EventType("ipi", "ipi_exit", 152, (_chars("reason", NAME),),
                          '"(%s)", REC->reason'),
}  # fmt: skip
_FIXED["idle_exit"] = _FIXED["idle_entry"]

# a marker: ftrace's print event (what a write to trace_marker makes), id 5 as the kernel's
PRINT = EventType("ftrace", "print", 5, (
    Field("unsigned long", "ip", 8, False, "Q"), Field("char", "buf[]", 0, False, "*"),
), '"%ps: %s", (void *)REC->ip, REC->buf')  # fmt: skip
_FIRST_VECTOR_ID = 200


def _c(text: str, n: int) -> bytes:
    return text.encode()[: n - 1]  # struct pads with NULs


def _vector(name: str) -> str:
    """A vector's name as a tracepoint name (irq_vectors: local_timer …)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name) or "vector"


class Catalogue:
    """The event types and symbols a file needs, made as events come."""

    def __init__(self) -> None:
        self.types: dict[str, EventType] = {}
        self.symbols: dict[str, int] = {MARKER_SYMBOL: SYMBOL_BASE}

    def symbol(self, name: str) -> int:
        if not name:
            return 0
        if name not in self.symbols:
            self.symbols[name] = SYMBOL_BASE + 0x100 * len(self.symbols)
        return self.symbols[name]

    def _type(self, key: str, make: EventType) -> EventType:
        return self.types.setdefault(key, make)

    def _vector_type(self, e: TraceEvent) -> EventType:
        suffix = "entry" if e.kind == "vec_entry" else "exit"
        name = f"{_vector(e.name)}_{suffix}"
        if name not in self.types:
            n = sum(1 for t in self.types.values() if t.system == "irq_vectors")
            self.types[name] = EventType("irq_vectors", name, _FIRST_VECTOR_ID + n,
                                         (_i("vector"),), '"vector=%d", REC->vector')  # fmt: skip
        return self.types[name]

    def record(self, e: TraceEvent, now: int) -> bytes:
        """The event's record; now: its hrtimer's `now` as written (ns)."""
        pid, k = e.cur, e.kind
        if k in ("vec_entry", "vec_exit"):
            return self._vector_type(e).record(pid, [e.num])
        t = self._type(k, _FIXED[k])
        values: list[object]
        if k == "switch":
            values = [_c(e.name, COMM), e.pid, e.prio, e.state, _c(e.name2, COMM), e.pid2, e.prio2]
        elif k in ("waking", "wakeup"):
            values = [_c(e.name, COMM), e.pid, e.prio, e.num]
        elif k == "irq_entry":
            values = [e.num, _c(e.name, NAME)]
        elif k == "irq_exit":
            values = [e.num, 1]
        elif k.startswith("softirq"):
            values = [max(e.num, 0)]
        elif k == "timer_entry":
            values = [0, now, self.symbol(e.name)]
        elif k == "timer_exit":
            values = [0]
        elif k == "idle_entry":
            values = [max(e.num, 0), e.cpu]
        elif k == "idle_exit":
            values = [_IDLE_EXIT, e.cpu]
        elif k in ("work_start", "work_end"):
            values = [0, self.symbol(e.name)]
        elif k == "ipi_send":
            values = [max(e.num, 0), 0, self.symbol(e.name)]
        else:  # ipi_entry, ipi_exit
            values = [_c(e.name, NAME)]
        return t.record(pid, values)

    def marker(self, pid: int, text: str) -> bytes:
        """A print event; its text cut at MARKER_MAX bytes (a record fits a page)."""
        self._type("print", PRINT)
        buf = text.encode()[:MARKER_MAX].decode(errors="ignore").encode() + b"\0"
        return PRINT.record(pid, [self.symbols[MARKER_SYMBOL], buf])

    def kallsyms(self) -> str:
        return "".join(f"{a:016x} t {n}\n" for n, a in sorted(self.symbols.items(),
                                                              key=lambda s: s[1]))  # fmt: skip

    def ftrace_types(self) -> list[EventType]:
        return [t for t in self.types.values() if t.system == "ftrace"]

    def event_types(self) -> list[EventType]:
        return [t for t in self.types.values() if t.system != "ftrace"]
