"""An interval built from one probe run's records: the test's figures as
interval_figure, real-time only when SCHED_FIFO and mlockall held, the
worst sample as the flight recorder explains it; and the loop that makes
one interval per probe run, in order, with the gap between them."""

from __future__ import annotations

import argparse
import copy
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from rtgauge.analysis.analysed_run import AnalysedRun, window_json
from rtgauge.model import bundle_from_records
from rtgauge.monitor.intervals import TEXT_MAX, Span, culprit_name, interval, utc_ms
from rtgauge.monitor.loop import Monitor, Settings
from rtgauge.monitor.store import IntervalStore
from rtgauge.targets.base import Target

DATA = Path(__file__).parent.parent / "data"
HOG = DATA / "explain" / "hog_run.json"
SCHEMA = json.loads((Path(__file__).parents[2] / "schema" / "result-v1.json").read_text())


def _records() -> list[dict[str, Any]]:
    """The hog run as the probe wrote it: system, its test, end."""
    b = json.loads(HOG.read_text())
    return [b["system"], *b["tests"], b["end"]]


SPAN = Span(1_800_000_000.0, 1_800_000_300.0, 12.5)


def test_the_figures_are_the_tests_metrics_as_interval_figures() -> None:
    records = _records()
    iv = interval(records, SPAN)
    assert iv is not None
    test = records[1]
    assert iv["test"] == "TMR-P-LAT"
    assert [f["name"] for f in iv["figures"]] == [m["name"] for m in test["metrics"]]
    figure_schema = {"$defs": SCHEMA["$defs"], "$ref": "#/$defs/interval_figure"}
    for fig, metric in zip(iv["figures"], test["metrics"], strict=True):
        jsonschema.validate(fig, figure_schema)
        assert set(fig) == set(figure_schema["$defs"]["interval_figure"]["required"])
        for key in ("count", "min", "max", "mean", "p50", "p99_9", "hist"):
            assert fig[key] == metric[key]
    assert (iv["start"], iv["end"]) == ("2027-01-15T08:00:00.000Z", "2027-01-15T08:05:00.000Z")
    assert iv["gap_ms"] == 12.5
    assert iv["rt"] is True


def test_the_worst_is_the_per_cpu_figure_explained_by_its_window() -> None:
    records = _records()
    iv = interval(records, SPAN)
    assert iv is not None
    worst = iv["worst"]
    per_cpu = [m for m in records[1]["metrics"] if not m["name"].endswith(".all")]
    top = max(per_cpu, key=lambda m: m["max"])
    assert (worst["figure"], worst["value_ns"]) == (top["name"], float(top["max"]))
    analysed = AnalysedRun.of(bundle_from_records(records, "hog"))
    explained = analysed.test_explained(analysed.run.tests[0])
    assert explained is not None
    kept = next(w for w in explained.windows if w.explanation.sample_ns == top["max"])
    x = kept.explanation
    assert worst["window"] == json.loads(json.dumps(window_json(kept)))
    assert worst["summary"] == x.culprit
    assert worst["why_not"] is None
    assert x.named is not None and x.named.party[1] is not None
    whom = x.named.party[1]
    assert worst["culprit"] == f"{whom.comm}/{whom.pid}"
    assert re.fullmatch(r"\S+/\d+", worst["culprit"])


def test_not_real_time_when_either_sched_fifo_or_mlockall_was_missing() -> None:
    for where, key, value in (
        (0, "privileges", {"sched_fifo": False}),
        (0, "privileges", {"mlockall": False}),
        (1, "conditions", {"policy": "SCHED_OTHER"}),
        (1, "conditions", {"mlockall": False}),
    ):
        records = _records()
        records[where][key] = {**records[where][key], **value}
        iv = interval(records, SPAN)
        assert iv is not None and iv["rt"] is False, (key, value)


def test_a_worst_without_a_window_says_why_not() -> None:
    records = _records()
    records[1] = copy.deepcopy(records[1])
    records[1]["explain"] = {**records[1]["explain"], "windows": []}
    iv = interval(records, SPAN)
    assert iv is not None
    worst = iv["worst"]
    assert worst["culprit"] is None and worst["window"] is None
    assert worst["why_not"]
    assert worst["summary"].startswith("not explained")


def test_no_test_record_no_interval_and_no_samples_no_worst() -> None:
    records = _records()
    assert interval([records[0], records[2]], SPAN) is None
    empty = copy.deepcopy(records)
    for m in empty[1]["metrics"]:
        m.update(count=0, min=None, max=None, mean=None)
    iv = interval(empty, SPAN)
    assert iv is not None and iv["worst"] is None


