"""A behaviour verdict against the standard it names: a pass, a failure, or a
difference its OS documents (the table of data/documented_differences.toml,
keyed by OS, test, check and what was seen), and what each does to the
summary and to `rtgauge run`'s exit code."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from test_run_fake_probe import fake_probe

from rtgauge.analysis.compare import compare, points, verdict_table
from rtgauge.cli.run import _exit_code
from rtgauge.errors import UsageError
from rtgauge.model import Bundle, TestRecord, Verdict
from rtgauge.report.summary import count_line, difference_line, verdict_line
from rtgauge.run import Run
from rtgauge.standards import documented, parse, table

ROOT = Path(__file__).resolve().parents[2]
HEAD = {
    "name": "POSIX",
    "clause": "XSH 2.8.4 SCHED_FIFO, pthread_setschedprio(): a running thread whose priority "
    "is lowered becomes the head of the thread list for its new priority",
}


def verdict(name: str, passed: bool, seen: str | None) -> dict[str, Any]:
    return {
        "name": name,
        "pass": passed,
        "expected": "lLbx: lands at the head",
        "observed": f"lands at the {seen}",
        "evidence": None,
        "standard": HEAD,
        "seen": seen,
    }


def prio_record(*verdicts: dict[str, Any]) -> dict[str, Any]:
    """THR-B-PRIO's record as the probe writes it: fail when a verdict did not pass."""
    return {
        "record": "test",
        "schema_version": 1,
        "id": "THR-B-PRIO",
        "title": "Strict priority preemption; queue position of a lowered thread",
        "kind": "B",
        "status": "pass" if all(v["pass"] for v in verdicts) else "fail",
        "reason": None,
        "options": {},
        "conditions": {"policy": "SCHED_FIFO", "prio": 10, "mlockall": True, "cpus": [0]},
        "duration_ms": 5.0,
        "metrics": [],
        "verdicts": list(verdicts),
        "notes": [],
    }


HEAD_FIFO = "lowered_thread_goes_to_head_fifo"


def test_a_posix_pass_is_a_pass_on_any_os() -> None:
    for os in ("Linux", "FreeRTOS", None):
        v = Verdict.read(verdict(HEAD_FIFO, True, "head"), os, "THR-B-PRIO")
        assert v.outcome == "pass" and not v.failed and v.documented is None
        assert v.standard is not None and v.standard.name == "POSIX"


def test_a_posix_failure_on_linux_stays_a_failure() -> None:
    """The control's case: Linux documents no such difference, so the same
    check seeing the same tail fails there (fault=invert must still fail)."""
    v = Verdict.read(verdict(HEAD_FIFO, False, "tail"), "Linux", "THR-B-PRIO")
    assert v.outcome == "fail" and v.failed and v.mark == "FAIL"
    assert v.outcome_text == "FAIL against POSIX"


def test_the_difference_freertos_documents_is_not_a_failure() -> None:
    v = Verdict.read(verdict(HEAD_FIFO, False, "tail"), "FreeRTOS", "THR-B-PRIO")
    assert v.outcome == "differs" and not v.failed and not v.passed
    assert v.outcome_text == "differs from POSIX, as FreeRTOS documents"
    assert v.documented is not None and "vTaskPrioritySet" in v.documented.reference
    urgent = {**verdict("urgent_first.mq", False, "urgent_lifo"), "standard": None}
    u = Verdict.read(urgent, "FreeRTOS", "MSG-P-FIL")
    assert u.outcome == "differs" and u.documented is not None
    assert "xQueueSendToFront" in u.documented.reference
    assert u.outcome_text == "differs from the standard, as FreeRTOS documents"


@pytest.mark.parametrize(
    ("os", "test", "check", "seen"),
    [
        ("FreeRTOS", "THR-B-PRIO", HEAD_FIFO, "mixed"),  # another way of failing
        ("FreeRTOS", "MSG-P-FIL", "urgent_first.mq", "other"),  # not the documented order
        ("FreeRTOS", "THR-B-PRIO", "higher_woken_preempts_at_once", None),  # another check
        ("FreeRTOS", "THR-B-NEW", HEAD_FIFO, "tail"),  # another test
        ("Linux", "MSG-P-FIL", "urgent_first.mq", "urgent_lifo"),  # another OS
        (None, "THR-B-PRIO", HEAD_FIFO, "tail"),  # an OS the record does not name
    ],
)
def test_an_undocumented_difference_stays_a_failure(
    os: str | None, test: str, check: str, seen: str | None
) -> None:
    v = Verdict.read(verdict(check, False, seen), os, test)
    assert v.outcome == "fail" and v.failed and v.documented is None


def test_a_record_from_before_the_standard_was_named_reads_as_before() -> None:
    old = {
        k: v for k, v in verdict(HEAD_FIFO, False, "tail").items() if k not in ("standard", "seen")
    }
    v = Verdict.read(old, "FreeRTOS", "THR-B-PRIO")
    assert v.standard is None and v.seen is None and v.failed  # nothing seen: never excused
    assert v.outcome_text == "FAIL"


def test_a_test_whose_only_failures_are_documented_differs() -> None:
    rr = "lowered_thread_goes_to_head_rr"
    both = prio_record(verdict(HEAD_FIFO, False, "tail"), verdict(rr, False, "tail"))
    t = TestRecord.read(both, "FreeRTOS")
    assert t.status == "fail" and t.differs and not t.failed and t.shown_status == "differs"
    one_real = prio_record(verdict(HEAD_FIFO, False, "tail"), verdict(rr, False, "mixed"))
    t = TestRecord.read(one_real, "FreeRTOS")
    assert t.failed and not t.differs and t.shown_status == "fail"
    assert TestRecord.read(both, "Linux").failed


