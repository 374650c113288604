"""The tune knobs read from a fake /proc and /sys: every knob's states and
the changes it would make, CPU 0 never left out, --movable honoured."""

from __future__ import annotations

from pathlib import Path

import pytest
from tune_fake import USER, fake_system, put, task

from rtgauge.errors import UsageError
from rtgauge.tune.knobs import KNOBS, STATES, Candidate, Change, candidates

CG = "/sys/fs/cgroup/cpuset"


def by_knob(root: Path, cpus: set[int], movable: set[int] | None = None) -> dict[str, Candidate]:
    found = candidates(
        frozenset(cpus), movable=None if movable is None else frozenset(movable), root=root
    )
    assert [c.knob for c in found] == list(KNOBS)
    for c in found:
        assert c.state in STATES and c.why
        assert bool(c.changes) == (c.state == "try"), c
    return {c.knob: c for c in found}


def paths(c: Candidate, root: Path) -> dict[str, tuple[str, str]]:
    """Each change by its path with the fake root taken off."""
    out = {}
    for ch in c.changes:
        kind, colon, rest = ch.path.partition(":")
        shown = f"{kind}:{rest.replace(str(root), '')}" if colon else ch.path.replace(str(root), "")
        out[shown] = (ch.old.replace(str(root), ""), ch.new.replace(str(root), ""))
    return out


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return fake_system(tmp_path)


def test_a_fresh_system_offers_every_knob_with_its_changes(root: Path) -> None:
    k = by_knob(root, {1})
    assert {n for n, c in k.items() if c.state == "try"} == set(KNOBS)
    assert paths(k["irq-affinity"], root) == {
        "/proc/irq/24/smp_affinity_list": ("0-3", "0,2-3"),
        "/proc/irq/30/smp_affinity_list": ("1", "0,2-3"),
    }
    assert "IRQ 40 nvme0q1" in k["irq-affinity"].why and "read-only" in k["irq-affinity"].why
    assert k["irq-affinity"].boot == "irqaffinity=0,2-3 isolcpus=managed_irq,1"
    assert paths(k["irq-default-affinity"], root) == {"/proc/irq/default_smp_affinity": ("f", "d")}
    assert paths(k["workqueue-mask"], root) == {
        "/sys/devices/virtual/workqueue/cpumask": ("f", "d")
    }
    # kthreadd and the unbound kernel thread; never ksoftirqd/1 (bound to its CPU)
    assert paths(k["kthread-mask"], root) == {
        "pid-affinity:2": ("0-3", "0,2-3"),
        "pid-affinity:12": ("0-3", "0,2-3"),
    }
    assert paths(k["timer-migration"], root) == {"/proc/sys/kernel/timer_migration": ("1", "0")}
    assert k["timer-migration"].persistent == "kernel.timer_migration = 0"
    assert paths(k["watchdogs"], root) == {"/proc/sys/kernel/watchdog_cpumask": ("0-3", "0,2-3")}
    assert paths(k["numa-balancing"], root) == {"/proc/sys/kernel/numa_balancing": ("1", "0")}
    thp = "/sys/kernel/mm/transparent_hugepage"
    assert paths(k["thp"], root) == {
        f"{thp}/enabled": ("madvise", "never"),
        f"{thp}/defrag": ("always", "never"),
    }
    # the hold, and the one state over a tenth of the 100 µs budget
    assert paths(k["idle-states"], root) == {
        "hold:/dev/cpu_dma_latency": ("not held", "0"),
        "/sys/devices/system/cpu/cpu1/cpuidle/state2/disable": ("0", "1"),
    }
    assert paths(k["cpufreq"], root) == {
        "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor": ("schedutil", "performance")
    }
    assert paths(k["smt-siblings"], root) == {"/sys/devices/system/cpu/cpu3/online": ("1", "0")}


