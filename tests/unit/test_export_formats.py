"""Formats other systems read: JUnit XML, LAVA test-case lines, cyclictest's
histogram layout (round trip: export then import gives the same counts)."""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from history_bundles import body, latency

from rtgauge.errors import UsageError
from rtgauge.importers import import_file
from rtgauge.model import Bundle, bundle_from_records
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import bundle_report

DATA = Path(__file__).parents[1] / "data" / "import"
HOSTILE = "<x>&\x01\x1b[31m"


def _bundle(records: list[dict[str, Any]], fail: bool = False, skip: bool = False) -> Bundle:
    recs = copy.deepcopy(records)
    recs[0]["host"]["hostname"] = HOSTILE
    for r in recs:
        if r.get("id") == "SEM-B-LCK" and fail:
            r["verdicts"][1]["pass"] = False
            r["verdicts"][1]["observed"] = f"blocked {HOSTILE}"
            r["status"] = "fail"
        if r.get("id") == "CLK-P-RES" and skip:
            r.update(status="skipped", reason="no such clock here", metrics=[])
    return bundle_from_records(recs, "x")


def test_junit_is_xml_with_failures_skips_and_deadlines(
    sample_records: list[dict[str, Any]],
) -> None:
    b = _bundle(sample_records, fail=True, skip=True)
    text = EXPORTERS["junit"].render(bundle_report(b, 10_000.0, 1e-3))
    root = ET.fromstring(text)  # valid XML, the control bytes included
    suite = root.find("testsuite")
    assert suite is not None and suite.get("hostname", "").startswith("<x>&")
    cases = suite.findall("testcase")
    failed = [c for c in cases if c.find("failure") is not None]
    names = {c.get("name") for c in failed}
    assert "p_on_zero_blocks" in names  # the verdict we made fail
    failure = next(c for c in failed if c.get("name") == "p_on_zero_blocks").find("failure")
    assert failure is not None and "evidence" in (failure.text or "")
    skipped = [c for c in cases if c.find("skipped") is not None]
    assert any("no such clock here" in (c.find("skipped").get("message") or "") for c in skipped)  # type: ignore[union-attr]
    deadline = [c for c in cases if (c.get("classname") or "").startswith("rtgauge.deadline.")]
    assert deadline  # TMR-P-LAT at 10 µs
    passing = [c for c in cases if c.get("name") == "v_increments"]
    assert passing and not list(passing[0])
    assert int(root.get("failures", "0")) == len(failed)
    assert int(root.get("tests", "0")) == len(cases)


def test_junit_of_a_clean_run_has_no_failure(sample_records: list[dict[str, Any]]) -> None:
    root = ET.fromstring(EXPORTERS["junit"].render(bundle_report(_bundle(sample_records))))
    assert root.get("failures") == "0" and int(root.get("tests", "0")) >= 6


LAVA = re.compile(
    r"^lava-test-case [A-Za-z0-9._-]+ --result (pass|fail|skip)"
    r"( --measurement [0-9.e+-]+ --units (us|%))?$"
)


def test_lava_lines(sample_records: list[dict[str, Any]]) -> None:
    b = _bundle(sample_records, fail=True, skip=True)
    lines = EXPORTERS["lava"].render(bundle_report(b, 50_000.0)).splitlines()
    assert lines and all(LAVA.match(x) for x in lines), [x for x in lines if not LAVA.match(x)]
    assert "lava-test-case SEM-B-LCK.p_on_zero_blocks --result fail" in lines
    assert "lava-test-case CLK-P-RES --result skip" in lines
    tmr = [x for x in lines if x.startswith("lava-test-case TMR-P-LAT.timer.wakeup")]
    assert any(".all.max --result" in x and "--units us" in x for x in tmr)
    assert any(x.endswith("--units %") for x in tmr)  # the deadline verdicts