def test_the_shipped_table_names_tests_of_the_catalogue() -> None:
    ids = {  # RTG_TEST(thr_b_prio) is THR-B-PRIO
        line.split("(")[1].split(")")[0].strip().upper().replace("_", "-")
        for line in (ROOT / "core/catalogue/catalogue.def").read_text().splitlines()
        if line.startswith("RTG_TEST(")
    }
    rows = table()
    assert rows and all(r.test in ids for r in rows)
    assert {(r.os, r.test, r.check, r.seen) for r in rows} >= {
        ("FreeRTOS", "THR-B-PRIO", HEAD_FIFO, "tail"),
        ("FreeRTOS", "THR-B-PRIO", "lowered_thread_goes_to_head_rr", "tail"),
        ("FreeRTOS", "MSG-P-FIL", "urgent_first.mq", "urgent_lifo"),
    }


def test_a_table_is_data_checked_as_it_is_read() -> None:
    row = 'os="X"\ntest="T"\ncheck="c"\nseen="s"\nsays="w"\nreference="r"\n'
    (d,) = parse("[[difference]]\n" + row)
    assert documented("X", "T", "c", "s", (d,)) == d
    assert documented("X", "T", "c", "t", (d,)) is None
    with pytest.raises(UsageError, match="given twice"):
        parse(("[[difference]]\n" + row) * 2)
    with pytest.raises(UsageError, match="needs exactly"):
        parse('[[difference]]\nos="X"\n')
    with pytest.raises(UsageError, match="non-empty string"):
        parse("[[difference]]\n" + row.replace('seen="s"', 'seen=""'))
    with pytest.raises(UsageError, match="not TOML"):
        parse("[[difference")


def _freertos_run(records: list[dict[str, Any]], test: dict[str, Any]) -> list[dict[str, Any]]:
    """The sample run, said to be FreeRTOS's, with `test` added as the probe
    would count it (a verdict that did not pass: failed, exit code 1)."""
    out = copy.deepcopy(records)
    system, end = out[0], out[-1]
    system["host"]["os"] = "FreeRTOS"
    system["run"]["tests"].append(test["id"])
    failed = test["status"] == "fail"
    end.update(
        tests=end["tests"] + 1,
        passed=end["passed"] + (not failed),
        failed=end["failed"] + failed,
        exit_code=1 if failed else end["exit_code"],
    )
    return out[:-1] + [test, end]


def test_the_summary_counts_documented_differences_apart(
    sample_records: list[dict[str, Any]],
) -> None:
    test = prio_record(verdict(HEAD_FIFO, False, "tail"))
    recs = _freertos_run(sample_records, test)
    b = Bundle(system=recs[0], tests=recs[1:-1], end=recs[-1])
    assert count_line(b).startswith("4 tests: 3 passed, 0 failed, 1 differ as their OS documents")
    assert verdict_line(b) is None
    line = difference_line(b)
    assert line is not None and f"THR-B-PRIO {HEAD_FIFO}" in line and "FreeRTOS" in line


def test_exit_code_zero_when_every_failure_is_documented() -> None:
    assert _exit_code(1, True, False, 0, failed=False) == 0
    assert _exit_code(1, True, False, 0, failed=True) == 1
    assert _exit_code(0, True, False, 0, failed=False) == 0
    assert _exit_code(3, True, False, 0, failed=False) == 3  # an error is never excused
    assert _exit_code(1, False, False, 0, failed=False) == 3  # nor an incomplete run


@pytest.mark.parametrize(("seen", "code"), [("tail", 0), ("mixed", 1)])
def test_run_exit_code_from_the_probe_and_the_table(
    cli: Any, sample_records: list[dict[str, Any]], tmp_path: Path, seen: str, code: int
) -> None:
    """The probe says 1 (a verdict did not pass); rtgauge run says 0 when
    FreeRTOS documents what was seen, 1 when it does not."""
    recs = _freertos_run(sample_records, prio_record(verdict(HEAD_FIFO, False, seen)))
    probe = fake_probe(tmp_path, [json.dumps(r) for r in recs], code=1)
    got, out, err = cli(
        "run", "--probe", str(probe), "--results-dir", str(tmp_path / "r"), "--quick"
    )
    assert got == code, err
    if code == 0:
        assert "DIFFERS lowered_thread_goes_to_head_fifo" in out
        assert "differs from POSIX, as FreeRTOS documents" in out
        assert "behaviour verdicts failed" not in out
    else:
        assert "FAIL lowered_thread_goes_to_head_fifo" in out
        assert "behaviour verdicts failed: THR-B-PRIO lowered_thread_goes_to_head_fifo" in out


def test_compare_shows_the_difference_and_no_failure(sample_records: list[dict[str, Any]]) -> None:
    """The same check beside itself: failed on Linux, documented on FreeRTOS."""
    test = prio_record(verdict(HEAD_FIFO, False, "tail"))
    fr = _freertos_run(sample_records, test)
    lx = copy.deepcopy(fr)
    lx[0]["host"]["os"] = "Linux"
    runs = [Run.of(Bundle(system=r[0], tests=r[1:-1], end=r[-1])) for r in (lx, fr)]
    comp = compare(runs)
    (row,) = [cells for tid, name, cells in verdict_table(comp) if name == HEAD_FIFO]
    assert [c.outcome if c else None for c in row] == ["fail", "differs"]
    (_, linux_bad), (_, freertos_bad) = points(comp)
    assert any(f"1 behaviour verdict(s) fail: {HEAD_FIFO}" in p for p in linux_bad)
    assert not any("fail:" in p for p in freertos_bad)
    assert any("as FreeRTOS documents (not failures)" in p for p in freertos_bad)