def test_a_negative_gap_from_the_hosts_clock_reads_zero_and_times_are_utc_ms() -> None:
    iv = interval(_records(), Span(1_800_000_000.0004, 1_800_000_001.9996, -0.2))
    assert iv is not None and iv["gap_ms"] == 0.0
    assert utc_ms(0.0015) == "1970-01-01T00:00:00.002Z"
    assert utc_ms(1_800_000_000.123) == "2027-01-15T08:00:00.123Z"


def test_a_culprit_without_a_subject_is_said_in_the_explanations_words() -> None:
    analysed = AnalysedRun.of(bundle_from_records(_records(), "hog"))
    explained = analysed.test_explained(analysed.run.tests[0])
    assert explained is not None
    x = explained.windows[0].explanation
    assert x.named is not None
    no_event = copy.copy(x)
    object.__setattr__(no_event, "named", copy.copy(x.named))
    object.__setattr__(no_event.named, "party", ("no-event", None))
    assert culprit_name(no_event, True) == "hypervisor (no kernel event)"
    assert culprit_name(no_event, False) == "no kernel event"
    object.__setattr__(no_event, "named", None)
    assert culprit_name(no_event, True) is None


class ScriptedTarget(Target):
    """Plays the hog run's records once per probe run, its test's duration
    set to what the monitor asked for."""

    def __init__(self, runs: int) -> None:
        self.runs = runs
        self.asked: list[list[str]] = []
        self.monitor: Monitor | None = None

    @classmethod
    def matches(cls, spec: str) -> bool:
        return False

    @classmethod
    def from_args(cls, spec: str, args: argparse.Namespace) -> Target:
        raise NotImplementedError

    def prepare(self) -> None:
        pass

    def run(self, probe_args: list[str]) -> Iterator[str]:
        self.asked.append(probe_args)
        records = _records()
        duration = float(probe_args[probe_args.index("--duration-ms") + 1])
        records[1]["duration_ms"] = duration
        for r in records:
            yield json.dumps(r)
        if len(self.asked) >= self.runs and self.monitor is not None:
            self.monitor.stop()

    def outcome(self) -> tuple[int | None, str | None]:
        return 0, None

    def describe(self) -> dict[str, Any]:
        return {"kind": "scripted", "name": "scripted"}


def test_the_loop_keeps_one_interval_per_probe_run_in_order(tmp_path: Path) -> None:
    target = ScriptedTarget(runs=3)
    store = IntervalStore(tmp_path)
    settings = Settings("TMR-P-LAT", "1", 2000, "line-3", None, 86_400_000)
    out, err = io.StringIO(), io.StringIO()
    monitor = Monitor(target, settings, store, None, None, out, err)
    target.monitor = monitor
    monitor.run()
    assert target.asked == [["--tests", "TMR-P-LAT", "--duration-ms", "2000", "--cpus", "1"]] * 3
    kept = list(store.intervals())
    assert len(kept) == monitor.kept == 3
    assert [iv["host"] for iv in kept] == [_records()[0]["host"]["hostname"]] * 3
    assert {iv["label"] for iv in kept} == {"line-3"}
    starts = [iv["start"] for iv in kept]
    assert starts == sorted(starts) and len(set(starts)) == 3
    assert kept[0]["gap_ms"] == 0.0
    assert all(iv["gap_ms"] >= 0.0 for iv in kept)
    assert len(out.getvalue().splitlines()) == 3


def test_a_probe_that_refuses_its_arguments_is_a_usage_error(tmp_path: Path) -> None:
    from rtgauge.errors import UsageError

    class Refusing(ScriptedTarget):
        def run(self, probe_args: list[str]) -> Iterator[str]:
            yield from ()

        def outcome(self) -> tuple[int | None, str | None]:
            return 2, "rtgauge-probe: error: --cpus: '9' is not an online CPU"

    settings = Settings("TMR-P-LAT", "9", 2000, None, None, 86_400_000)
    monitor = Monitor(
        Refusing(1), settings, IntervalStore(tmp_path), None, None, io.StringIO(), io.StringIO()
    )
    with pytest.raises(UsageError, match="not an online CPU"):
        monitor.run()


def test_long_words_are_cut_to_what_a_server_takes() -> None:
    records = _records()
    records[1] = copy.deepcopy(records[1])
    records[1]["explain"] = {**records[1]["explain"], "windows": [], "why": "x" * 5000}
    records[1]["explain"]["state"] = "off"
    iv = interval(records, SPAN)
    assert iv is not None
    worst = iv["worst"]
    assert len(worst["why_not"]) == TEXT_MAX and worst["why_not"].endswith("x…")
    assert len(worst["summary"]) == TEXT_MAX
