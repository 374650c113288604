"""Every Linux check of the audit fed its pass, warn and fail facts (and
where it has them, the facts that make it not applicable or unknown): each
is a pure function of the records, so a hand-made record decides it."""

from __future__ import annotations

from typing import Any

import pytest
from audit_records import Record, audit_of, finding, linux_end, linux_system

from rtgauge.audit.checks import LINUX


def a(s: Record) -> Record:
    return s["audit"]


def cpus(s: Record) -> list[Record]:
    return [a(s)["cpus"][c] for c in ("2", "3")]


def unisolated(s: Record) -> None:
    """A machine without isolation, measured on CPUs 2-3."""
    s["kernel"].update(isolcpus="", nohz_full="", cmdline="BOOT_IMAGE=/vmlinuz")


def set_all(rows: list[Record], **values: Any) -> None:
    for r in rows:
        r.update(values)


def irq_fired(s: Record, e: Record) -> None:
    a(s)["irqs"]["30"]["affinity"] = "0-3"
    a(s)["irqs"]["30"]["effective"] = "2"
    e["audit"]["irqs"]["30"]["count"] = 42


def irq_may_land(s: Record, e: Record) -> None:
    a(s)["irqs"]["30"]["affinity"] = "0-3"


def deep_idle(latency: int) -> Any:
    def change(s: Record, e: Record) -> None:
        s["privileges"]["cpu_dma_latency"] = False
        for c in cpus(s):
            c["idle"]["2"]["exit_latency_us"] = latency

    return change


# (check, what the facts say, change, expected status)
def rt_task(state: str) -> Any:
    """Another program's SCHED_FIFO 99 thread that may run on CPU 2."""

    def change(s: dict[str, Any], e: dict[str, Any]) -> None:
        s["audit"]["rt_tasks"] = {"4242": {"comm": "hog", "pid": 4242, "policy": "SCHED_FIFO",
                                           "prio": 99, "state": state, "cpus": "0-3"}}  # fmt: skip

    return change


