"""The typed view: the sample reads into dataclasses; a bad record is one line."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from rtgauge.errors import UsageError
from rtgauge.model import System, TestRecord, bundle_from_records


def test_sample_reads_into_dataclasses(sample_records: list[dict[str, Any]]) -> None:
    bundle = bundle_from_records(sample_records, "sample")
    system = bundle.system_view()
    assert system.host.hostname == "vm" and system.privileges.sched_fifo
    assert system.virtualization.hypervisor
    assert system.run.tests == ["CLK-P-RES", "TMR-P-LAT", "SEM-B-LCK"]
    tests = {t.id: t for t in bundle.test_views()}
    lat = tests["TMR-P-LAT"]
    all_cpus = next(m for m in lat.metrics if m.name.endswith(".all"))
    assert all_cpus.hist.total == all_cpus.count
    assert all_cpus.tail == all_cpus.p99  # 600 samples back p99, not p99.9
    assert lat.worst == max(m.max or -1 for m in lat.metrics)
    sem = tests["SEM-B-LCK"]
    assert sem.kind == "B" and not sem.failed and all(v.passed for v in sem.verdicts)
    assert sem.verdicts[0].evidence["took_ns"] == 412


def test_a_failed_verdict_marks_the_test(sample_records: list[dict[str, Any]]) -> None:
    rec = copy.deepcopy(sample_records[3])
    rec["verdicts"][1]["pass"] = False
    assert TestRecord.from_dict(rec).failed


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda r: r.pop("verdicts"), "'verdicts' is a required property"),
        (lambda r: r["metrics"][0].update(max="big"), "at metrics/0/max: 'big' is not of type"),
        (lambda r: r.update(schema_version=2), "unsupported schema_version 2"),
        (lambda r: r.update(record="system"), "invalid system"),
    ],
)
def test_from_dict_gives_one_clear_line(
    sample_records: list[dict[str, Any]], mutate: Any, message: str
) -> None:
    rec = copy.deepcopy(sample_records[2])
    mutate(rec)
    with pytest.raises(UsageError) as e:
        TestRecord.from_dict(rec, "here")
    assert str(e.value).startswith("here: ") and message in str(e.value)
    assert "\n" not in str(e.value)


def test_system_from_a_test_record_is_refused(sample_records: list[dict[str, Any]]) -> None:
    with pytest.raises(UsageError, match="expected the system record"):
        System.from_dict(sample_records[1])


def test_bundle_round_trips_through_from_dict(sample_records: list[dict[str, Any]]) -> None:
    from rtgauge.model import Bundle

    b = bundle_from_records(sample_records, "x")
    again = Bundle.from_dict(b.to_json(), "copy")
    assert again.to_json() == b.to_json() and again.complete
    with pytest.raises(UsageError, match="copy: tests\\[0\\] is not a test record"):
        Bundle.from_dict(b.to_json() | {"tests": [sample_records[-1]]}, "copy")