def test_the_shield_moves_every_user_thread_but_no_kernel_thread(root: Path) -> None:
    c = by_knob(root, {1})["cpu-isolation"]
    assert c.boot == "isolcpus=domain,managed_irq,1 nohz_full=1 rcu_nocbs=1"
    assert paths(c, root) == {
        f"cpuset:{CG}/rtgauge-shield": ("absent", "cpus=0,2-3 mems=0"),
        **{
            f"cpuset-task:{t}": (f"{CG}/tasks", f"{CG}/rtgauge-shield/tasks")
            for t in (100, 101, 200)
        },
    }


def test_movable_pids_limit_the_shield_and_exclude_the_kernel_threads(root: Path) -> None:
    k = by_knob(root, {1}, movable={200})
    assert k["kthread-mask"].state == "excluded" and "--movable" in k["kthread-mask"].why
    assert set(paths(k["cpu-isolation"], root)) == {
        f"cpuset:{CG}/rtgauge-shield",
        "cpuset-task:200",
    }


def test_a_thread_in_another_cpuset_goes_back_there(root: Path) -> None:
    put(root, "/proc/200/task/200/cgroup", "3:cpuset:/app\n")
    c = by_knob(root, {1}, movable={200})["cpu-isolation"]
    assert paths(c, root)["cpuset-task:200"] == (f"{CG}/app/tasks", f"{CG}/rtgauge-shield/tasks")


def test_cpu_0_measured_excludes_what_would_leave_it_out(root: Path) -> None:
    k = by_knob(root, {0, 1})
    excluded = {n for n, c in k.items() if c.state == "excluded"}
    assert excluded == {
        "irq-affinity",
        "irq-default-affinity",
        "workqueue-mask",
        "kthread-mask",
        "watchdogs",
        "cpu-isolation",
    }
    assert all("CPU 0" in k[n].why for n in excluded)
    # the sibling of CPU 0 is CPU 2, of CPU 1 is CPU 3: never CPU 0 itself
    assert paths(k["smt-siblings"], root) == {
        "/sys/devices/system/cpu/cpu2/online": ("1", "0"),
        "/sys/devices/system/cpu/cpu3/online": ("1", "0"),
    }


def test_no_sibling_offline_while_a_v1_cpuset_names_it(root: Path) -> None:
    put(root, f"{CG}/docker/cpuset.cpus", "2-3\n")
    c = by_knob(root, {1})["smt-siblings"]
    assert c.state == "excluded" and "docker" in c.why and "for good" in c.why


