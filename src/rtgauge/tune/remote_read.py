"""Reading an ssh target for `rtgauge tune`: one POSIX sh script copies the
files the knobs read into lines (its janitor first, so what a dead holder
left is put back before it is read), and those lines become a local tree
the knobs read unchanged. Their changes come back rooted there and are
mapped back to the target's own paths.

The script reads only what the knobs read: a few files per CPU and IRQ,
and per task its stat, comm, cgroup and Cpus_allowed_list, through grep
over many files at once (no process per file). Beyond MAX_TASKS tasks it
reads none and says so: `--movable` then names the ones to read."""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rtgauge.audit.cpus import parse_list
from rtgauge.targets.ssh_janitor import janitor_script
from rtgauge.tune.knobs import Candidate, Change

MAX_TASKS = 20000  # threads: the task files read stay a few MB at most
VERSION = "1"
SYS_CPU = "/sys/devices/system/cpu"
STATIC = (
    f"{SYS_CPU}/online",
    f"{SYS_CPU}/present",
    f"{SYS_CPU}/possible",
    f"{SYS_CPU}/isolated",
    f"{SYS_CPU}/smt/control",
    f"{SYS_CPU}/cpu[0-9]*/cpuidle/state[0-9]*/latency",
    f"{SYS_CPU}/cpu[0-9]*/cpuidle/state[0-9]*/disable",
    f"{SYS_CPU}/cpu[0-9]*/cpuidle/state[0-9]*/name",
    f"{SYS_CPU}/cpu[0-9]*/cpufreq/scaling_governor",
    f"{SYS_CPU}/cpu[0-9]*/cpufreq/scaling_available_governors",
    f"{SYS_CPU}/cpu[0-9]*/topology/thread_siblings_list",
    "/proc/irq/default_smp_affinity",
    "/proc/irq/[0-9]*/smp_affinity_list",
    "/sys/devices/virtual/workqueue/cpumask",
    "/proc/sys/kernel/timer_migration",
    "/proc/sys/kernel/numa_balancing",
    "/proc/sys/kernel/watchdog_cpumask",
    "/proc/sys/kernel/watchdog",
    "/proc/sys/kernel/nmi_watchdog",
    "/proc/sys/kernel/soft_watchdog",
    "/sys/kernel/mm/transparent_hugepage/enabled",
    "/sys/kernel/mm/transparent_hugepage/defrag",
    "/proc/mounts",
)

# The lines the script says, one kind per first word:
#   V version | U uid | M machine (uname -m) | W 1 (the state directory writable) or W 0
#   X path (exists) | R path (its owner may not write it) | D path (a directory)
#   A pid (the script's own ancestry: the ssh server that serves rtgauge)
#   T n (too many tasks: none read) | J/K the janitor's lines
#   F path, then |line ... (a file read line by line)
#   =grep, then path:line ... (files read by grep), until =end


def snapshot_script(
    state_dir: str, movable: frozenset[int] | None, check_state: bool, root: str = ""
) -> str:
    """The script; root (tests only: a fake tree, no space in it) is put
    before every path it reads, and is in every path it says."""
    pids = " ".join(map(str, sorted(movable))) if movable is not None else ""
    static = " ".join(f"$R{p}" for p in STATIC)
    return "\n".join(
        [
            "export LC_ALL=C",
            f"R={shlex.quote(root)}",
            janitor_script(state_dir),
            f"echo V {VERSION}",
            'echo "U $(id -u)"',
            'echo "M $(uname -m)"',
            (
                'if mkdir -p "$D" 2>/dev/null && [ -w "$D" ]; then echo W 1; else echo W 0; fi'
                if check_state
                else ":"
            ),
            # the ancestry: the ssh session and server this script runs under
            "p=$$",
            'while [ "$p" -gt 1 ] 2>/dev/null; do',
            ' echo "A $p"',
            " IFS= read -r l < $R/proc/$p/stat || break",
            " l=${l##*) }; set -- $l; p=$2",
            "done",
            "emit() {",
            ' if [ -f "$1" ]; then printf \'F %s\\n\' "$1"; '
            '{ while IFS= read -r l || [ -n "$l" ]; do printf \'|%s\\n\' "$l"; done; } '
            '2>/dev/null <"$1"; fi',
            "}",
            f"set -- {static}",
            'for f; do [ -e "$f" ] && printf \'X %s\\n\' "$f"; done',
            'find "$@" -prune ! -perm -200 -print 2>/dev/null | '
            "while IFS= read -r f; do printf 'R %s\\n' \"$f\"; done",
            '[ -e $R/dev/cpu_dma_latency ] && echo "X $R/dev/cpu_dma_latency"',
            'for d in $R/proc/irq/[0-9]*/*/; do [ -d "$d" ] && printf \'D %s\\n\' "${d%/}"; done',
            "v1=0",
            "while read -r dev mnt kind opts rest; do",
            " case $kind in",
            " cgroup2) for n in cgroup.subtree_control cpuset.mems cpuset.mems.effective; "
            'do emit "$R$mnt/$n"; done',
            '  [ -d "$R$mnt/rtgauge-shield" ] && printf \'D %s\\n\' "$R$mnt/rtgauge-shield" ;;',
            " cgroup) case ,$opts, in *,cpuset,*)",
            '  v1=1; emit "$R$mnt/cpuset.mems"',
            '  [ -d "$R$mnt/rtgauge-shield" ] && printf \'D %s\\n\' "$R$mnt/rtgauge-shield"',
            '  find "$R$mnt" -name cpuset.cpus 2>/dev/null | while IFS= read -r f; do emit "$f"; done',
            "  ;; esac ;;",
            " esac",
            "done < $R/proc/mounts",
            f"M='{pids}'",
            'if [ -n "$M" ]; then set --; for p in $M; do [ -d $R/proc/$p ] && set -- "$@" $R/proc/$p; '
            "done; else set -- $R/proc/[0-9]*; fi",
            "ps=$#; ts=0",
            'for p; do for t in "$p"/task/[0-9]*; do ts=$((ts+1)); done; done',
            f'if [ "$ts" -gt {MAX_TASKS} ]; then echo "T $ts"; set --; fi',
            'for p; do printf \'D %s\\n\' "$p" "$p"/task/[0-9]*; done',
            "echo =grep",
            "{",
            ' for p; do printf \'%s/stat\\n%s/comm\\n%s/cgroup\\n\' "$p" "$p" "$p"; done '
            "| xargs grep '' /dev/null",
            " printf '%s/status\\n' \"$@\" | xargs grep '^Cpus_allowed_list:' /dev/null",
            " if [ $v1 = 1 ]; then for p; do printf '%s/cgroup\\n' \"$p\"/task/[0-9]*; done "
            "| xargs grep '' /dev/null; fi",
            f" grep '' /dev/null {static}",
            "} 2>/dev/null",
            "echo =end",
        ]
    )


