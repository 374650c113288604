"""Long runs on the host: --duration and --interval as spans, interval records
checked against the contract, a test rebuilt from its intervals when its own
record never came, and the progress line they feed."""

from __future__ import annotations

import io
import math
import random
from typing import Any

import pytest

from rtgauge.cli.spans import MAX_MS, duration_ms, interval_ms, span_ms
from rtgauge.errors import UsageError
from rtgauge.intervals import rebuilt_test, with_rebuilt_tests
from rtgauge.model import Bundle, TestRecord, check_record
from rtgauge.report.progress import Progress

SUB_BITS = 7
SUB = 1 << SUB_BITS


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("90s", 90_000),
        ("30m", 1_800_000),
        ("24h", 86_400_000),
        ("7d", MAX_MS),
        ("1.5h", 5_400_000),
        ("100ms", 100),
        (" 10s ", 10_000),
    ],
)
def test_spans_read_with_their_unit(text: str, ms: int) -> None:
    assert span_ms(text, "--duration") == ms


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("24", "give a number and a unit"),
        ("10x", "give a number and a unit"),
        ("-5s", "give a number and a unit"),
        ("", "give a number and a unit"),
        ("8d", "from 100 ms to 7 d"),
        ("50ms", "from 100 ms to 7 d"),
        ("0s", "from 100 ms to 7 d"),
    ],
)
def test_bad_spans_are_one_line_naming_the_flag(text: str, says: str) -> None:
    with pytest.raises(UsageError) as err:
        duration_ms(text)
    message = str(err.value)
    assert message.startswith(f"--duration {text!r}: ") and says in message
    assert "\n" not in message


def test_an_interval_of_zero_is_none() -> None:
    assert interval_ms("0") == 0 and interval_ms("none") == 0 and interval_ms("1s") == 1000
    with pytest.raises(UsageError, match=r"^--interval '1x': "):
        interval_ms("1x")


def bucket(v: int) -> tuple[int, int]:
    """The probe's log-linear bucket of v (rtg_hist_index, low and high)."""
    if v < 2 * SUB:
        return v, v + 1
    group = v.bit_length() - 1 - SUB_BITS
    low = (v >> group) << group
    return low, low + (1 << group)


def interval_record(
    seq: int, samples: dict[str, list[int]], every_ms: float = 1000.0, planned_ms: float = 10_000.0
) -> dict[str, Any]:
    figures = []
    for name, values in samples.items():
        counts: dict[tuple[int, int], int] = {}
        for v in values:
            counts[bucket(v)] = counts.get(bucket(v), 0) + 1
        n = len(values)
        figures.append(
            {
                "name": name,
                "unit": "ns",
                "count": n,
                "min": min(values) if n else None,
                "max": max(values) if n else None,
                "mean": sum(values) / n if n else None,
                "p50": None,
                "p90": None,
                "p99": None,
                "p99_9": None,  # not what the rebuild reads
                "hist": {
                    "kind": "loglinear",
                    "sub_bucket_bits": SUB_BITS,
                    "buckets": [[lo, hi, c] for (lo, hi), c in sorted(counts.items())],
                    "overflow": 0,
                    "overflow_above": 1 << 35,
                },
            }
        )
    record = {
        "record": "interval",
        "schema_version": 1,
        "id": "TMR-P-LAT",
        "title": "Periodic wake-up latency per CPU",
        "kind": "P",
        "family_title": "Timers",
        "release_latency": "timer.wakeup.",
        "seq": seq,
        "interval_ms": every_ms,
        "planned_ms": planned_ms,
        "from_ms": seq * every_ms,
        "to_ms": (seq + 1) * every_ms,
        "options": {"period_us": 1000, "duration_ms": planned_ms},
        "conditions": {
            "policy": "SCHED_FIFO",
            "prio": 95,
            "mlockall": True,
            "cpus": [0, 1],
            "virtualized": False,
        },
        "figures": figures,
    }
    return check_record(record, "interval")  # fits the contract


def expected_percentile(values: list[int], q: float) -> int:
    """The sample at rank ceil(q n), as its bucket's upper bound minus one, at most the max."""
    ranked = sorted(values)
    v = ranked[max(1, math.ceil(q * len(ranked))) - 1]
    return min(bucket(v)[1] - 1, ranked[-1])


def test_a_test_is_rebuilt_from_its_intervals() -> None:
    rng = random.Random(7)
    names = ("timer.wakeup.clock_nanosleep.cpu0", "timer.wakeup.clock_nanosleep.cpu1")
    all_samples: dict[str, list[int]] = {n: [] for n in names}
    records = []
    for seq in range(3):
        chunk = {
            n: [int(rng.lognormvariate(9, 0.6)) for _ in range(700 + 100 * seq)] for n in names
        }
        for n in names:
            all_samples[n] += chunk[n]
        records.append(interval_record(seq, chunk))
    test = TestRecord.read(check_record(rebuilt_test(records), "rebuilt"))
    assert test.status == "interrupted"
    assert test.reason == (
        "stopped after 3 s of 10 s: its figures are those of the 3 intervals recorded"
    )
    assert test.duration_ms == 3000 and test.release_latency == "timer.wakeup."
    everything = [v for n in names for v in all_samples[n]]
    for name, values in [*all_samples.items(), ("timer.wakeup.clock_nanosleep.all", everything)]:
        m = test.metric(name)
        assert m is not None, name
        assert m.count == len(values) and m.min == min(values) and m.max == max(values)
        assert m.mean == pytest.approx(sum(values) / len(values), rel=1e-12)
        assert m.hist.total == len(values)
        for key, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99_9", 0.999)):
            assert m.stat(key) == expected_percentile(values, q), (name, key)
        assert m.p99_99 is None  # fewer than 10 000 samples cannot back it
    assert test.headline is not None and test.headline.name.endswith(".all")


