"""The recorder's own share of each figure's worst kept sample, as the
report states it: the events written inside the sample (0 <= t <= its
length) times what writing one cost (the explain record's event_ns)."""

from __future__ import annotations

from dataclasses import replace

from rtgauge.model import ExplainRecord, TraceEvent, TraceWindowRecord
from rtgauge.report.explain_section import recorder_cost


def _window(metric: str, sample_ns: int, times: list[int]) -> TraceWindowRecord:
    return TraceWindowRecord(
        metric=metric,
        sample_ns=sample_ns,
        release_ns=1_000_000,
        cpu=0,
        tid=4,
        start=-1_000_000,
        complete=True,
        lost_events=0,
        first_event=None,
        capped=False,
        steal_ns=None,
        steal_over_ns=None,
        policies={},
        origins={},
        events=tuple(TraceEvent(t=t, cpu=0, kind="wakeup", cur=4) for t in times),
    )


def _record(event_ns: int, windows: list[TraceWindowRecord]) -> ExplainRecord:
    return ExplainRecord(state="on", why=None, event_ns=event_ns, windows=tuple(windows))


def test_each_figure_counts_the_events_inside_its_worst_sample_only() -> None:
    worst = _window("irq.task", 17_000, [-500, 0, 6_000, 17_000, 17_001])
    later = _window("irq.task", 16_000, [100, 200, 300, 400])  # a lesser one: not counted
    other = _window("thread.preempt.sem", 6_000, [-10, 2_000])
    line = recorder_cost(_record(490, [worst, later, other]))
    assert line is not None
    assert "writing one event cost 0.49 µs" in line
    assert "irq.task 3 (1.47 of 17.00 µs)" in line  # -500 and 17,001 are outside it
    assert "thread.preempt.sem 1 (0.49 of 6.00 µs)" in line


def test_nothing_is_said_when_the_cost_was_not_measured_or_nothing_was_kept() -> None:
    w = _window("irq.task", 17_000, [0])
    assert recorder_cost(_record(0, [w])) is None  # Linux, or an older record
    assert recorder_cost(_record(490, [])) is None
    assert recorder_cost(replace(_record(490, [w]), event_ns=0)) is None


def test_the_explain_record_reads_event_ns_and_older_records_read_zero() -> None:
    base = {"state": "on", "why": None, "windows": []}
    assert ExplainRecord.read({**base, "event_ns": 490}).event_ns == 490
    assert ExplainRecord.read(base).event_ns == 0