CASES: list[tuple[str, str, Any, str]] = [
    ("rt-tasks", "no other program's real-time thread", None, "pass"),
    ("rt-tasks", "one that sleeps", rt_task("S"), "warn"),
    ("rt-tasks", "one runnable now", rt_task("R"), "fail"),
    ("rt-tasks", "not read (an older record)",
     lambda s, e: s["audit"].pop("rt_tasks"), "unknown"),  # fmt: skip
    ("preempt-model", "PREEMPT_RT", None, "pass"),
    ("preempt-model", "full", lambda s, e: s["kernel"].update(preempt_model="full"), "warn"),
    ("preempt-model", "lazy", lambda s, e: s["kernel"].update(preempt_model="lazy"), "warn"),
    ("preempt-model", "none", lambda s, e: s["kernel"].update(preempt_model="none"), "fail"),
    ("preempt-model", "voluntary", lambda s, e: s["kernel"].update(preempt_model="voluntary"), "fail"),
    ("preempt-model", "no source", lambda s, e: s["kernel"].update(preempt_model=None), "unknown"),
    ("cpu-isolation", "measured CPUs isolated", None, "pass"),
    ("cpu-isolation", "nothing isolated", lambda s, e: unisolated(s), "warn"),
    ("cpu-isolation", "one of two isolated", lambda s, e: s["kernel"].update(isolcpus="3", nohz_full="3",
                                                                             cmdline=""), "warn"),
    ("cpu-isolation", "isolated CPUs not measured", lambda s, e: s["cpu"].update(selected=[0]), "fail"),
    ("cpu-isolation", "an isolated cgroup v2 partition", lambda s, e: (
        s["kernel"].update(isolcpus="", cmdline=""), a(s)["cpuset"].update(isolated="2-3")), "pass"),
    ("cpu-isolation", "one CPU", lambda s, e: s["cpu"].update(online=1, selected=[0]), "n/a"),
    ("isolation-agreement", "the same CPUs everywhere", None, "pass"),
    ("isolation-agreement", "isolcpus without nohz_full", lambda s, e: s["kernel"].update(
        nohz_full="", cmdline="isolcpus=2-3"), "warn"),
    ("isolation-agreement", "nohz_full without isolcpus", lambda s, e: s["kernel"].update(
        isolcpus="", cmdline="nohz_full=2-3"), "fail"),
    ("isolation-agreement", "nothing isolated", lambda s, e: unisolated(s), "n/a"),
    ("irq-affinity", "no IRQ may land", None, "pass"),
    ("irq-affinity", "an IRQ may land, none fired", irq_may_land, "warn"),
    ("irq-affinity", "an IRQ fired on a measured CPU", irq_fired, "fail"),
    ("irq-affinity", "no device IRQ listed", lambda s, e: a(s).update(irqs={}), "unknown"),
    ("irq-default-affinity", "housekeeping only", None, "pass"),
    ("irq-default-affinity", "every CPU, none isolated", lambda s, e: (
        unisolated(s), a(s)["irq"].update(default_affinity="f")), "warn"),
    ("irq-default-affinity", "every CPU, isolated ones too", lambda s, e: a(s)["irq"].update(
        default_affinity="f"), "fail"),
    ("workqueue-mask", "housekeeping only", None, "pass"),
    ("workqueue-mask", "every CPU, none isolated", lambda s, e: (
        unisolated(s), a(s)["housekeeping"].update(workqueue_cpumask="f")), "warn"),
    ("workqueue-mask", "every CPU, isolated ones too", lambda s, e: a(s)["housekeeping"].update(
        workqueue_cpumask="ff,ffffffff"), "fail"),
    ("kthread-mask", "housekeeping only", None, "pass"),
    ("kthread-mask", "every CPU, none isolated", lambda s, e: (
        unisolated(s), a(s)["housekeeping"].update(kthread_cpus="0-3")), "warn"),
    ("kthread-mask", "every CPU, isolated ones too", lambda s, e: a(s)["housekeeping"].update(
        kthread_cpus="0-3"), "fail"),
    ("smt-siblings", "no sibling", None, "pass"),
    ("smt-siblings", "siblings measured together", lambda s, e: (
        a(s)["cpus"]["2"].update(siblings="2-3"), a(s)["cpus"]["3"].update(siblings="2-3")), "warn"),
    ("smt-siblings", "a busy sibling", lambda s, e: a(s)["cpus"]["2"].update(siblings="0,2"), "fail"),
    ("smt-siblings", "topology unread", lambda s, e: a(s)["cpus"]["2"].pop("siblings"), "unknown"),
    ("cpufreq", "performance, no boost", None, "pass"),
    ("cpufreq", "schedutil", lambda s, e: set_all(cpus(s), governor="schedutil"), "warn"),
    ("cpufreq", "boost on", lambda s, e: a(s)["cpufreq"].update(boost=1), "warn"),
    ("cpufreq", "powersave pinned low", lambda s, e: set_all(cpus(s), governor="powersave"), "fail"),
    ("cpufreq", "powersave of intel_pstate is dynamic", lambda s, e: set_all(
        cpus(s), governor="powersave", driver="intel_pstate"), "warn"),
    ("cpufreq", "userspace: a frequency not read", lambda s, e: set_all(
        cpus(s), governor="userspace"), "warn"),
    ("cpufreq", "no cpufreq driver", lambda s, e: [c.pop(k) for c in cpus(s) for k in
                                                   ("governor", "driver")], "n/a"),
    ("idle-states", "cpu_dma_latency held", None, "pass"),
    ("idle-states", "shallow states only", deep_idle(5), "pass"),
    ("idle-states", "a state over a tenth of the budget", deep_idle(40), "warn"),
    ("idle-states", "a state as long as the budget", deep_idle(133), "fail"),
    ("idle-states", "no cpuidle", lambda s, e: [c.pop("idle") for c in cpus(s)], "n/a"),
    ("rt-throttling", "95 %", None, "pass"),
    ("rt-throttling", "off", lambda s, e: s["kernel"].update(rt_runtime_us=-1), "warn"),
    ("rt-throttling", "40 %", lambda s, e: s["kernel"].update(rt_runtime_us=400000), "fail"),
    ("timer-migration", "off", None, "pass"),
    ("timer-migration", "on, nothing isolated", lambda s, e: (
        unisolated(s), a(s)["sysctl"].update(timer_migration=1)), "warn"),
    ("timer-migration", "on with isolated CPUs", lambda s, e: a(s)["sysctl"].update(
        timer_migration=1), "fail"),
    ("watchdogs", "kept to the housekeeping CPUs", None, "pass"),
    ("watchdogs", "off", lambda s, e: a(s)["sysctl"].update(watchdog=0, watchdog_cpumask="0-3"), "pass"),
    ("watchdogs", "on everywhere, nothing isolated", lambda s, e: (
        unisolated(s), a(s)["sysctl"].update(watchdog_cpumask="0-3")), "warn"),
    ("watchdogs", "NMI watchdog on isolated CPUs", lambda s, e: a(s)["sysctl"].update(
        nmi_watchdog=1, watchdog_cpumask="0-3"), "fail"),
    ("numa-balancing", "off", None, "pass"),
    ("numa-balancing", "on, one node", lambda s, e: a(s)["sysctl"].update(numa_balancing=1), "warn"),
    ("numa-balancing", "on, two nodes", lambda s, e: (
        a(s)["sysctl"].update(numa_balancing=1), a(s)["numa"].update(nodes="0-1")), "fail"),
    ("smi-count", "none since boot", None, "pass"),
    ("smi-count", "some since boot, none during the run", lambda s, e: (
        a(s)["smi"].update(count=7), e["audit"]["smi"].update(count=7)), "warn"),
    ("smi-count", "some during the run", lambda s, e: e["audit"]["smi"].update(count=3), "fail"),
    ("smi-count", "MSR unreadable", lambda s, e: a(s)["smi"].update(
        count=None, source="/dev/cpu/2/msr: absent"), "n/a"),
    ("thp", "madvise", None, "pass"),
    ("thp", "never", lambda s, e: a(s)["thp"].update(enabled="always madvise [never]"), "pass"),
    ("thp", "always", lambda s, e: a(s)["thp"].update(enabled="[always] madvise never"), "warn"),
    ("thp", "always with direct compaction", lambda s, e: a(s)["thp"].update(
        enabled="[always] madvise never", defrag="[always] defer madvise never"), "fail"),
    ("swap", "none", None, "pass"),
    ("swap", "swap and locked memory", lambda s, e: a(s)["swap"].update(total_kb=1 << 21), "warn"),
    ("swap", "swap and unlocked memory", lambda s, e: (
        a(s)["swap"].update(total_kb=1 << 21), s["privileges"].update(mlockall=False)), "fail"),
    ("clocksource", "an invariant TSC", None, "pass"),
    ("clocksource", "arm64's counter", lambda s, e: (
        s["host"].update(machine="aarch64"), s["clock"].update(kernel_clocksource="arch_sys_counter")),
        "pass"),
    ("clocksource", "kvm-clock", lambda s, e: s["clock"].update(kernel_clocksource="kvm-clock"), "warn"),
    ("clocksource", "a TSC that stops", lambda s, e: a(s)["clock"].update(tsc_nonstop=False), "warn"),
    ("clocksource", "hpet", lambda s, e: (
        s["clock"].update(kernel_clocksource="hpet"), a(s)["clock"].update(available="hpet acpi_pm")),
        "fail"),
    ("hypervisor", "bare metal", None, "pass"),
    ("hypervisor", "a guest, no steal", lambda s, e: s["virtualization"].update(
        hypervisor=True, vendor="KVMKVMKVM"), "warn"),
    ("hypervisor", "a guest that lost time", lambda s, e: (
        s["virtualization"].update(hypervisor=True), e["audit"]["steal"].update(ticks=5)), "fail"),
    ("hypervisor", "emulated", lambda s, e: s["virtualization"].update(emulated=True), "fail"),
    ("kernel-debug-options", "none", None, "pass"),
    ("kernel-debug-options", "debug preemption", lambda s, e: a(s)["kconfig"].update(
        CONFIG_DEBUG_PREEMPT="y"), "warn"),
    ("kernel-debug-options", "lockdep", lambda s, e: a(s)["kconfig"].update(CONFIG_LOCKDEP="y"), "fail"),
    ("kernel-debug-options", "KASAN", lambda s, e: a(s)["kconfig"].update(CONFIG_KASAN="y"), "fail"),
    ("kernel-debug-options", "no configuration", lambda s, e: a(s).update(kconfig={"source": None}),
     "unknown"),
    ("kernel-rt-options", "all there", None, "pass"),
    ("kernel-rt-options", "no RCU boost", lambda s, e: a(s)["kconfig"].update(CONFIG_RCU_BOOST="n"), "warn"),
    ("kernel-rt-options", "no threaded IRQs", lambda s, e: (
        a(s)["kconfig"].update(CONFIG_PREEMPT_RT="n"), s["kernel"].update(preempt_model="full")), "warn"),
    ("kernel-rt-options", "no high-resolution timers", lambda s, e: a(s)["kconfig"].update(
        CONFIG_HIGH_RES_TIMERS="n"), "fail"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("check", "what", "change", "status"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES]
)
def test_check(check: str, what: str, change: Any, status: str) -> None:
    f = finding(check, change)
    assert f.status == status, (f.summary, f.evidence)
    assert f.evidence and all(isinstance(e, str) and e for e in f.evidence)
    assert f.why
    assert (f.fix is not None) == (status in ("warn", "fail")), f.fix


def test_every_linux_check_has_its_pass_warn_and_fail_facts() -> None:
    """No check is left without the facts that make it pass, warn and fail."""
    seen = {(c, s) for c, _, _, s in CASES}
    for check in LINUX:
        for status in ("pass", "warn", "fail"):
            assert (check.id, status) in seen, (check.id, status)


def test_the_base_machine_passes_everything() -> None:
    audit = audit_of()
    assert {f.id: f.status for f in audit.findings} == {c.id: "pass" for c in LINUX}
    assert not audit.failed


def test_preempt_rt_is_found_without_sys_kernel_realtime() -> None:
    """Mainline PREEMPT_RT (6.12 on) has no /sys/kernel/realtime: the model
    comes from uname -v or CONFIG_PREEMPT_RT, and the evidence says the file
    is absent."""
    f = finding("preempt-model")
    assert f.status == "pass"
    assert any(e.startswith("/sys/kernel/realtime: absent") for e in f.evidence)
    assert any("CONFIG_PREEMPT_RT=y" in e for e in f.evidence)


def test_the_irq_finding_names_each_irq_and_how_often_it_fired() -> None:
    f = finding("irq-affinity", irq_fired)
    assert f.status == "fail" and "IRQ 30" in f.summary
    line = next(e for e in f.evidence if e.startswith("IRQ 30"))
    assert "smp_affinity_list 0-3" in line and "effective 2" in line and "fired 42×" in line
    (irq,) = [i for i in f.details["irqs"] if i["irq"] == "30"]
    assert irq["fired"] == 42 and irq["lands"] is True
    assert f.details["ipis"] == {"LOC": 1}


def test_a_run_cut_short_judges_irqs_on_their_affinity_only() -> None:
    f = finding("irq-affinity", irq_may_land, end=None)
    assert f.status == "warn" and "unknown" in f.summary


def test_idle_states_are_weighed_against_the_deadline() -> None:
    """133 µs fails against 100 µs and passes against 10 ms."""
    assert finding("idle-states", deep_idle(133)).status == "fail"
    assert finding("idle-states", deep_idle(133), budget_ns=10e6).status == "pass"
    states = finding("idle-states", deep_idle(133)).details["states"]
    assert {"cpu": 2, "state": 2, "name": "C6", "exit_latency_us": 133, "disabled": False} in states


def test_a_record_from_before_the_audit_says_what_it_cannot_judge() -> None:
    """The facts every record had still decide some checks; the others say
    the record has no audit facts."""

    def old(s: Record, e: Record) -> None:
        del s["audit"]
        del e["audit"]

    audit = audit_of(old)
    status = {f.id: f.status for f in audit.findings}
    assert status["preempt-model"] == "pass" and status["rt-throttling"] == "pass"
    assert status["cpu-isolation"] == "pass" and status["clocksource"] == "pass"
    assert status["thp"] == "unknown" and status["irq-affinity"] == "unknown"
    assert "no audit facts" in audit.get("thp").summary  # type: ignore[union-attr]


def test_an_os_the_port_says_nothing_of_is_not_judged() -> None:
    def c11(s: Record, e: Record) -> None:
        s["host"]["os"] = "unknown"
        del s["audit"]

    audit = audit_of(c11)
    assert {f.status for f in audit.findings} == {"unknown"}
    assert all("reads none" in f.summary for f in audit.findings)


def test_findings_are_looked_up_by_id_and_ordered_worst_first() -> None:
    def two_problems(s: Record, e: Record) -> None:
        s["kernel"]["preempt_model"] = "none"
        a(s)["thp"]["enabled"] = "[always] madvise never"

    audit = audit_of(two_problems)
    assert audit.get("preempt-model").status == "fail"  # type: ignore[union-attr]
    assert audit.get("no-such-check") is None
    ordered = [f.status for f in audit.ordered()]
    assert ordered[:2] == ["fail", "warn"] and ordered == sorted(
        ordered, key=["fail", "warn", "unknown", "pass", "n/a"].index
    )
    assert audit.failed
    first = audit.ordered()[0].to_json()
    assert {"id", "status", "evidence", "fix", "why"} <= set(first)


def test_every_check_is_a_pure_function_of_the_records() -> None:
    """Judged twice from the same records, the same findings."""
    assert audit_of() == audit_of()
    assert linux_system() == linux_system() and linux_end() == linux_end()


@pytest.mark.parametrize(
    ("governor", "driver", "says"),
    [
        ("schedutil", "acpi-cpufreq", "schedutil on CPUs 2-3: the clock follows the load"),
        ("powersave", "intel_pstate", "powersave on CPUs 2-3: the clock follows the load"),
        ("userspace", "acpi-cpufreq", "userspace on CPUs 2-3: a frequency set from user space"),
    ],
)
def test_a_governor_that_follows_the_load_is_told_from_one_set_by_hand(
    governor: str, driver: str, says: str
) -> None:
    f = finding("cpufreq", lambda s, e: set_all(cpus(s), governor=governor, driver=driver))
    assert f.status == "warn" and says in f.summary, f.summary