def test_only_a_test_without_figures_is_rebuilt() -> None:
    records = [interval_record(s, {"timer.wakeup.x.cpu0": [1000 + s, 2000]}) for s in range(2)]
    system: dict[str, Any] = {"record": "system"}
    done = dict(rebuilt_test(records), status="ok", reason=None)  # its own record came
    kept = with_rebuilt_tests(Bundle(system=system, tests=[done], intervals=records))
    assert kept == [done]
    crashed = dict(done, status="error", reason="crashed (SIGSEGV)", metrics=[])
    (rebuilt,) = with_rebuilt_tests(Bundle(system=system, tests=[crashed], intervals=records))
    assert rebuilt["status"] == "error" and rebuilt["metrics"][0]["count"] == 4
    assert rebuilt["reason"].startswith("crashed (SIGSEGV); stopped after 2 s of 10 s")
    (lost,) = with_rebuilt_tests(Bundle(system=system, intervals=records))
    assert lost["status"] == "interrupted" and lost["metrics"][0]["max"] == 2000


def test_an_interval_record_that_breaks_the_contract_is_refused() -> None:
    good = interval_record(0, {"timer.wakeup.x.cpu0": [5]})
    with pytest.raises(UsageError, match="invalid interval at figures/0"):
        check_record(good | {"figures": [{"name": "timer.wakeup.x.cpu0"}]}, "line 2")
    with pytest.raises(UsageError, match="invalid interval at seq"):
        check_record(good | {"seq": -1}, "line 2")


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_says_time_measured_worst_so_far_and_time_left() -> None:
    out = Tty()
    p = Progress(out)
    p.planned = ["TMR-P-LAT"]
    day = 86_400_000.0
    first = interval_record(0, {"timer.wakeup.x.cpu0": [20_000, 45_200]}, 300_000.0, day)
    p.update(first)
    p.update(interval_record(36, {"timer.wakeup.x.cpu0": [30_000]}, 300_000.0, day))
    p.done()
    text = out.getvalue()
    assert "\n" not in text.rstrip("\n") and text.count("\r") == 2  # one line, rewritten
    last = text.rsplit("\r", 1)[1]
    assert "[1/1] TMR-P-LAT 3 h 05 min of 24 h, max 45.2 µs, 20 h 55 min left" in last


def test_progress_off_a_terminal_writes_no_interval_lines() -> None:
    out = io.StringIO()
    p = Progress(out)
    p.update(interval_record(0, {"timer.wakeup.x.cpu0": [20_000]}))
    assert out.getvalue() == ""


def test_blocks_of_two_spans_are_compared_at_the_longer() -> None:
    from rtgauge.analysis.tail_data import at_span, same_span
    from rtgauge.model import Blocks

    short = Blocks(100.0, 1e5, [i * 100.0 for i in range(8)], [100] * 8,
                   [float(10 + i % 4) for i in range(8)], [i % 2 for i in range(8)])  # fmt: skip
    long = Blocks(400.0, 1e5, [0.0, 400.0], [400, 400], [50.0, 60.0], [0, 1])
    merged = at_span(short, 400.0)
    assert merged.start_ms == [0.0, 400.0] and merged.count == [400, 400]
    assert merged.maxima == [13.0, 13.0] and merged.above == [2, 2]
    a, b = same_span(short, long)
    assert a == merged and b == long
    assert at_span(long, 100.0) == long  # never split: a block's samples are not kept


@pytest.mark.parametrize(
    ("target", "interval", "expected"),
    [
        ("local", None, None),
        ("local", 10_000, "10000"),
        ("freertos-qemu", None, "60000"),  # a board is given up after minutes of silence
        ("qemu:bzImage", 0, "0"),  # --interval says otherwise: it wins
    ],
)
def test_a_target_other_than_this_machine_hears_every_minute(
    target: str, interval: int | None, expected: str | None
) -> None:
    import argparse

    from rtgauge.cli.run import add_arguments, probe_args

    p = argparse.ArgumentParser()
    add_arguments(p)
    args = p.parse_args(["--target", target, "--duration", "2h"])
    args.interval = interval
    out = probe_args(args)
    got = out[out.index("--interval-ms") + 1] if "--interval-ms" in out else None
    assert got == expected and out[out.index("--duration-ms") + 1] == "7200000"


def test_a_short_run_on_a_board_asks_for_no_intervals() -> None:
    import argparse

    from rtgauge.cli.run import add_arguments, probe_args

    p = argparse.ArgumentParser()
    add_arguments(p)
    for argv in (["--target", "freertos-qemu"], ["--target", "freertos-qemu", "--duration", "30s"]):
        assert "--interval-ms" not in probe_args(p.parse_args(argv))
