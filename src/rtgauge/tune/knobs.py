"""What `rtgauge tune` may change: one candidate per knob, read from the live
system (or a fake tree in tests). A knob answers an audit finding with a
setting that can be applied at run time and undone exactly: every Change
names the value before, which is what restoring writes back.

Never touched: RT throttling, CPU 0's part in running the system (no knob
leaves CPU 0 out of anything or takes it offline), anything persistent."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rtgauge.audit.cpus import format_list, format_mask, parse_list, parse_mask
from rtgauge.audit.linux_memory import chosen
from rtgauge.errors import UsageError
from rtgauge.tune.tree import Tree

KNOBS = (
    "irq-affinity",
    "irq-default-affinity",
    "workqueue-mask",
    "kthread-mask",
    "timer-migration",
    "watchdogs",
    "thp",
    "numa-balancing",
    "idle-states",
    "cpufreq",
    "cpu-isolation",
    # last: applied together with the shield, a CPU taken offline after the
    # shield is made leaves it to the kernel, and is back before it goes
    "smt-siblings",
)
STATES = ("try", "already", "absent", "boot-only", "excluded")
SHIELD = "rtgauge-shield"
DEFAULT_BUDGET_US = 100.0  # the audit's default budget (DEFAULT_BUDGET_NS)


@dataclass(frozen=True)
class Change:
    path: str  # the file written, or a pseudo-path: "cpuset:<dir>", "cpuset-task:<id>",
    # "pid-affinity:<pid>", "hold:<device>"
    old: str  # the value before: exactly what restoring writes back
    new: str  # the value applied

    def command(self) -> str:
        """The shell line a person would type to apply it."""
        kind, _, rest = self.path.partition(":")
        if kind == "cpuset":
            cpus, mems = _cpuset_values(self.new)
            d = shlex.quote(rest)
            return f"mkdir {d} && echo {cpus} > {d}/cpuset.cpus && echo {mems} > {d}/cpuset.mems"
        if kind == "cpuset-task":
            return f"echo {rest} > {shlex.quote(self.new)}"
        if kind == "pid-affinity":
            return f"taskset -pc {self.new} {rest}"
        if kind == "hold":
            return (
                f"exec 3> {shlex.quote(rest)}; printf '\\000\\000\\000\\000' >&3  "
                "# held while fd 3 stays open"
            )
        return f"echo {shlex.quote(self.new)} > {shlex.quote(self.path)}"


def _cpuset_values(text: str) -> tuple[str, str]:
    """ "cpus=0 mems=0" -> ("0", "0")."""
    fields = dict(part.partition("=")[::2] for part in text.split())
    return fields.get("cpus", ""), fields.get("mems", "")


@dataclass(frozen=True)
class Candidate:
    knob: str
    finding: str
    title: str
    state: str  # one of STATES
    why: str
    changes: tuple[Change, ...]  # non-empty only for "try"
    boot: str | None
    persistent: str | None  # a sysctl.d line, or shell lines for a oneshot unit


@dataclass(frozen=True)
class _Ctx:
    t: Tree
    cpus: frozenset[int]
    online: frozenset[int]
    movable: frozenset[int] | None
    budget_us: float

    @property
    def text(self) -> str:
        return format_list(set(self.cpus))

    @property
    def hk(self) -> set[int]:
        """The housekeeping CPUs: online and not measured."""
        return set(self.online - self.cpus)

    @property
    def hk_text(self) -> str:
        return format_list(self.hk)

    def needs_others(self, what: str) -> str | None:
        """Why a knob that moves work off the measured CPUs cannot, or None."""
        if 0 in self.cpus:
            return (
                f"CPU 0 is among the measured CPUs ({self.text}): moving {what} off them would "
                "leave CPU 0 out, and CPU 0 runs the system"
            )
        return None


def candidates(
    cpus: frozenset[int],
    *,
    movable: frozenset[int] | None = None,
    root: Path = Path("/"),
    budget_us: float = DEFAULT_BUDGET_US,
) -> list[Candidate]:
    """One Candidate per knob id, in KNOBS' order, read from the live system
    under `root`. movable=None: the shield and the kthread knob may move every
    movable task; a set of PIDs: only those processes' threads, and
    kthread-mask is "excluded"."""
    t = Tree(root)
    online = frozenset(parse_list(t.read("/sys/devices/system/cpu/online")) or {0})
    if not cpus:
        raise UsageError("no CPU to measure: --cpus names none")
    missing = cpus - online
    if missing:
        raise UsageError(
            f"CPU {format_list(set(missing))} is not online (online: {format_list(set(online))})"
        )
    if movable is not None:
        gone = sorted(p for p in movable if not t.p(f"/proc/{p}").is_dir())
        if gone:
            raise UsageError(f"--movable: no process {', '.join(map(str, gone))}")
    ctx = _Ctx(t, cpus, online, movable, budget_us)
    return [_READERS[k](ctx) for k in KNOBS]


def _cand(
    ctx: _Ctx,
    knob: str,
    title: str,
    state: str,
    why: str,
    changes: list[Change] | None = None,
    boot: str | None = None,
    persistent: str | None = None,
) -> Candidate:
    """Every knob answers the audit finding of the same id."""
    return Candidate(
        knob,
        knob,
        title,
        state,
        why,
        tuple(changes or ()) if state == "try" else (),
        boot,
        persistent,
    )


def _shell(changes: list[Change]) -> str:
    return "\n".join(c.command() for c in changes)


# ---- device IRQs ----
def _irq_affinity(ctx: _Ctx) -> Candidate:
    t, title = ctx.t, f"device IRQs off CPU {ctx.text}"
    boot = f"irqaffinity={ctx.hk_text}" if ctx.hk else None
    irqs = sorted(int(d.name) for d in t.entries("/proc/irq") if d.name.isdigit())
    if not irqs:
        return _cand(ctx, "irq-affinity", title, "absent", "/proc/irq lists no device IRQ")
    landing: list[tuple[int, str, set[int]]] = []
    for n in irqs:
        aff = parse_list(t.read(f"/proc/irq/{n}/smp_affinity_list"))
        if aff is not None and aff & ctx.cpus:
            landing.append((n, _irq_name(t, n), aff))
    if not landing:
        return _cand(
            ctx,
            "irq-affinity",
            title,
            "already",
            "no device IRQ may land on the measured CPUs",
            boot=boot,
        )
    if why := ctx.needs_others("device IRQs"):
        return _cand(ctx, "irq-affinity", title, "excluded", why, boot=boot)
    changes, fixed = [], []
    for n, name, aff in landing:
        path = t.p(f"/proc/irq/{n}/smp_affinity_list")
        if not t.writable(path):
            fixed.append(f"{n} {name}")
            continue
        changes.append(Change(str(path), format_list(aff), ctx.hk_text))
    named = ", ".join(f"{n} {name}" for n, name, _ in landing[:4])
    more = f" and {len(landing) - 4} more" if len(landing) > 4 else ""
    skipped = (
        f"; skipped IRQ {', '.join(fixed)}: the kernel fixes its affinity (a managed or "
        "per-CPU IRQ, its smp_affinity_list read-only)"
        if fixed
        else ""
    )
    if fixed:
        boot = f"{boot} isolcpus=managed_irq,{ctx.text}" if boot else None
    if not changes:
        return _cand(
            ctx,
            "irq-affinity",
            title,
            "excluded",
            f"IRQ {named}{more} may land on CPU {ctx.text}{skipped}",
            boot=boot,
        )
    return _cand(
        ctx,
        "irq-affinity",
        title,
        "try",
        f"IRQ {named}{more} may land on CPU {ctx.text}{skipped}",
        changes,
        boot,
        _shell(changes),
    )


def _irq_name(t: Tree, n: int) -> str:
    names = [d.name for d in t.entries(f"/proc/irq/{n}") if d.is_dir()]
    return ",".join(sorted(names)) or "(no handler)"


def _mask_knob(ctx: _Ctx, knob: str, title: str, rel: str, what: str, boot: str) -> Candidate:
    """A hexadecimal CPU mask the kernel keeps for later work: measured CPUs out."""
    raw = ctx.t.read(rel)
    cpus = parse_mask(raw)
    if raw is None or cpus is None:
        return _cand(ctx, knob, title, "absent", f"{rel} is not there (or not readable)")
    if not cpus & ctx.cpus:
        return _cand(
            ctx, knob, title, "already", f"{rel} ({raw}) leaves out CPU {ctx.text}", boot=boot
        )
    if why := ctx.needs_others(what):
        return _cand(ctx, knob, title, "excluded", why, boot=boot)
    change = Change(str(ctx.t.p(rel)), raw, format_mask(ctx.hk))
    return _cand(
        ctx,
        knob,
        title,
        "try",
        f"{rel} ({raw}) lets {what} run on CPU {ctx.text}",
        [change],
        boot,
        change.command(),
    )


def _irq_default(ctx: _Ctx) -> Candidate:
    return _mask_knob(
        ctx,
        "irq-default-affinity",
        f"new IRQs off CPU {ctx.text}",
        "/proc/irq/default_smp_affinity",
        "new IRQs",
        f"irqaffinity={ctx.hk_text}",
    )


def _workqueue(ctx: _Ctx) -> Candidate:
    return _mask_knob(
        ctx,
        "workqueue-mask",
        f"unbound workqueues off CPU {ctx.text}",
        "/sys/devices/virtual/workqueue/cpumask",
        "unbound workqueue items",
        f"workqueue.unbound_cpus={ctx.hk_text}",
    )


# ---- kernel threads ----
PF_KTHREAD = 0x00200000
PF_NO_SETAFFINITY = 0x04000000


def _kthreads(ctx: _Ctx) -> Candidate:
    knob, t = "kthread-mask", ctx.t
    title = f"kernel threads off CPU {ctx.text}"
    boot = f"kthread_cpus={ctx.hk_text}" if ctx.hk else None
    if ctx.movable is not None:
        return _cand(
            ctx,
            knob,
            title,
            "excluded",
            "--movable names the processes that may be moved: kernel threads are not among them",
            boot=boot,
        )
    found: list[tuple[int, str, set[int]]] = []
    for pid in t.pids():
        flags = t.stat_flags(pid)
        if flags is None or not flags & PF_KTHREAD or flags & PF_NO_SETAFFINITY:
            continue
        allowed = parse_list(t.status_field(pid, "Cpus_allowed_list"))
        if allowed and allowed & ctx.cpus:
            found.append((pid, t.comm(pid), allowed))
    if not found:
        return _cand(
            ctx,
            knob,
            title,
            "already" if t.stat_flags(2) is not None else "absent",
            "no movable kernel thread may run on the measured CPUs",
            boot=boot,
        )
    if why := ctx.needs_others("kernel threads"):
        return _cand(ctx, knob, title, "excluded", why, boot=boot)
    changes = [Change(f"pid-affinity:{p}", format_list(a), ctx.hk_text) for p, _, a in found]
    names = ", ".join(f"{c} ({p})" for p, c, _ in found[:4])
    more = f" and {len(found) - 4} more" if len(found) > 4 else ""
    hk = ctx.hk_text
    return _cand(
        ctx,
        knob,
        title,
        "try",
        f"{len(found)} kernel threads not bound to a CPU may run on CPU {ctx.text}: {names}{more}",
        changes,
        boot,
        f"for p in 2 $(pgrep -P 2); do taskset -pc {hk} $p; done >/dev/null 2>&1 || true",
    )


# ---- sysctls ----
def _sysctl_knob(
    ctx: _Ctx, knob: str, title: str, name: str, want: str, why: str, boot: str | None
) -> Candidate:
    rel = f"/proc/sys/kernel/{name}"
    v = ctx.t.read(rel)
    if v is None:
        return _cand(ctx, knob, title, "absent", f"{rel} is not there (not built in)")
    if v == want:
        return _cand(ctx, knob, title, "already", f"{rel} is {v}", boot=boot)
    return _cand(
        ctx,
        knob,
        title,
        "try",
        f"{rel} is {v}: {why}",
        [Change(str(ctx.t.p(rel)), v, want)],
        boot,
        f"kernel.{name} = {want}",
    )


def _timer_migration(ctx: _Ctx) -> Candidate:
    return _sysctl_knob(
        ctx,
        "timer-migration",
        "timers stay where armed",
        "timer_migration",
        "0",
        "timers of idle CPUs migrate to busy ones, the measured CPUs among them",
        None,
    )


def _numa(ctx: _Ctx) -> Candidate:
    return _sysctl_knob(
        ctx,
        "numa-balancing",
        "NUMA balancing off",
        "numa_balancing",
        "0",
        "the kernel scans tasks' memory and faults pages to move them",
        "numa_balancing=disable",
    )


def _watchdogs(ctx: _Ctx) -> Candidate:
    knob, t = "watchdogs", ctx.t
    title = f"lockup watchdogs off CPU {ctx.text}"
    rel = "/proc/sys/kernel/watchdog_cpumask"
    raw = t.read(rel)
    if raw is None:
        return _cand(ctx, knob, title, "absent", f"{rel} is not there (no lockup detector)")
    on = t.read("/proc/sys/kernel/watchdog") != "0"
    active = on and any(
        t.read(f"/proc/sys/kernel/{k}") not in (None, "0")
        for k in ("nmi_watchdog", "soft_watchdog")
    )
    mask = parse_list(raw)
    boot = "nowatchdog"
    if not active:
        return _cand(ctx, knob, title, "already", "the lockup watchdogs are off", boot=boot)
    if mask is not None and not mask & ctx.cpus:
        return _cand(
            ctx, knob, title, "already", f"{rel} ({raw}) leaves out CPU {ctx.text}", boot=boot
        )
    if why := ctx.needs_others("the watchdogs"):
        return _cand(ctx, knob, title, "excluded", why, boot=boot)
    change = Change(str(t.p(rel)), raw, ctx.hk_text)
    return _cand(
        ctx,
        knob,
        title,
        "try",
        f"{rel} ({raw}): the lockup watchdogs run on CPU {ctx.text}",
        [change],
        boot,
        f"kernel.watchdog_cpumask = {ctx.hk_text}",
    )


# ---- memory ----
THP = "/sys/kernel/mm/transparent_hugepage"


def _thp(ctx: _Ctx) -> Candidate:
    knob, t, title = "thp", ctx.t, "transparent hugepages never"
    boot = "transparent_hugepage=never"
    now = {name: chosen(t.read(f"{THP}/{name}")) for name in ("enabled", "defrag")}
    if now["enabled"] is None:
        return _cand(ctx, knob, title, "absent", f"{THP} is not there (no THP)")
    changes = [
        Change(str(t.p(f"{THP}/{name}")), v, "never")
        for name, v in now.items()
        if v is not None and v != "never"
    ]
    shown = ", ".join(f"{name} [{v}]" for name, v in now.items() if v is not None)
    if not changes:
        return _cand(ctx, knob, title, "already", f"THP {shown}", boot=boot)
    return _cand(
        ctx,
        knob,
        title,
        "try",
        f"THP {shown}: faults may compact memory and khugepaged collapses pages",
        changes,
        boot,
        _shell(changes),
    )


# ---- CPUs ----
SYS_CPU = "/sys/devices/system/cpu"
DMA_LATENCY = "/dev/cpu_dma_latency"


def _idle(ctx: _Ctx) -> Candidate:
    knob, t = "idle-states", ctx.t
    title = f"no deep idle states on CPU {ctx.text}"
    boot = "processor.max_cstate=1 intel_idle.max_cstate=1"
    deep: list[tuple[int, int, str, float]] = []
    listed = False
    for c in sorted(ctx.cpus):
        for d in t.entries(f"{SYS_CPU}/cpu{c}/cpuidle"):
            if not d.name.startswith("state") or not d.name[5:].isdigit():
                continue
            listed = True
            latency = t.read(str(d.relative_to(t.root) / "latency"))
            disabled = t.read(str(d.relative_to(t.root) / "disable"))
            if latency and latency.isdigit() and int(latency) > 0 and disabled != "1":
                name = t.read(str(d.relative_to(t.root) / "name")) or d.name
                deep.append((c, int(d.name[5:]), name, float(latency)))
    if not listed:
        return _cand(ctx, knob, title, "absent", "no idle states listed (no cpuidle driver)")
    if not deep:
        return _cand(
            ctx, knob, title, "already", "only polling is enabled on the measured CPUs", boot=boot
        )
    changes: list[Change] = []
    if t.p(DMA_LATENCY).exists():
        changes.append(Change(f"hold:{t.p(DMA_LATENCY)}", "not held", "0"))
    over = [s for s in deep if s[3] > ctx.budget_us / 10]
    changes += [
        Change(str(t.p(f"{SYS_CPU}/cpu{c}/cpuidle/state{k}/disable")), "0", "1")
        for c, k, _, _ in over
    ]
    worst = max(deep, key=lambda s: s[3])
    why = (
        f"CPU {worst[0]} may enter {worst[2]} (exit latency {worst[3]:g} µs); holding "
        f"{DMA_LATENCY} open at 0 keeps the CPUs polling (closing it undoes that, and the "
        "kernel closes it when the process dies)"
        + (f", and {len(over)} states over a tenth of the budget are disabled" if over else "")
    )
    disables = [c for c in changes if not c.path.startswith("hold:")]
    return _cand(ctx, knob, title, "try", why, changes, boot, _shell(disables) or None)


def _cpufreq(ctx: _Ctx) -> Candidate:
    knob, t, title = "cpufreq", ctx.t, f"governor performance on CPU {ctx.text}"
    boot = "cpufreq.default_governor=performance"
    changes: list[Change] = []
    seen = False
    for c in sorted(ctx.cpus):
        rel = f"{SYS_CPU}/cpu{c}/cpufreq/scaling_governor"
        g = t.read(rel)
        if g is None:
            continue
        seen = True
        offered = (t.read(f"{SYS_CPU}/cpu{c}/cpufreq/scaling_available_governors") or "").split()
        if g != "performance":
            if offered and "performance" not in offered:
                return _cand(
                    ctx,
                    knob,
                    title,
                    "absent",
                    f"CPU {c}'s cpufreq driver offers no performance governor",
                )
            changes.append(Change(str(t.p(rel)), g, "performance"))
    if not seen:
        return _cand(ctx, knob, title, "absent", "no cpufreq driver: the frequency is not scaled")
    if not changes:
        return _cand(ctx, knob, title, "already", "governor performance", boot=boot)
    names = ", ".join(sorted({c.old for c in changes}))
    return _cand(
        ctx,
        knob,
        title,
        "try",
        f"governor {names}: the clock follows the load",
        changes,
        boot,
        _shell(changes),
    )


def _smt(ctx: _Ctx) -> Candidate:
    knob, t = "smt-siblings", ctx.t
    title = f"SMT siblings of CPU {ctx.text} offline"
    control = t.read(f"{SYS_CPU}/smt/control")
    boot = "nosmt"
    if control in (None, "notsupported", "notimplemented"):
        return _cand(ctx, knob, title, "absent", f"no SMT ({SYS_CPU}/smt/control: {control})")
    siblings: set[int] = set()
    for c in ctx.cpus:
        siblings |= parse_list(t.read(f"{SYS_CPU}/cpu{c}/topology/thread_siblings_list")) or set()
    others = siblings - ctx.cpus
    if not others:
        return _cand(
            ctx, knob, title, "already", "no measured CPU shares its core with another", boot=boot
        )
    if 0 in others:
        return _cand(
            ctx,
            knob,
            title,
            "excluded",
            f"CPU 0 is a sibling of CPU {ctx.text}: CPU 0 is never taken offline",
            boot=boot,
        )
    if held := _v1_cpusets_with(t, others):
        return _cand(
            ctx,
            knob,
            title,
            "excluded",
            f"cpuset {held} holds CPU {format_list(others)}: on cgroup v1 a CPU taken offline "
            "leaves every cpuset for good, and onlining it does not put it back",
            boot=boot,
        )
    changes = [Change(str(t.p(f"{SYS_CPU}/cpu{c}/online")), "1", "0") for c in sorted(others)]
    return _cand(
        ctx,
        knob,
        title,
        "try",
        f"CPU {format_list(others)} share cores with the measured CPUs",
        changes,
        boot,
        _shell(changes),
    )


def _v1_cpusets_with(t: Tree, cpus: set[int]) -> str | None:
    """A cgroup v1 cpuset below the root that names one of these CPUs."""
    where = t.cpuset_root()
    if where is None or where[1]:
        return None
    for d, _, names in os.walk(where[0]):
        if Path(d) != where[0] and "cpuset.cpus" in names:
            mine = parse_list(t.read(str(Path(d, "cpuset.cpus").relative_to(t.root))))
            if mine and mine & cpus:
                return d
    return None


# ---- the shield ----
def _isolation(ctx: _Ctx) -> Candidate:
    knob, t = "cpu-isolation", ctx.t
    title = f"a cpuset shield for CPU {ctx.text}"
    cpus = ctx.text
    boot = f"isolcpus=domain,managed_irq,{cpus} nohz_full={cpus} rcu_nocbs={cpus}"
    isolated = parse_list(t.read(f"{SYS_CPU}/isolated")) or set()
    if ctx.cpus <= isolated:
        return _cand(ctx, knob, title, "already", f"CPU {cpus} are isolated", boot=boot)
    if why := ctx.needs_others("every other task"):
        return _cand(ctx, knob, title, "excluded", why, boot=boot)
    where = t.cpuset_root()
    if where is None:
        return _cand(
            ctx,
            knob,
            title,
            "boot-only",
            "no cpuset controller is mounted: isolation is a kernel command-line setting here",
            boot=boot,
        )
    base, v2 = where
    shield = base / SHIELD
    if shield.exists():
        return _cand(
            ctx,
            knob,
            title,
            "excluded",
            f"{shield} exists already (another rtgauge tune?)",
            boot=boot,
        )
    mems = t.read(str(base.relative_to(t.root) / "cpuset.mems")) or "0"
    if v2:
        mems = t.read(str(base.relative_to(t.root) / "cpuset.mems.effective")) or mems
    changes = [Change(f"cpuset:{shield}", "absent", f"cpus={ctx.hk_text} mems={mems}")]
    tasks_file = "cgroup.procs" if v2 else "tasks"
    moved = 0
    for pid, tids in t.movable_tasks(ctx.movable):
        ids = [pid] if v2 else tids
        for i in ids:
            old = t.cpuset_of(i, pid, base, v2)
            if old is None:
                continue
            changes.append(
                Change(f"cpuset-task:{i}", str(old / tasks_file), str(shield / tasks_file))
            )
            moved += 1
    if not moved:
        return _cand(ctx, knob, title, "already", "no task that may be moved was found", boot=boot)
    what = "processes" if v2 else "threads"
    if v2:
        persistent = (
            f"systemctl set-property --runtime init.scope system.slice user.slice "
            f"AllowedCPUs={ctx.hk_text}"
        )
    else:
        persistent = (
            f"{changes[0].command()} && for t in $(cat {base}/tasks); do "
            f"echo $t > {shield}/tasks; done 2>/dev/null; true"
        )
    return _cand(
        ctx,
        knob,
        title,
        "try",
        f"{moved} {what} may run on CPU {cpus}; the shield {shield} keeps them on "
        f"CPU {ctx.hk_text}",
        changes,
        boot,
        persistent,
    )


_READERS: dict[str, Callable[[_Ctx], Candidate]] = {
    "irq-affinity": _irq_affinity,
    "irq-default-affinity": _irq_default,
    "workqueue-mask": _workqueue,
    "kthread-mask": _kthreads,
    "timer-migration": _timer_migration,
    "watchdogs": _watchdogs,
    "thp": _thp,
    "numa-balancing": _numa,
    "idle-states": _idle,
    "cpufreq": _cpufreq,
    "smt-siblings": _smt,
    "cpu-isolation": _isolation,
}
