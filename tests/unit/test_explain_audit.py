"""Which audit findings an explanation points to (analysis/explain_audit.py):
for each link of the table, a part and its finding warning or failing is
pointed to, and the same finding passing (or unknown, or n/a) is not; no
audit, an incomplete window, the wake-up's own mechanism: nothing; the lines
ordered by the part's share, one per (part, finding); and the report's and
the command's "Bears on it" lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from audit_records import Record, audit_of

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.analysis.explain import (
    IDLE,
    IRQ,
    NO_EVENT,
    NONPREEMPT,
    RETURN,
    SOFTIRQ,
    SWITCH,
    TASK,
    TICK_WAIT,
    TIMER,
    UNACCOUNTED,
    VECTOR,
    WAKE_IRQ,
    WAKER,
    Explanation,
    Part,
    Subject,
    TraceWindow,
    explain,
    explanations,
)
from rtgauge.analysis.explain.rules import IDLE_BEYOND_EXIT, worded
from rtgauge.analysis.explain_audit import Bearing, bearing
from rtgauge.audit import Finding
from rtgauge.model import TraceEvent, load_bundle
from rtgauge.report.document import Para
from rtgauge.report.explain_section import test_section as section_of

DATA = Path(__file__).resolve().parents[1] / "data" / "explain"
NOT_POINTED = ("pass", "unknown", "n/a")


def finding(check_id: str, status: str, **details: Any) -> Finding:
    fix = f"the fix of {check_id}" if status in ("warn", "fail") else None
    return Finding(
        check_id, check_id, status, "summary", ["evidence"], fix, "why", "value", details
    )


def explanation(*parts: Part, complete: bool = True) -> Explanation:
    return Explanation(
        metric="timer.wakeup.clock_nanosleep.cpu1",
        sample_ns=sum(p.ns for p in parts),
        cpu=1,
        complete=complete,
        parts=parts,
        culprit="",
        culprit_kind=None,
        segments=(),
        wake_at=None,
        switch_at=None,
        lost_events=0,
    )


def pointed(b: list[Bearing]) -> list[tuple[str, str]]:
    return [(x.part.label, x.finding.id) for x in b]


# The rule that makes each kind of part, for parts made by hand.
RULE_OF = {
    IDLE: "idle-exit",
    NO_EVENT: "thread-still-current",
    TICK_WAIT: "tick-wait",
    IRQ: "handler",
    VECTOR: "handler",
    SOFTIRQ: "handler",
    TIMER: "handler",
    TASK: "task-outranks",
    NONPREEMPT: "task-held",
    WAKE_IRQ: "wake-interrupt",
    WAKER: "waker",
    SWITCH: "task-lower",
    RETURN: "thread-return",
    UNACCOUNTED: "remainder",
}
LINUX_WINDOW = TraceWindow("m", 1, 1, 500, 0, True, 0, ())
RTOS_WINDOW = TraceWindow("m", 1, 1, 5, 0, True, 0, (), prio_scale="rtos")


def part(kind: str, subject: Subject | None, ns: int, rule: str = "", rtos: bool = False) -> Part:
    """A part as the rules make it, with its words."""
    raw = Part(kind, ns, rule or RULE_OF[kind], subject, subject if kind == WAKE_IRQ else None)
    return worded(raw, RTOS_WINDOW if rtos else LINUX_WINDOW)


def irq(num: int, name: str) -> Subject:
    return Subject("irq", num=num, name=name)


def handler(what: str, name: str) -> Subject:
    return Subject(what, name=name)


def task(
    comm: str, pid: int, prio: int, policy: str = "", role: str = "", work: str = ""
) -> Subject:
    return Subject("task", pid=pid, comm=comm, prio=prio, policy=policy, role=role, work=work)


HOG = task("hog", 1234, 0, "SCHED_FIFO")
KWORKER_U = task("kworker/u4:1", 88, 120, "SCHED_OTHER", work="work flush_to_ldisc")
KWORKER_1 = task("kworker/1:2", 90, 120, "SCHED_OTHER", work="work vmstat_update")
IDLE_SUBJECT = Subject("idle", pid=0, role="idle")

IRQ36 = {"irqs": [{"irq": "36", "name": "virtio1-req.0", "affinity": "0-1",
                   "effective": "1", "lands": True, "fired": 20}]}  # fmt: skip
NO_HZ_FULL = {"high_res": True, "missing": ["NO_HZ_FULL"]}
NO_RCU_NOCB = {"high_res": True, "missing": ["RCU_NOCB_CPU"]}
NOT_THREADED = {"high_res": True, "missing": ["threaded interrupts"]}
NO_HIGH_RES = {"high_res": False, "missing": []}

# (a part, its label as the words make it, the finding it points to, that
# finding's details)
TABLE: list[tuple[Part, str, str, dict[str, Any]]] = [
    (part(IDLE, IDLE_SUBJECT, 40_000), "the CPU was idle", "idle-states", {}),
    (part(NO_EVENT, None, 40_000), "no kernel event at all", "hypervisor", {}),
    (part(NO_EVENT, None, 40_000), "no kernel event at all", "smi-count", {}),
    (part(NO_EVENT, IDLE_SUBJECT, 40_000, IDLE_BEYOND_EXIT),
     "no kernel event at all (the CPU was idle)", "idle-states", {}),
    (part(TICK_WAIT, None, 40_000), "waiting for the next tick", "rtos-tick-rate", {}),
    (part(TICK_WAIT, None, 40_000), "waiting for the next tick", "kernel-rt-options",
     NO_HIGH_RES),
    (part(IRQ, irq(36, "virtio1-req.0"), 40_000), "IRQ 36 virtio1-req.0", "irq-affinity", IRQ36),
    (part(IRQ, irq(36, "virtio1-req.0"), 40_000), "IRQ 36 virtio1-req.0", "kernel-rt-options",
     NOT_THREADED),
    (part(IRQ, irq(11, "arch_timer"), 40_000), "IRQ 11 arch_timer", "kernel-rt-options",
     NO_HZ_FULL),
    (part(IRQ, irq(11, "arch_timer"), 40_000), "IRQ 11 arch_timer", "timer-migration", {}),
    (part(VECTOR, handler("vec", "local_timer"), 40_000), "local_timer interrupt",
     "kernel-rt-options", NO_HZ_FULL),
    (part(VECTOR, handler("vec", "local_timer"), 40_000), "local_timer interrupt",
     "timer-migration", {}),
    (part(VECTOR, handler("vec", "local_timer"), 40_000), "local_timer interrupt",
     "cpu-isolation", {}),
    (part(VECTOR, handler("vec", "reschedule"), 40_000), "reschedule interrupt",
     "cpu-isolation", {}),
    (part(VECTOR, handler("ipi", "Function call interrupts"), 40_000),
     "IPI Function call interrupts", "cpu-isolation", {}),
    (part(SOFTIRQ, handler("softirq", "NET_RX"), 40_000), "softirq NET_RX", "irq-affinity",
     IRQ36),
    (part(SOFTIRQ, handler("softirq", "NET_RX"), 40_000), "softirq NET_RX", "cpu-isolation", {}),
    (part(SOFTIRQ, handler("softirq", "TIMER"), 40_000), "softirq TIMER", "timer-migration", {}),
    (part(SOFTIRQ, handler("softirq", "HRTIMER"), 40_000), "softirq HRTIMER",
     "kernel-rt-options", NO_HZ_FULL),
    (part(SOFTIRQ, handler("softirq", "RCU"), 40_000), "softirq RCU", "kernel-rt-options",
     NO_RCU_NOCB),
    (part(SOFTIRQ, handler("softirq", "RCU"), 40_000), "softirq RCU", "cpu-isolation", {}),
    (part(SOFTIRQ, handler("softirq", "SCHED"), 40_000), "softirq SCHED", "cpu-isolation", {}),
    (part(TIMER, handler("timer", "tick_nohz_handler"), 40_000), "timer tick_nohz_handler",
     "kernel-rt-options", NO_HZ_FULL),
    (part(TIMER, handler("timer", "tick_sched_timer"), 40_000), "timer tick_sched_timer",
     "cpu-isolation", {}),
    (part(TIMER, handler("timer", "it_real_fn"), 40_000), "timer it_real_fn", "timer-migration",
     {}),
    (part(TIMER, handler("timer", "watchdog_timer_fn"), 40_000), "timer watchdog_timer_fn",
     "watchdogs", {}),
    (part(TASK, KWORKER_U, 40_000), "kworker/u4:1/88 SCHED_OTHER (work flush_to_ldisc)",
     "workqueue-mask", {}),
    (part(TASK, KWORKER_U, 40_000), "kworker/u4:1/88 SCHED_OTHER (work flush_to_ldisc)",
     "cpu-isolation", {}),
    (part(TASK, KWORKER_1, 40_000), "kworker/1:2/90 SCHED_OTHER (work vmstat_update)",
     "cpu-isolation", {}),
    (part(TASK, HOG, 40_000), "hog/1234 SCHED_FIFO 99", "cpu-isolation", {}),
    (part(TASK, task("watchdog/1", 15, 0, "SCHED_FIFO"), 40_000), "watchdog/1/15 SCHED_FIFO 99",
     "watchdogs", {}),
    (part(TASK, task("migration/1", 16, 0, "SCHED_FIFO"), 40_000),
     "migration/1/16 SCHED_FIFO 99", "watchdogs", {}),
    (part(TASK, task("irq/36-virtio1-req.0", 77, 49, "SCHED_FIFO"), 40_000),
     "irq/36-virtio1-req.0/77 SCHED_FIFO 50", "irq-affinity", IRQ36),
    (part(TASK, task("ksoftirqd/1", 20, 120, "SCHED_OTHER"), 40_000),
     "ksoftirqd/1/20 SCHED_OTHER", "irq-affinity", IRQ36),
    (part(TASK, task("ktimers/1", 21, 98, "SCHED_FIFO"), 40_000), "ktimers/1/21 SCHED_FIFO 1",
     "timer-migration", {}),
    (part(TASK, task("rcuc/1", 22, 98, "SCHED_FIFO"), 40_000), "rcuc/1/22 SCHED_FIFO 1",
     "kernel-rt-options", NO_RCU_NOCB),
    (part(TASK, task("khugepaged", 40, 139, "SCHED_OTHER"), 40_000),
     "khugepaged/40 SCHED_OTHER nice 19", "thp", {}),
    (part(TASK, task("Tmr Svc", 3, 2, role="timer-task"), 40_000, rtos=True),
     "Tmr Svc/3 (priority 2)", "rtos-timer-task", {}),
    (part(NONPREEMPT, task("pip", 2686, 120, "SCHED_OTHER"), 40_000),
     "pip/2686 SCHED_OTHER kept the CPU", "preempt-model", {}),
    (part(NONPREEMPT, task("pip", 2686, 120, "SCHED_OTHER"), 40_000),
     "pip/2686 SCHED_OTHER kept the CPU", "cpu-isolation", {}),
]  # fmt: skip
THREAD = part(RETURN, Subject("thread", pid=500), 5_000)


@pytest.mark.parametrize(("made", "label", "check_id", "details"), TABLE)
@pytest.mark.parametrize("status", ["warn", "fail"])
def test_a_part_points_to_the_finding_that_warns_or_fails(
    made: Part, label: str, check_id: str, details: dict[str, Any], status: str
) -> None:
    x = explanation(made, THREAD)
    found = bearing(x, [finding(check_id, status, **details)])
    assert pointed(found) == [(label, check_id)]
    b = found[0]
    assert b.finding.status == status and b.share == pytest.approx(40_000 / 45_000)
    assert "could have" in b.says  # what the setting could have done, never who is at fault
    assert b.to_json() == {
        "part": label,
        "rule": made.rule,
        "share": round(40_000 / 45_000, 4),
        "finding": check_id,
        "status": status,
        "fix": f"the fix of {check_id}",
        "says": b.says,
    }


@pytest.mark.parametrize(("made", "label", "check_id", "details"), TABLE)
@pytest.mark.parametrize("status", NOT_POINTED)
def test_the_same_part_never_points_to_a_passing_or_undecided_finding(
    made: Part, label: str, check_id: str, details: dict[str, Any], status: str
) -> None:
    x = explanation(made)
    assert bearing(x, [finding(check_id, status, **details)]) == []


def every_finding(status: str) -> list[Finding]:
    ids = {c for _, _, c, _ in TABLE} | {"irq-default-affinity", "kthread-mask", "swap"}
    details = {"missing": ["NO_HZ_FULL", "RCU_NOCB_CPU", "threaded interrupts"],
               "high_res": False, **IRQ36}  # fmt: skip
    return [finding(i, status, **details) for i in sorted(ids)]


def test_no_audit_points_to_nothing() -> None:
    x = explanation(part(TASK, HOG, 90_000), part(IRQ, irq(36, "x"), 9_000))
    assert bearing(x, []) == []
    assert bearing(x, every_finding("pass")) == []
    assert bearing(x, every_finding("unknown")) == []
    assert pointed(bearing(x, every_finding("fail")))  # the control: the same parts do point


@pytest.mark.parametrize("kind", [WAKE_IRQ, WAKER, SWITCH, RETURN, UNACCOUNTED])
def test_the_wake_ups_own_mechanism_and_unknown_time_point_to_nothing(kind: str) -> None:
    subject = handler("vec", "local_timer") if kind == WAKE_IRQ else HOG
    x = explanation(part(kind, subject, 50_000))
    assert bearing(x, every_finding("fail")) == []


def test_an_incomplete_window_points_to_nothing() -> None:
    hog = part(TASK, HOG, 50_000)
    assert bearing(explanation(hog, complete=False), every_finding("fail")) == []
    assert pointed(bearing(explanation(hog), every_finding("fail")))


def test_lines_come_largest_part_first_one_per_part_and_finding() -> None:
    x = explanation(
        part(SOFTIRQ, handler("softirq", "NET_RX"), 10_000),
        part(TASK, HOG, 60_000),
        part(IRQ, irq(36, "virtio1-req.0"), 30_000),
    )
    findings = [finding("irq-affinity", "fail", **IRQ36), finding("cpu-isolation", "warn")]
    got = pointed(bearing(x, findings + findings))  # a finding listed twice: still one line
    assert got == [
        ("hog/1234 SCHED_FIFO 99", "cpu-isolation"),
        ("IRQ 36 virtio1-req.0", "irq-affinity"),
        ("softirq NET_RX", "irq-affinity"),
        ("softirq NET_RX", "cpu-isolation"),
    ]


def test_a_part_under_the_minimum_share_gets_no_line() -> None:
    x = explanation(part(TASK, HOG, 99_500), part(IDLE, IDLE_SUBJECT, 500))
    findings = [finding("cpu-isolation", "warn"), finding("idle-states", "warn")]
    assert pointed(bearing(x, findings)) == [("hog/1234 SCHED_FIFO 99", "cpu-isolation")]
    assert pointed(bearing(x, findings, min_share=0)) == [
        ("hog/1234 SCHED_FIFO 99", "cpu-isolation"),
        ("the CPU was idle", "idle-states"),
    ]


def test_an_irq_the_audit_named_says_what_it_found_and_no_default_affinity() -> None:
    x = explanation(part(IRQ, irq(36, "virtio1-req.0"), 30_000))
    findings = [finding("irq-affinity", "fail", **IRQ36), finding("irq-default-affinity", "warn")]
    found = bearing(x, findings)
    assert pointed(found) == [("IRQ 36 virtio1-req.0", "irq-affinity")]
    assert found[0].says.startswith("IRQ 36 may land on the measured CPUs (fired 20× there")


def test_an_irq_the_audit_did_not_name_says_so_and_points_to_the_default_affinity() -> None:
    x = explanation(part(IRQ, irq(44, "nvme0q1"), 30_000))
    findings = [finding("irq-affinity", "warn", **IRQ36), finding("irq-default-affinity", "warn")]
    found = bearing(x, findings)
    assert pointed(found) == [
        ("IRQ 44 nvme0q1", "irq-affinity"),
        ("IRQ 44 nvme0q1", "irq-default-affinity"),
    ]
    assert "is not among the IRQs the audit found" in found[0].says
    assert "may land" not in found[0].says


def test_kernel_rt_options_is_pointed_to_only_for_the_option_the_part_needs() -> None:
    tick = explanation(part(TIMER, handler("timer", "tick_nohz_handler"), 30_000))
    only_boost = finding("kernel-rt-options", "warn", high_res=True, missing=["RCU_BOOST"])
    assert bearing(tick, [only_boost]) == []
    no_hz = finding("kernel-rt-options", "warn", **NO_HZ_FULL)
    assert pointed(bearing(tick, [no_hz])) == [("timer tick_nohz_handler", "kernel-rt-options")]


def test_a_cpus_own_kworker_never_points_to_the_unbound_workqueue_mask() -> None:
    x = explanation(part(TASK, KWORKER_1, 30_000))
    assert bearing(x, [finding("workqueue-mask", "fail")]) == []


def test_a_cpus_own_timer_interrupt_never_points_to_irq_affinity() -> None:
    x = explanation(part(IRQ, irq(11, "arch_timer"), 30_000))
    assert bearing(x, [finding("irq-affinity", "fail", **IRQ36)]) == []


def test_the_parts_of_an_explanation_are_linked_by_their_data() -> None:
    """A higher-priority unbound kworker, taken apart by explain(): its own
    label (comm with slashes, pid, policy) points to workqueue-mask."""
    tid, me = 500, dict(pid=500, prio=4, name="rtgauge-probe")
    kw = (88, 0, "kworker/u4:1")

    def ev(t: int, kind: str, cur: int, **kw_: Any) -> TraceEvent:
        return TraceEvent(t=t, cpu=1, kind=kind, cur=cur, **kw_)

    def sw(t: int, a: tuple[int, int, str], b: tuple[int, int, str]) -> TraceEvent:
        return ev(t, "switch", a[0], pid=a[0], prio=a[1], name=a[2], state=1,
                  pid2=b[0], prio2=b[1], name2=b[2])  # fmt: skip

    evs = [
        sw(-900_000, (tid, 4, "rtgauge-probe"), kw),
        ev(2_000, "vec_entry", 88, name="local_timer", num=236),
        ev(2_500, "timer_entry", 88, name="hrtimer_wakeup"),
        ev(3_000, "waking", 88, num=1, **me),
        ev(3_500, "wakeup", 88, num=1, **me),
        ev(4_000, "timer_exit", 88),
        ev(6_000, "vec_exit", 88, name="local_timer", num=236),
        sw(300_000, kw, (tid, 4, "rtgauge-probe")),
    ]
    w = TraceWindow(
        metric="timer.wakeup.clock_nanosleep.cpu1",
        sample_ns=303_000,
        cpu=1,
        tid=tid,
        start=-1_000_000,
        complete=True,
        lost_events=0,
        events=tuple(evs),
        policies={88: "SCHED_FIFO", tid: "SCHED_FIFO"},
    )
    x = explain(w)
    assert x.culprit_kind == TASK
    found = bearing(x, [finding("workqueue-mask", "warn"), finding("cpu-isolation", "warn")])
    assert pointed(found) == [
        ("kworker/u4:1/88 SCHED_FIFO 99", "workqueue-mask"),
        ("kworker/u4:1/88 SCHED_FIFO 99", "cpu-isolation"),
    ]


# ---- findings as the audit judges them (tests/unit/audit_records.py) ----


def irq_30_fired(s: Record, e: Record) -> None:
    s["audit"]["irqs"]["30"].update(affinity="0-3", effective="2")
    e["audit"]["irqs"]["30"]["count"] = 42


def test_the_irq_the_audit_found_firing_is_pointed_to_with_what_it_found() -> None:
    audit = audit_of(irq_30_fired)
    x = explanation(part(IRQ, irq(30, "eth0"), 30_000), THREAD)
    found = bearing(x, audit.findings)
    assert pointed(found) == [("IRQ 30 eth0", "irq-affinity")]
    assert found[0].finding.status == "fail"
    assert found[0].says.startswith("IRQ 30 may land on the measured CPUs (fired 42× there")


def test_kernel_rt_options_details_say_which_option_is_missing() -> None:
    def no_full_dynticks(s: Record, e: Record) -> None:
        s["audit"]["kconfig"]["CONFIG_NO_HZ_FULL"] = "n"

    tick = explanation(part(TIMER, handler("timer", "tick_sched_timer"), 30_000))
    f = audit_of(no_full_dynticks).get("kernel-rt-options")
    assert f is not None and f.status == "warn"
    assert f.details == {"high_res": True, "missing": ["NO_HZ_FULL"]}
    assert pointed(bearing(tick, [f])) == [("timer tick_sched_timer", "kernel-rt-options")]
    # the machine set up for real time: every check passes, nothing is pointed to
    assert bearing(tick, audit_of().findings) == []


# ---- recorded runs: what the report and the command show ----


def _recorded(name: str) -> AnalysedRun:
    return AnalysedRun.of(load_bundle(DATA / name))


def test_a_recorded_kernel_that_did_not_preempt_points_to_the_preemption_model() -> None:
    """A record from before the audit: its older facts decide preempt-model
    (none: fail) and the hypervisor (KVM: warn); the checks they cannot decide
    are unknown and never pointed to."""
    a = _recorded("idle_vm_run.json")
    test = a.run.test("TMR-P-LAT")
    assert test is not None
    worst = explanations(a.run, test)[0]
    found = bearing(worst, a.audit.findings)
    assert found[0].part.kind == NONPREEMPT
    assert (found[0].finding.id, found[0].finding.status) == ("preempt-model", "fail")
    assert {b.finding.status for b in found} <= {"warn", "fail"}
    assert all(a.audit.get(b.finding.id) == b.finding for b in found)
    explained = a.test_explained(test)  # the analysed run holds the same lines
    assert explained is not None and list(explained.windows[0].bearings) == found


def test_the_report_shows_a_bears_on_it_line_under_the_culprit() -> None:
    a = _recorded("hog_run.json")
    test = a.run.test("TMR-P-LAT")
    assert test is not None
    blocks = section_of(a, test)
    texts = [b.text for b in blocks if isinstance(b, Para)]
    lead = next(i for i, b in enumerate(blocks) if isinstance(b, Para) and b.kind == "lead")
    after = blocks[lead + 1]
    assert isinstance(after, Para)
    assert after.text.startswith("Bears on it: python3/2741 SCHED_FIFO 98 (100 %) — python3,")
    assert "audit cpu-isolation WARN — fix: isolcpus=" in after.text
    assert not any("PASS" in t for t in texts if t.startswith("Bears on it"))


def test_the_command_carries_the_pairs(cli: Any) -> None:
    code, out, _ = cli("explain", str(DATA / "hog_run.json"), "--format", "json")
    assert code == 0
    window = json.loads(out)[0]["windows"][0]
    first = window["bears_on"][0]
    assert set(first) == {"part", "rule", "share", "finding", "status", "fix", "says"}
    assert (first["part"], first["finding"], first["status"]) == (
        "python3/2741 SCHED_FIFO 98",
        "cpu-isolation",
        "warn",
    )
    assert first["fix"].startswith("isolcpus=")
    code, out, _ = cli("explain", str(DATA / "hog_run.json"), "--format", "md")
    assert code == 0 and "Bears on it: python3/2741 SCHED_FIFO 98" in out
