"""The audit's readers of kernel text (CPU lists, masks, the command line),
and the settings it compares: two systems side by side ("What differs"),
and the runs of one system over time (history marks where a setting
changed)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from audit_records import Record, linux_end, linux_system

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.analysis.differences import AUDIT, differences
from rtgauge.analysis.history import build
from rtgauge.audit.cmdline import KernelParams
from rtgauge.audit.cpus import format_list, format_mask, isolcpus_list, parse_list, parse_mask
from rtgauge.audit.settings import CMDLINE, KCONFIG, SYSTEM, changes, settings
from rtgauge.model import bundle_from_records
from rtgauge.report.compare_report import bundles_report
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.history_report import history_report
from rtgauge.run import Run


@pytest.mark.parametrize(
    ("text", "n", "cpus"),
    [
        ("0-3,8", None, {0, 1, 2, 3, 8}),
        ("", None, set()),
        ("(null)", None, set()),
        ("1-7:2", None, {1, 3, 5, 7}),
        ("2-N", 4, {2, 3}),
        ("all", 3, {0, 1, 2}),
        ("3-1", None, None),
        ("x", None, None),
        ("2-N", None, None),
        ("1-4:0", None, None),
    ],
)
def test_cpu_lists(text: str, n: int | None, cpus: set[int] | None) -> None:
    assert parse_list(text, n) == cpus


def test_masks_and_their_text() -> None:
    assert parse_mask("3") == {0, 1}
    assert parse_mask("ff,00000001") == {0} | set(range(32, 40))
    assert parse_mask("zz") is None
    assert format_list({0, 1, 2, 5, 7, 8}) == "0-2,5,7-8" and format_list(set()) == "none"
    assert format_mask({0, 1}) == "3" and format_mask(set()) == "0"
    assert isolcpus_list("domain,managed_irq,2-3") == ({2, 3}, ["domain", "managed_irq"])
    assert isolcpus_list("1,3") == ({1, 3}, ["domain"])


def test_the_command_line_stops_at_init_arguments() -> None:
    p = KernelParams.parse('quiet isolcpus=2-3 x="a b" isolcpus=1 -- isolcpus=9 init')
    assert p.has("quiet") and p.value("quiet") is None
    assert p.value("isolcpus") == "1"  # the kernel takes the last
    assert p.value("x") == "a b"
    assert p.flat() == {"quiet": "", "isolcpus": "2-3 1", "x": "a b"}
    assert not p.has("init")
    assert KernelParams.parse('unbalanced "quote').has("unbalanced")


def run_of(change: Any = None, created: str = "2026-11-22T21:00:00+00:00") -> Run:
    s, e = linux_system(), linux_end()
    if change:
        change(s, e)
    b = bundle_from_records([copy.deepcopy(s), copy.deepcopy(e)], "test")
    b.created_at = created
    return Run.of(b)


def thp_always(s: Record, e: Record) -> None:
    s["audit"]["thp"]["enabled"] = "[always] madvise never"


def test_settings_of_a_system() -> None:
    got = settings(run_of().system)
    assert got[CMDLINE]["isolcpus"] == "domain,managed_irq,2-3"
    assert got[CMDLINE]["BOOT_IMAGE"] == "/vmlinuz" and "init-arg" not in got[CMDLINE]
    assert got[KCONFIG]["CONFIG_PREEMPT_RT"] == "y"
    assert got[SYSTEM]["THP enabled"] == "madvise"
    assert got[SYSTEM]["sysctl timer_migration"] == "0"
    assert got[SYSTEM]["workqueue CPU mask"] == "0-1"


def test_a_changed_setting_is_named_with_both_values() -> None:
    assert changes(run_of().system, run_of(thp_always).system) == ["THP enabled: madvise → always"]
    assert changes(run_of().system, run_of().system) == []


def test_a_setting_only_one_run_read_is_no_change() -> None:
    def old(s: Record, e: Record) -> None:
        del s["audit"]

    assert changes(run_of(old).system, run_of().system) == []


def test_what_differs_comes_first() -> None:
    runs = [run_of(), run_of(thp_always)]
    rows = differences(runs, [AnalysedRun.of(r).audit for r in runs])
    assert rows[0].group == SYSTEM and rows[0].name == "THP enabled"
    assert rows[0].values == ["madvise", "always"] and rows[0].differs
    audit_row = next(r for r in rows if r.group == AUDIT and r.name == "thp")
    assert audit_row.differs and audit_row.values[0].startswith("PASS")
    assert audit_row.values[1].startswith("WARN")
    first_alike = next(i for i, r in enumerate(rows) if not r.differs)
    assert all(r.differs for r in rows[:first_alike])
    assert not any(r.differs for r in rows[first_alike:])


def test_a_parameter_on_one_command_line_only_differs() -> None:
    def threadirqs(s: Record, e: Record) -> None:
        s["kernel"]["cmdline"] = s["kernel"]["cmdline"].replace(" -- ", " threadirqs -- ")

    runs = [run_of(), run_of(threadirqs)]
    rows = differences(runs, [AnalysedRun.of(r).audit for r in runs])
    row = next(r for r in rows if r.group == CMDLINE and r.name == "threadirqs")
    assert row.values == ["(absent)", "(set)"] and row.differs


def test_compare_shows_the_row_under_what_differs() -> None:
    a, b = run_of(), run_of(thp_always)
    md = EXPORTERS["md"].render(bundles_report([a.bundle, b.bundle], {"families": {}}, None, 1e-6))
    section = md[md.index("## What differs between these systems") :]
    section = section[: section.index("\n## ", 1)]
    differing = section[: section.index("Alike in every system")]
    assert "| settings | THP enabled | madvise | always |" in differing
    assert (
        "| audit | thp | PASS madvise, defrag madvise | WARN always, defrag madvise |" in differing
    )
    assert "timer_migration" not in differing and "timer_migration" in section


def test_history_marks_the_run_where_a_setting_changed() -> None:
    runs = [
        run_of(None, "2026-11-22T21:00:00+00:00"),
        run_of(thp_always, "2026-11-22T22:00:00+00:00"),
        run_of(thp_always, "2026-11-22T23:00:00+00:00"),
    ]
    (h,) = build(runs)
    assert [e.changed for e in h.runs] == [[], ["THP enabled: madvise → always"], []]
    md = EXPORTERS["md"].render(history_report([h]))
    assert "Settings changed since the run before" in md
    assert "#2 rt-box, 2026-11-22 22:00, default: THP enabled: madvise → always" in md
