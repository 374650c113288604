"""Importing other tools' results: fixtures recorded with cyclictest on a Linux
machine, rtla output written from its documented format; malformed and
truncated files are one clear error (exit 2), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rtgauge.analysis.ratings import load_criteria, rate
from rtgauge.errors import UsageError
from rtgauge.importers import import_file
from rtgauge.model import Bundle, load_bundle
from rtgauge.run import Run

DATA = Path(__file__).parents[1] / "data" / "import"
FIXTURES = sorted(p.name for p in DATA.iterdir())


def metrics(b: Bundle) -> dict[str, dict[str, Any]]:
    return {m["name"]: m for m in b.tests[0]["metrics"]}


def hist_total(m: dict[str, Any]) -> int:
    return sum(n for _, _, n in m["hist"]["buckets"]) + m["hist"]["overflow"]


@pytest.mark.parametrize("name", FIXTURES)
def test_every_fixture_imports_as_a_valid_bundle(name: str, tmp_path: Path) -> None:
    b = import_file(DATA / name)
    assert b.imported is not None and b.target["kind"] == "import"
    out = tmp_path / "b.json"
    out.write_text(json.dumps(b.to_json()))
    again = load_bundle(out)  # the schema check of a stored bundle passes
    assert again.imported == b.imported
    for m in metrics(again).values():
        assert m["count"] == hist_total(m) > 0
        assert m["min"] <= m["max"]


def test_cyclictest_json_keeps_counts_extremes_and_conditions() -> None:
    b = import_file(DATA / "cyclictest-h200.json")
    raw = json.loads((DATA / "cyclictest-h200.json").read_text())
    m = metrics(b)
    t0 = raw["thread"]["0"]
    got = m["timer.wakeup.clock_nanosleep.thread0"]
    assert got["count"] == t0["cycles"]
    assert got["max"] == t0["max"] * 1000 and got["min"] == t0["min"] * 1000
    assert got["mean"] == pytest.approx(t0["avg"] * 1000)
    held = sum(t0["histogram"].values())
    # The cycles the sparse histogram does not hold lie above its last bucket.
    top = got["hist"]["buckets"][-1]
    assert top[2] == t0["cycles"] - held and top[1] == t0["max"] * 1000 + 1
    assert m["timer.wakeup.clock_nanosleep.all"]["count"] == sum(
        t["cycles"] for t in raw["thread"].values()
    )
    assert b.system["host"]["release"] == raw["sysinfo"]["release"]
    assert b.tests[0]["conditions"]["policy"] == "SCHED_FIFO"
    assert b.tests[0]["conditions"]["prio"] == 95 and b.imported is not None
    assert b.imported["conditions_known"] is True
    assert b.system["kernel"]["preempt_model"] is None  # realtime 0 says not RT, not which
    assert b.system["virtualization"]["hypervisor"] is None


@pytest.mark.parametrize("when", ["Mon, 23 Nov 99999999999 16:22:46 +0000", "yesterday", 7])
def test_a_start_time_datetime_cannot_hold_is_unknown_not_a_traceback(
    when: object, tmp_path: Path
) -> None:
    raw = json.loads((DATA / "cyclictest-h200.json").read_text())
    raw["start_time"] = when
    f = tmp_path / "h.json"
    f.write_text(json.dumps(raw))
    b = import_file(f)
    assert b.system.get("started_at") is None
    assert (
        metrics(b)["timer.wakeup.clock_nanosleep.thread0"]["count"] == raw["thread"]["0"]["cycles"]
    )


def test_cyclictest_json_without_histogram_has_no_percentiles() -> None:
    m = metrics(import_file(DATA / "cyclictest-nohist.json"))
    got = m["timer.wakeup.clock_nanosleep.thread0"]
    assert got["p50"] is None and got["p99"] is None and got["max"] is not None
    assert len(got["hist"]["buckets"]) == 1  # all samples between min and max


def test_cyclictest_hist_matches_the_footer() -> None:
    text = (DATA / "cyclictest-h200.txt").read_text()
    totals = [int(v) for v in text.split("# Total:")[1].splitlines()[0].split()]
    overflows = [int(v) for v in text.split("# Histogram Overflows:")[1].splitlines()[0].split()]
    b = import_file(DATA / "cyclictest-h200.txt")
    m = metrics(b)
    for i in range(2):
        assert m[f"timer.wakeup.clock_nanosleep.thread{i}"]["count"] == totals[i] + overflows[i]
    assert b.imported is not None and b.imported["conditions_known"] is False
    assert b.tests[0]["conditions"]["policy"] == "SCHED_OTHER"
    assert any("not recorded" in n for n in b.tests[0]["notes"])


def test_cyclictest_hist_with_all_threads_column() -> None:
    m = metrics(import_file(DATA / "cyclictest-h200-H.txt"))
    whole = m["timer.wakeup.clock_nanosleep.all"]
    assert whole["count"] == sum(
        m[f"timer.wakeup.clock_nanosleep.thread{i}"]["count"] for i in range(2)
    )
    assert whole["min"] is not None and whole["mean"] is not None


def test_rtla_timerlat_columns_per_cpu() -> None:
    b = import_file(DATA / "rtla-timerlat-hist.txt")
    m = metrics(b)
    assert b.tests[0]["id"] == "IRQ-P-LAT"
    assert {"irq.service.timerlat_irq.cpu0", "irq.task.timerlat_thread.cpu1"} <= set(m)
    assert m["irq.task.timerlat_user.cpu1"]["max"] == 76_000
    assert m["irq.task.timerlat_thread.cpu1"]["count"] == 5002  # two beyond the histogram
    assert b.tests[0]["conditions"]["cpus"] == [0, 1]


def test_rtla_osnoise() -> None:
    b = import_file(DATA / "rtla-osnoise-hist.txt")
    assert b.tests[0]["id"] == "CLK-P-DUR"
    assert metrics(b)["clock.gap.osnoise.cpu0"]["count"] == 300


def test_rtla_nanoseconds_and_bucket_size(tmp_path: Path) -> None:
    f = tmp_path / "ns.txt"
    f.write_text(
        "# RTLA timerlat histogram\n# Time unit is nanoseconds (ns)\nIndex IRQ-000\n"
        "0 5\n100 2\n300 1\nover: 1\ncount: 9\nmin: 10\navg: 90\nmax: 900\n"
    )
    m = metrics(import_file(f))["irq.service.timerlat_irq.cpu0"]
    assert m["hist"]["buckets"] == [[0, 100, 5], [100, 200, 2], [300, 400, 1], [400, 901, 1]]
    assert m["max"] == 900 and m["count"] == 9


def test_an_imported_run_is_not_rated_on_timing_without_its_conditions() -> None:
    run = Run.of(import_file(DATA / "cyclictest-h200.txt"))
    cond = run.conditions
    assert not cond.timing_rateable and not cond.deadline_verdict_allowed
    assert cond.unrecorded == "cyclictest -h histogram"
    ratings = rate(run, load_criteria())
    assert ratings and all(r.stars is None and "does not record" in r.why for r in ratings)
    # cyclictest --json records them (its command line, return code 0): rated
    known = Run.of(import_file(DATA / "cyclictest-h200.json")).conditions
    assert known.unrecorded is None and known.rt_policy_ok and known.mlock_ok


BAD = [
    ("empty.txt", "", "empty file"),
    ("garbage.txt", "hello world\n", "not a format rtgauge imports"),
    ("cut.json", '{"file_version": 1, "rt_test_version:": "2.4", "thread": {"0": {', "not JSON"),
    ("nothread.json", '{"file_version": 1, "rt_test_version:": "2.4"}', "no 'thread'"),
    (
        "badnum.json",
        '{"file_version": 1, "thread": {"0": {"histogram": {}, "cycles": "x"}}}',
        "cycles is not a number",
    ),
    (
        "negative.json",
        '{"file_version": 1, "thread": {"0": {"histogram": {"1": -5}, "cycles": 2,'
        ' "min": 1, "max": 1, "avg": 1}}}',
        "bucket 1 is not a number of 0 or more",
    ),
    ("rtla-neg.txt", "# RTLA timerlat histogram\nIndex IRQ-000\n0 -5\n", "not a number"),
    (
        "toomany.json",
        '{"file_version": 1, "thread": {"0": {"histogram": {"1": 5}, "cycles": 2,'
        ' "min": 1, "max": 1, "avg": 1}}}',
        "more than 2 cycles",
    ),
    ("nofoot.txt", "# Histogram\n000000 000001\n000001 000002\n", "truncated"),
    ("badline.txt", "# Histogram\n000000 000001\nzz 1\n", "not a histogram line"),
    ("rtla-cut.txt", "# RTLA timerlat histogram\nIndex IRQ-000\n0 5\nover: 0\n", "truncated"),
    ("rtla-cols.txt", "# RTLA timerlat histogram\nIndex IRQ-000 Thr-000\n0 5\n", "truncated?"),
    ("rtla-head.txt", "# RTLA timerlat histogram\n0 5\n", "no 'Index' header"),
    ("binary.txt", "\udcff", "not UTF-8"),
]


@pytest.mark.parametrize(("name", "text", "message"), BAD)
def test_malformed_files_are_one_line_errors(
    name: str, text: str, message: str, tmp_path: Path, cli: Any
) -> None:
    f = tmp_path / name
    f.write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(UsageError, match=message.replace("?", r"\?")):
        import_file(f)
    code, _, err = cli("import", str(f), "--results-dir", str(tmp_path / "store"))
    assert code == 2 and err.startswith("rtgauge: error:") and err.count("\n") == 1


@pytest.mark.parametrize("name", FIXTURES)
def test_every_truncation_is_an_error_or_a_consistent_run(name: str, tmp_path: Path) -> None:
    """Cut each fixture at many points: a clean error, or (a cut that happens
    to end a self-consistent file) a bundle whose counts add up."""
    data = (DATA / name).read_bytes()
    f = tmp_path / name
    for cut in range(1, len(data), max(1, len(data) // 60)):
        f.write_bytes(data[:cut])
        try:
            b = import_file(f)
        except UsageError as exc:
            assert "\n" not in str(exc)
            continue
        for m in metrics(b).values():
            assert m["count"] == hist_total(m)


def test_import_stores_and_indexes_with_a_label(tmp_path: Path, cli: Any) -> None:
    code, out, _ = cli(
        "import", str(DATA / "cyclictest-h200.json"), "--results-dir", str(tmp_path),
        "--label", "from-ct",
    )  # fmt: skip
    assert code == 0 and "imported from cyclictest --json" in out
    code, out, _ = cli("runs", "--results-dir", str(tmp_path), "--label", "from-ct")
    assert code == 0 and "import" in out and "from-ct" in out


def test_the_report_of_an_import_says_what_is_unknown() -> None:
    from rtgauge.report.formats import EXPORTERS
    from rtgauge.report.run_report import bundle_report

    md = EXPORTERS["md"].render(bundle_report(import_file(DATA / "cyclictest-h200.txt")))
    assert "imported from cyclictest -h histogram" in md
    assert "| CPUs | unknown: not in the imported file |" in md
    assert "| obtained | unknown: not in the imported file |" in md
