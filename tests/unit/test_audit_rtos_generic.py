"""An RTOS whose port the host has no checks for (a made-up "zephyr" port):
audited by what its record reports, each check fed its pass, warn, fail and
unknown facts, and never judged, or worded, as FreeRTOS."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from audit_records import Record, audit_of, freertos_end, freertos_system

from rtgauge.audit import Audit
from rtgauge.audit.checks import FREERTOS, RTOS

# What only FreeRTOS's checks, or its kernel, would say: its name, its
# configuration's macros, its tasks' and heaps' names, its functions.
FREERTOS_WORDS = re.compile(r"FreeRTOS|\bconfig[A-Z]|#define|Tmr Svc|IDLE|heap_\d|xPort")


def zephyr_system() -> Record:
    """A board whose port is not one the host knows, reporting nothing but
    its name: the FreeRTOS board's record without its FreeRTOS facts."""
    s = freertos_system()
    s["probe"]["build"]["osal"] = "zephyr"
    s["host"].update(os="Zephyr", os_pretty_name="Zephyr RTOS", release="4.1.0")
    s["kernel"].update(preempt_source="the port", hz_config=None)
    s["rtos"] = {"name": "Zephyr"}
    s["audit"] = {}
    return s


def zephyr_end() -> Record:
    end = freertos_end()
    end["audit"] = {}
    return end


def reports(**facts: Any) -> Any:
    def change(s: Record, e: Record) -> None:
        s["rtos"].update(facts)

    return change


def heap(size: int, low: int) -> Any:
    def change(s: Record, e: Record) -> None:
        s["rtos"].update(heap="k_heap", heap_bytes=size)
        e["audit"]["heap_min_free_bytes"] = low

    return change


def zephyr(change: Any = None) -> Audit:
    return audit_of(change, zephyr_system, zephyr_end)


def freertos_words(audit: Audit) -> list[str]:
    return FREERTOS_WORDS.findall(json.dumps([f.to_json() for f in audit.findings]))


def test_an_unknown_port_gets_the_generic_checks_not_freertos_ones() -> None:
    audit = zephyr()
    assert [f.id for f in audit.findings] == [c.id for c in RTOS]
    freertos_only = {c.id for c in FREERTOS} - {c.id for c in RTOS}
    assert freertos_only and not freertos_only & {f.id for f in audit.findings}


def test_what_the_record_does_not_report_is_unknown_never_a_finding() -> None:
    audit = zephyr()
    assert {f.id: f.status for f in audit.findings} == {
        "rtos-preemption": "unknown",
        "rtos-tick-rate": "unknown",
        "rtos-heap": "unknown",
        "hypervisor": "pass",
    }
    assert freertos_words(audit) == []


def test_freertos_facts_in_another_ports_record_are_not_judged() -> None:
    """The same configuration values that fail on FreeRTOS's port say
    nothing on another: the host does not know what they mean there."""
    config = {"configUSE_PREEMPTION": 0, "configCHECK_FOR_STACK_OVERFLOW": 0}
    audit = zephyr(reports(config=config))
    assert audit.counts["fail"] == 0 and audit.counts["warn"] == 0
    assert freertos_words(audit) == []
    # The control: the same values on the FreeRTOS port fail.
    on_freertos = audit_of(
        lambda s, e: s["rtos"]["config"].update(config), freertos_system, freertos_end
    )
    assert on_freertos.counts["fail"] == 2 and freertos_words(on_freertos)


CASES: list[tuple[str, str, Any, str]] = [
    ("rtos-preemption", "preemptive, 32 levels", reports(preemptive=True, priority_levels=32), "pass"),
    ("rtos-preemption", "preemptive, levels unsaid", reports(preemptive=True), "pass"),
    ("rtos-preemption", "preemptive, 4 levels", reports(preemptive=True, priority_levels=4), "warn"),
    ("rtos-preemption", "cooperative", reports(preemptive=False), "fail"),
    ("rtos-preemption", "unsaid", None, "unknown"),
    ("rtos-tick-rate", "10 kHz", reports(tick_rate_hz=10000), "pass"),
    ("rtos-tick-rate", "the kernel's hz_config", lambda s, e: s["kernel"].update(hz_config=1000), "pass"),
    ("rtos-tick-rate", "250 Hz", reports(tick_rate_hz=250), "warn"),
    ("rtos-tick-rate", "50 Hz", reports(tick_rate_hz=50), "fail"),
    ("rtos-tick-rate", "unsaid", None, "unknown"),
    ("rtos-heap", "70 % left at the lowest", heap(1000, 700), "pass"),
    ("rtos-heap", "5 % left", heap(1000, 50), "warn"),
    ("rtos-heap", "ran out", heap(1000, 0), "fail"),
    ("rtos-heap", "its size unsaid", lambda s, e: e["audit"].update(heap_min_free_bytes=9), "unknown"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("check", "what", "change", "status"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES]
)
def test_check(check: str, what: str, change: Any, status: str) -> None:
    audit = zephyr(change)
    f = audit.get(check)
    assert f is not None
    assert f.status == status, (f.summary, f.evidence)
    assert f.evidence and f.why
    assert (f.fix is not None) == (status in ("warn", "fail"))
    assert freertos_words(audit) == []


def test_every_generic_check_has_its_pass_warn_fail_and_unknown_facts() -> None:
    seen = {(c, s) for c, _, _, s in CASES}
    for check in RTOS[:-1]:  # the hypervisor's are test_audit_rtos.py's
        for status in ("pass", "warn", "fail", "unknown"):
            assert (check.id, status) in seen, (check.id, status)


def test_a_freertos_and_another_rtos_judge_a_setting_alike() -> None:
    """A setting both judge has one id and one verdict for the same value,
    so a comparison of the two systems lines them up."""
    mine = zephyr(reports(tick_rate_hz=250)).get("rtos-tick-rate")
    theirs = audit_of(
        lambda s, e: s["rtos"]["config"].update(configTICK_RATE_HZ=250),
        freertos_system,
        freertos_end,
    ).get("rtos-tick-rate")
    assert mine is not None and theirs is not None
    assert (mine.status, mine.value, mine.summary) == (theirs.status, theirs.value, theirs.summary)