def test_cpufreq_without_performance_is_absent(root: Path) -> None:
    put(root, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_available_governors", "schedutil\n")
    assert by_knob(root, {1})["cpufreq"].state == "absent"


def test_cpu_0_as_a_sibling_is_never_taken_offline(root: Path) -> None:
    c = by_knob(root, {2})["smt-siblings"]
    assert c.state == "excluded" and "CPU 0" in c.why


def test_settings_already_right_are_already(root: Path) -> None:
    for n in (24, 30):
        put(root, f"/proc/irq/{n}/smp_affinity_list", "0\n")
    put(root, "/proc/irq/40/smp_affinity_list", "0\n", mode=0o444)
    put(root, "/proc/irq/default_smp_affinity", "1\n")
    put(root, "/sys/devices/virtual/workqueue/cpumask", "5\n")
    task(root, 2, "kthreadd", 0x208040, "0")
    task(root, 12, "rcu_preempt", 0x208040, "0,2-3")
    put(root, "/proc/sys/kernel/timer_migration", "0\n")
    put(root, "/proc/sys/kernel/numa_balancing", "0\n")
    put(root, "/proc/sys/kernel/watchdog_cpumask", "0\n")
    for name in ("enabled", "defrag"):
        put(root, f"/sys/kernel/mm/transparent_hugepage/{name}", "always madvise [never]\n")
    for k in (1, 2):
        put(root, f"/sys/devices/system/cpu/cpu1/cpuidle/state{k}/disable", "1\n")
    put(root, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance\n")
    put(root, "/sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "1\n")
    put(root, "/sys/devices/system/cpu/isolated", "1\n")
    k = by_knob(root, {1})
    assert {n: c.state for n, c in k.items() if c.state != "already"} == {}
    assert k["thp"].boot == "transparent_hugepage=never"


def test_watchdogs_off_are_already(root: Path) -> None:
    put(root, "/proc/sys/kernel/watchdog", "0\n")
    assert by_knob(root, {1})["watchdogs"].state == "already"


def test_missing_settings_are_absent(tmp_path: Path) -> None:
    put(tmp_path, "/sys/devices/system/cpu/online", "0-1\n")
    k = by_knob(tmp_path, {1})
    states = {n: c.state for n, c in k.items()}
    assert states.pop("cpu-isolation") == "boot-only"  # no cpuset controller mounted
    assert set(states.values()) == {"absent"}
    assert k["cpu-isolation"].boot == "isolcpus=domain,managed_irq,1 nohz_full=1 rcu_nocbs=1"


def test_an_irq_the_kernel_manages_alone_is_excluded_with_why(root: Path) -> None:
    for n in (24, 30):
        put(root, f"/proc/irq/{n}/smp_affinity_list", "0\n")
    c = by_knob(root, {1})["irq-affinity"]
    assert c.state == "excluded" and "IRQ 40 nvme0q1" in c.why and "managed" in c.why


def test_cgroup_v2_moves_processes_into_a_cpuset_cgroup(root: Path) -> None:
    put(root, "/proc/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n")
    put(root, "/sys/fs/cgroup/cgroup.subtree_control", "cpu cpuset memory\n")
    put(root, "/sys/fs/cgroup/cpuset.mems.effective", "0\n")
    put(root, "/proc/200/cgroup", "0::/user.slice/x.scope\n")
    c = by_knob(root, {1}, movable={200})["cpu-isolation"]
    assert paths(c, root) == {
        "cpuset:/sys/fs/cgroup/rtgauge-shield": ("absent", "cpus=0,2-3 mems=0"),
        "cpuset-task:200": (
            "/sys/fs/cgroup/user.slice/x.scope/cgroup.procs",
            "/sys/fs/cgroup/rtgauge-shield/cgroup.procs",
        ),
    }


def test_cgroup_v2_without_the_cpuset_controller_is_boot_only(root: Path) -> None:
    put(root, "/proc/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n")
    put(root, "/sys/fs/cgroup/cgroup.subtree_control", "cpu memory\n")
    assert by_knob(root, {1})["cpu-isolation"].state == "boot-only"


def test_bad_cpus_and_pids_are_usage_errors(root: Path) -> None:
    with pytest.raises(UsageError, match="CPU 7 is not online"):
        candidates(frozenset({7}), root=root)
    with pytest.raises(UsageError, match="no process 4242"):
        candidates(frozenset({1}), movable=frozenset({4242}), root=root)


def test_user_processes_only_in_the_shield(root: Path) -> None:
    task(root, 300, "worker", USER | 0x00200000, "0-3")  # a kernel thread by its flags
    c = by_knob(root, {1})["cpu-isolation"]
    assert "cpuset-task:300" not in paths(c, root)


def test_commands_are_what_a_person_types() -> None:
    assert Change("/proc/irq/36/smp_affinity_list", "0-1", "0").command() == (
        "echo 0 > /proc/irq/36/smp_affinity_list"
    )
    assert Change("pid-affinity:2", "0-3", "0").command() == "taskset -pc 0 2"
    assert Change("cpuset-task:7", "/cg/tasks", "/cg/s/tasks").command() == "echo 7 > /cg/s/tasks"
    assert Change("cpuset:/cg/s", "absent", "cpus=0 mems=0").command() == (
        "mkdir /cg/s && echo 0 > /cg/s/cpuset.cpus && echo 0 > /cg/s/cpuset.mems"
    )
    assert "/dev/cpu_dma_latency" in Change("hold:/dev/cpu_dma_latency", "not held", "0").command()
