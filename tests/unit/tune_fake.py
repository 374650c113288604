"""A fake /proc and /sys for the tune knobs: four CPUs in two cores, every
knob in the state a fresh distribution leaves it (all "try"), each piece
overridable by writing its file again."""

from __future__ import annotations

from pathlib import Path

KTHREAD = 0x00208040  # PF_KTHREAD set
PERCPU_KTHREAD = 0x04208040  # PF_KTHREAD | PF_NO_SETAFFINITY
USER = 0x00400100


def put(root: Path, path: str, text: str, mode: int | None = None) -> Path:
    p = root / path.lstrip("/")
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    if mode is not None:
        p.chmod(mode)
    return p


def read(root: Path, path: str) -> str:
    return (root / path.lstrip("/")).read_text().strip()


def task(
    root: Path, pid: int, comm: str, flags: int, allowed: str, tids: tuple[int, ...] = ()
) -> None:
    put(root, f"/proc/{pid}/stat", f"{pid} ({comm}) S 2 0 0 0 -1 {flags} 0 0 0\n")
    put(root, f"/proc/{pid}/comm", comm + "\n")
    put(root, f"/proc/{pid}/status", f"Name:\t{comm}\nCpus_allowed_list:\t{allowed}\n")
    put(root, f"/proc/{pid}/cgroup", "3:cpuset:/\n0::/\n")
    for tid in tids or (pid,):
        put(root, f"/proc/{pid}/task/{tid}/cgroup", "3:cpuset:/\n0::/\n")


def fake_system(root: Path) -> Path:
    cpu = "/sys/devices/system/cpu"
    put(root, f"{cpu}/online", "0-3\n")
    put(root, f"{cpu}/isolated", "\n")
    put(root, f"{cpu}/smt/control", "on\n")
    for c in range(4):
        put(root, f"{cpu}/cpu{c}/topology/thread_siblings_list", f"{c % 2},{c % 2 + 2}\n")
        put(root, f"{cpu}/cpu{c}/online", "1\n")
        for k, (name, latency) in enumerate((("POLL", 0), ("C1", 2), ("C6", 100))):
            put(root, f"{cpu}/cpu{c}/cpuidle/state{k}/name", name + "\n")
            put(root, f"{cpu}/cpu{c}/cpuidle/state{k}/latency", f"{latency}\n")
            put(root, f"{cpu}/cpu{c}/cpuidle/state{k}/disable", "0\n")
        put(root, f"{cpu}/cpu{c}/cpufreq/scaling_governor", "schedutil\n")
        put(root, f"{cpu}/cpu{c}/cpufreq/scaling_available_governors", "performance schedutil\n")
    put(root, "/dev/cpu_dma_latency", "")
    for n, name, aff in ((24, "acpi", "0-3"), (30, "eth0", "1"), (31, "timer", "0")):
        put(root, f"/proc/irq/{n}/smp_affinity_list", aff + "\n")
        (root / f"proc/irq/{n}/{name}").mkdir()
    put(root, "/proc/irq/40/smp_affinity_list", "0-3\n", mode=0o444)  # a managed IRQ
    (root / "proc/irq/40/nvme0q1").mkdir()
    put(root, "/proc/irq/default_smp_affinity", "f\n")
    put(root, "/sys/devices/virtual/workqueue/cpumask", "f\n")
    for name, value in (
        ("timer_migration", "1"),
        ("numa_balancing", "1"),
        ("watchdog", "1"),
        ("nmi_watchdog", "0"),
        ("soft_watchdog", "1"),
        ("watchdog_cpumask", "0-3"),
    ):
        put(root, f"/proc/sys/kernel/{name}", value + "\n")
    thp = "/sys/kernel/mm/transparent_hugepage"
    put(root, f"{thp}/enabled", "always [madvise] never\n")
    put(root, f"{thp}/defrag", "[always] defer defer+madvise madvise never\n")
    task(root, 2, "kthreadd", KTHREAD, "0-3")
    task(root, 11, "ksoftirqd/1", PERCPU_KTHREAD, "1")
    task(root, 12, "rcu_preempt", KTHREAD, "0-3")
    task(root, 100, "daemon", USER, "0-3", (100, 101))
    task(root, 200, "editor", USER, "0-3")
    cg = "/sys/fs/cgroup/cpuset"
    put(root, "/proc/mounts", f"cgroup {cg} cgroup rw,relatime,cpuset 0 0\n")
    put(root, f"{cg}/cpuset.cpus", "0-3\n")
    put(root, f"{cg}/cpuset.mems", "0\n")
    put(root, f"{cg}/tasks", "")
    return root