@dataclass
class Snapshot:
    uid: int | None = None
    arch: str | None = None  # uname -m: which static probe runs there
    state_writable: bool | None = None
    ancestors: set[int] = field(default_factory=set)
    too_many: int | None = None
    janitor: list[str] = field(default_factory=list)  # the janitor's J and K lines


_SAFE = re.compile(r"/[^\0\n]*")


def _local(root: Path, path: str) -> Path | None:
    """Where a target path goes under the root; None for anything that is
    not a plain absolute path (no way out of the root)."""
    if not _SAFE.fullmatch(path) or "/../" in f"{path}/" or "/./" in f"{path}/":
        return None
    return root / path.lstrip("/")


def parse_snapshot(
    lines: Iterable[str], root: Path, movable: frozenset[int] | None, prefix: str = ""
) -> Snapshot:
    """Builds the tree under root from the script's lines (prefix: the
    script's root, taken off its paths). The ancestors' /proc entries are
    left out when every task may be moved: the ssh server that serves
    rtgauge stays where it is, as rtgauge itself does locally."""
    snap = Snapshot()

    def target(path: str) -> str:
        return path[len(prefix) :] if prefix and path.startswith(prefix) else path

    contents: dict[str, list[str]] = {}
    exists: set[str] = set()
    dirs: set[str] = set()
    read_only: set[str] = set()
    current: list[str] | None = None
    in_grep = False
    for line in lines:
        if in_grep:
            if line == "=end":
                in_grep = False
                continue
            path, colon, text = line.partition(":")
            if colon and path.startswith("/"):
                contents.setdefault(target(path), []).append(text)
            continue
        if current is not None and line.startswith("|"):
            current.append(line[1:])
            continue
        current = None
        word, _, rest = line.partition(" ")
        if word == "=grep":
            in_grep = True
        elif word == "F":
            current = contents.setdefault(target(rest), [])
        elif word == "X":
            exists.add(target(rest))
        elif word == "D":
            dirs.add(target(rest))
        elif word == "R":
            read_only.add(target(rest))
        elif word == "A" and rest.isdigit():
            snap.ancestors.add(int(rest))
        elif word == "M" and rest:
            snap.arch = rest
        elif word == "U" and rest.isdigit():
            snap.uid = int(rest)
        elif word == "W":
            snap.state_writable = rest == "1"
        elif word == "T" and rest.isdigit():
            snap.too_many = int(rest)
        elif word in ("J", "K"):
            snap.janitor.append(line)
    left_out = (
        {f"/proc/{p}" for p in snap.ancestors} if movable is None else set()  # the server's tasks
    )

    def kept(path: str) -> Path | None:
        parts = path.split("/")
        if len(parts) > 2 and "/".join(parts[:3]) in left_out:
            return None
        return _local(root, path)

    for d in dirs:
        if (p := kept(d)) is not None:
            p.mkdir(parents=True, exist_ok=True)
    for path in exists | set(contents):
        p = kept(path)
        if p is None:
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        got = contents.get(path)
        p.write_text("".join(f"{x}\n" for x in got) if got else "")
        p.chmod(0o444 if path in read_only else 0o644)
    return snap


def cpu_count(root: Path) -> int:
    """The target's CPUs, as os.cpu_count() counts them here: its highest
    present (else possible, else online) CPU, plus one."""
    for name in ("present", "possible", "online"):
        try:
            cpus = parse_list((root / SYS_CPU.lstrip("/") / name).read_text().strip())
        except OSError:
            continue
        if cpus:
            return max(cpus) + 1
    return 1


def _unroot(text: str, root: str) -> str:
    """The target's path for one under the local root."""
    return text.replace(root, "") if root != "/" else text


def to_target(cands: Sequence[Candidate], root: Path) -> list[Candidate]:
    """Every path a candidate names (its changes, its why, its persistent
    lines) as the target's own."""
    r = str(root)

    def change(c: Change) -> Change:
        return Change(_unroot(c.path, r), _unroot(c.old, r), _unroot(c.new, r))

    return [
        dataclasses.replace(
            c,
            why=_unroot(c.why, r),
            changes=tuple(change(ch) for ch in c.changes),
            persistent=None if c.persistent is None else _unroot(c.persistent, r),
        )
        for c in cands
    ]