def test_cyclictest_hist_round_trip_of_a_run(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    b = bundle_from_records(sample_records, "x")
    text = EXPORTERS["cyclictest-hist"].render(bundle_report(b))
    f = tmp_path / "out.hist.txt"
    f.write_text(text)
    back = {m["name"]: m for m in import_file(f).tests[0]["metrics"]}
    tmr = next(t for t in b.tests if t["id"] == "TMR-P-LAT")
    for cpu in (0, 1):
        orig = next(m for m in tmr["metrics"] if m["name"].endswith(f".cpu{cpu}"))
        got = back[f"timer.wakeup.clock_nanosleep.thread{cpu}"]
        assert got["count"] == orig["count"]
        assert got["max"] == orig["max"] // 1000 * 1000
        # per µs, the same counts (the run's buckets are narrower than 1 µs here)
        per_us: dict[int, int] = {}
        for _, hi, n in orig["hist"]["buckets"]:
            k = min(hi - 1, orig["max"]) // 1000
            per_us[k] = per_us.get(k, 0) + n
        assert {lo // 1000: n for lo, _, n in got["hist"]["buckets"]} == per_us


@pytest.mark.parametrize("name", ["cyclictest-h200.txt", "cyclictest-h200.json"])
def test_cyclictest_hist_round_trip_of_an_import(name: str, tmp_path: Path) -> None:
    first = import_file(DATA / name)
    f = tmp_path / "again.txt"
    f.write_text(EXPORTERS["cyclictest-hist"].render(bundle_report(first)))
    second = import_file(f)
    a = [m for m in first.tests[0]["metrics"] if not m["name"].endswith(".all")]
    b = [m for m in second.tests[0]["metrics"] if not m["name"].endswith(".all")]
    assert [m["count"] for m in a] == [m["count"] for m in b]
    assert [m["max"] for m in a] == [m["max"] for m in b]
    # Within the source's 1 µs buckets, the same counts; the samples it only
    # counted as beyond its range are written at its maximum (never lower).
    for before, after in zip(a, b, strict=True):
        exact = [x for x in before["hist"]["buckets"] if x[1] - x[0] == 1000]
        assert exact == after["hist"]["buckets"][: len(exact)]
        rest = sum(x[2] for x in before["hist"]["buckets"][len(exact) :])
        assert sum(x[2] for x in after["hist"]["buckets"][len(exact) :]) == rest


def test_cyclictest_hist_beyond_its_range_is_overflow(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    recs = copy.deepcopy(sample_records)
    tmr = next(r for r in recs if r.get("id") == "TMR-P-LAT")
    tmr["metrics"] = [latency(body(500, far=20_000), "timer.wakeup.clock_nanosleep.cpu0")]
    text = EXPORTERS["cyclictest-hist"].render(bundle_report(bundle_from_records(recs, "x")))
    assert text.count("\n") > 10_000 - 1  # 10 000 lines of 1 µs, then the footer
    assert "# Histogram Overflows: 00001" in text


def test_cyclictest_hist_needs_a_latency_test(sample_records: list[dict[str, Any]]) -> None:
    recs = [r for r in sample_records if r.get("id") != "TMR-P-LAT"]
    with pytest.raises(UsageError, match="no wake-up latency"):
        EXPORTERS["cyclictest-hist"].render(bundle_report(bundle_from_records(recs, "x")))


def test_a_deadline_the_run_cannot_claim_is_skipped(sample_records: list[dict[str, Any]]) -> None:
    recs = copy.deepcopy(sample_records)
    recs[0]["privileges"]["sched_fifo"] = False  # not real-time: a met deadline is not claimed
    report = bundle_report(bundle_from_records(recs, "x"), 10_000_000.0, 1e-3)
    root = ET.fromstring(EXPORTERS["junit"].render(report))
    deadline = [
        c
        for c in root.iter("testcase")
        if (c.get("classname") or "").startswith("rtgauge.deadline")
    ]
    assert deadline and all(c.find("skipped") is not None for c in deadline)
    assert "not claimed" in (deadline[0].find("skipped").get("message") or "")  # type: ignore[union-attr]
    lava = EXPORTERS["lava"].render(report).splitlines()
    assert [x for x in lava if ".deadline --result skip" in x]
