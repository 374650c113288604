"""The server's monitored intervals, the pure parts and the store's: the
payload's schema, the long view's downsampling, the alert rules, their
state machine and tail test, incidents in a store, retention."""

from __future__ import annotations

import copy
import json
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from rtgauge.errors import UsageError
from rtgauge.server.alert_rules import parse_rules
from rtgauge.server.alert_state import step, tail_threshold, tail_worse
from rtgauge.server.alerting import Alerts
from rtgauge.server.housekeeping import Housekeeping
from rtgauge.server.interval_intake import check_payload
from rtgauge.server.long_view import MergedHistogram, downsample
from rtgauge.server.webhook import ATTEMPTS, Webhooks
from rtgauge.store import open_store
from rtgauge.store.intervals_table import Point

ROOT = Path(__file__).parents[2]
T0 = datetime(2026, 11, 1)


def hist(buckets: dict[tuple[int, int], int]) -> dict[str, Any]:
    return {
        "kind": "loglinear",
        "sub_bucket_bits": 7,
        "buckets": [[lo, hi, n] for (lo, hi), n in sorted(buckets.items())],
        "overflow": 0,
        "overflow_above": 1 << 35,
    }


def figure(max_ns: float, buckets: dict[tuple[int, int], int] | None = None) -> dict[str, Any]:
    b = buckets or {(4000, 4032): 999, (int(max_ns) // 64 * 64, int(max_ns) // 64 * 64 + 64): 1}
    count = sum(b.values())
    return {"name": "timer.wakeup.cpu0", "unit": "ns", "count": count, "min": 4000.0, "max": max_ns,
            "mean": 4100.0, "p50": 4031.0, "p90": 4031.0, "p99": 4031.0, "p99_9": None, "hist": hist(b)}  # fmt: skip


def interval(i: int, max_ns: float, culprit: str = "hog/1", **fig: Any) -> dict[str, Any]:
    start = T0 + timedelta(minutes=5 * i)
    return {
        "start": start.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "end": (start + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "test": "TMR-P-LAT",
        "gap_ms": 0.0,
        "rt": True,
        "figures": [figure(max_ns, **fig)],
        "worst": {
            "figure": "timer.wakeup.cpu0",
            "value_ns": max_ns,
            "culprit": culprit,
            "summary": f"{culprit} ran",
            "window": None,
            "why_not": None,
        },  # fmt: skip
    }


def payload(*intervals: dict[str, Any], label: str | None = "L") -> dict[str, Any]:
    return {
        "kind": "rtgauge-intervals",
        "version": 1,
        "host": "vm",
        "label": label,
        "intervals": list(intervals),
    }


# -- the payload's schema -------------------------------------------------------


def test_the_packaged_schema_is_the_schema() -> None:
    packaged = ROOT / "src" / "rtgauge" / "data" / "intervals-v1.json"
    assert packaged.read_text() == (ROOT / "schema" / "intervals-v1.json").read_text()
    assert '"$ref": "result-v1#/$defs/interval_figure"' in packaged.read_text()


def test_a_payload_of_the_interface_passes() -> None:
    p = payload(interval(0, 20_000), interval(1, 90_000))
    assert check_payload(p) is p
    assert check_payload(payload(interval(0, 1), label=None))["label"] is None


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (
            lambda p: p["intervals"][0]["figures"][0].update(unit="us"),
            "at intervals/0/figures/0/unit",
        ),
        (
            lambda p: p["intervals"][0]["figures"][0]["hist"].update(kind="linear"),
            "figures/0/hist/kind",
        ),
        (lambda p: p["intervals"][0]["figures"][0].update(name="Timer Wakeup"), "figures/0/name"),
        (lambda p: p["intervals"][0].pop("rt"), "'rt' is a required property"),
        (lambda p: p["intervals"][0].update(start="2026-11-01 00:00:00"), "intervals/0/start"),
        (lambda p: p.update(version=2), "at version"),
        (lambda p: p.update(label=""), "at label"),
        (lambda p: p.update(host="a/../b"), "is not a host name"),
        (lambda p: p["intervals"][0].update(end="2026-10-01T00:00:00.000Z"), "is before start"),
        (lambda p: p.update(intervals=[]), "at intervals"),
    ],
)
def test_a_payload_that_breaks_a_rule_is_refused_saying_where(change: Any, said: str) -> None:
    p = payload(interval(0, 20_000))
    change(p)
    with pytest.raises(UsageError, match=None) as got:
        check_payload(p)
    assert said in str(got.value) and "\n" not in str(got.value)


# -- downsampling -----------------------------------------------------------------


def test_a_short_series_is_kept_whole() -> None:
    pts = [Point(i, T0 + timedelta(minutes=5 * i), 1000.0 + i, True) for i in range(50)]
    assert downsample(pts, 100) == pts


def test_downsampling_keeps_every_stretchs_maximum_with_its_interval() -> None:
    rng = random.Random(7)
    pts = [
        Point(i, T0 + timedelta(minutes=5 * i), rng.uniform(10_000, 20_000), True)
        for i in range(52_560)
    ]
    spikes = {rng.randrange(len(pts)) for _ in range(40)}
    pts = [Point(p.id, p.start, 500_000.0 + p.id, True) if p.id in spikes else p for p in pts]
    shown = downsample(pts, 2000)
    assert len(shown) <= 2000
    by_id = {p.id: p for p in pts}
    assert all(by_id[p.id] == p for p in shown) and shown == sorted(shown, key=lambda p: p.start)
    # every spike is far above the rest: each is its stretch's maximum, kept with its id
    # (two spikes in one stretch: the larger)
    kept = {p.id for p in shown}
    for s in spikes:
        near = [t for t in spikes if abs(t - s) < len(pts) / 2000 * 2 and t != s]
        assert s in kept or any(t > s for t in near)
    assert max(shown, key=lambda p: p.max_ns).id == max(spikes)


# -- alert rules ------------------------------------------------------------------

GOOD_RULES = """
[labels."line-3"]
max_above = "100us"
tail_worse = { reference = "7d", quantile = "p99.9", p = 0.01 }
webhook = "http://127.0.0.1:9/hook"
clear_after = 3
"""


def test_rules_are_read_with_their_units() -> None:
    rules = parse_rules(GOOD_RULES, "alerts.toml")["line-3"]
    assert rules.max_above_ns == 100_000 and rules.clear_after == 3
    assert rules.tail_worse is not None and rules.tail_worse.reference == timedelta(days=7)
    assert rules.tail_worse.q == 0.999 and rules.tail_worse.p == 0.01
    assert rules.kinds() == ["max_above", "tail_worse"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[labels."a"]\nmax_abov = "1us"', "unknown key 'max_abov'"),
        ('[labels."a"]\nmax_above = "1 parsec"', "not a latency"),
        ('[labels."a"]\nmax_above = "1us"\nwebhook = "ftp://x"', "http:// or https://"),
        ('[labels."a"]\ntail_worse = {p = 0.7}', "a probability"),
        ('[labels."a"]\ntail_worse = {quantile = "p42"}', "one of p99, p99.9, p99.99"),
        ('[labels."a"]\nmax_above = "1us"\nclear_after = 0', "clear_after"),
        ('[labels."a"]\nwebhook = "http://x"', "no rule"),
        ("[rules]\nx = 1", "unknown table 'rules'"),
        ("[labels", "not TOML"),
    ],
)
def test_a_bad_rules_file_is_one_line_saying_what(text: str, said: str) -> None:
    with pytest.raises(UsageError) as got:
        parse_rules(text, "alerts.toml")
    assert said in str(got.value) and "\n" not in str(got.value)


# -- the state machine -------------------------------------------------------------


def test_an_incident_fires_once_clears_once_and_fires_again() -> None:
    state: int | None = None
    events = []
    for bad in [False, True, True, False, True, False, False, False, False, True, False]:
        state, event = step(state, bad, clear_after=3)
        events.append(event)
    assert events == [None, "fired", None, None, None, None, None, "cleared", None, "fired", None]


# -- the tail test -----------------------------------------------------------------


def merged(buckets: dict[tuple[int, int], int]) -> MergedHistogram:
    m = MergedHistogram()
    m.add(hist(buckets))
    return m


REFERENCE = {(4000, 4032): 9_990_000, (12000, 12096): 9_000, (30000, 30208): 1_000}


def test_the_threshold_is_the_references_quantile_at_a_bucket_edge() -> None:
    assert tail_threshold(merged(REFERENCE), 0.999) == 12000  # 10,000 of 10 million at or above
    assert tail_threshold(merged(REFERENCE), 0.9999) == 30000


def test_an_interval_as_the_reference_is_not_worse_and_ten_times_its_tail_is() -> None:
    same = merged({(4000, 4032): 59_940, (12000, 12096): 60})
    got = tail_worse(merged(REFERENCE), same, 0.999, 0.01)
    assert got is not None and not got.worse and got.above == 60 and got.count == 60_000
    worse = merged({(4000, 4032): 59_400, (12000, 12096): 600})
    got = tail_worse(merged(REFERENCE), worse, 0.999, 0.01)
    assert got is not None and got.worse and got.p_value < 1e-10


def test_a_reference_too_small_for_its_quantile_judges_nothing() -> None:
    assert tail_worse(merged({(4000, 4032): 5000}), merged({(9000, 9064): 10}), 0.999, 0.01) is None


# -- incidents in a store ----------------------------------------------------------


class Recorded(Webhooks):
    """Webhooks kept in a list instead of sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def send(self, url: str, payload: dict[str, Any]) -> None:
        self.sent.append((url, payload))


def test_a_run_of_bad_intervals_is_one_incident_in_the_store(tmp_path: Path) -> None:
    rules = parse_rules(GOOD_RULES.replace("tail_worse", "# tail_worse"), "alerts.toml")
    hooks = Recorded()
    maxima = [20e3, 150e3, 170e3, 20e3, 20e3, 20e3, 20e3, 130e3]
    with open_store(tmp_path / "store") as store:
        alerts = Alerts(rules, store, hooks)
        ivs = [interval(i, m, "hog/9" if m > 1e5 else "idle/0") for i, m in enumerate(maxima)]
        for iv in ivs:  # one by one, as a monitor sends them
            (new,) = store.intervals.add("vm", "line-3", [iv], "t")
            assert new is not None
            alerts.judge("vm", "line-3", [(new, iv)])
        incidents = store.incidents.of("vm", "line-3")
    assert [(u, p["event"], p["culprit"], p["value"]) for u, p in hooks.sent] == [
        ("http://127.0.0.1:9/hook", "fired", "hog/9", 150e3),
        ("http://127.0.0.1:9/hook", "cleared", "idle/0", None),
        ("http://127.0.0.1:9/hook", "fired", "hog/9", 130e3),
    ]
    assert [(i.fired_interval, i.cleared_at is None) for i in incidents] == [(8, True), (2, False)]


def test_retention_drops_old_intervals_and_their_figures(tmp_path: Path) -> None:
    now = datetime.now().replace(microsecond=0)
    old, new = interval(0, 1e4), interval(0, 2e4)
    new = copy.deepcopy(new) | {
        "start": (now - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    }
    new["end"] = now.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    with open_store(tmp_path / "store") as store:
        ids = store.intervals.add("vm", None, [old, new], None)
        assert Housekeeping(store, timedelta(days=7)).sweep() == 1
        assert store.intervals.get(ids[0] or 0) is None
        kept = store.intervals.get(ids[1] or 0)
        assert kept is not None and len(kept.figures) == 1
        with store.engine.connect() as conn:
            from sqlalchemy import func, select

            from rtgauge.store.schema import interval_figures

            assert (
                conn.execute(select(func.count()).select_from(interval_figures)).scalar_one() == 1
            )


def test_an_interval_reads_back_as_it_was_pushed(tmp_path: Path) -> None:
    pushed = interval(3, 84_211.0, "irq/36 virtio1-req.0")
    with open_store(tmp_path / "store") as store:
        (new,) = store.intervals.add("vm", None, [pushed], None)
        row = store.intervals.get(new or 0)
    assert row is not None
    assert row.as_pushed() == dict(pushed, host="vm", label=None)


# -- webhooks ------------------------------------------------------------------------


@contextmanager
def flaky_receiver(failures: int) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A receiver answering 500 `failures` times, then 204, keeping what it got."""
    got: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            got.append(body)
            self.send_response(500 if len(got) <= failures else 204)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", got
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_a_webhook_that_fails_is_tried_again_and_delivered_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with flaky_receiver(failures=2) as (url, got):
        hooks = Webhooks(pauses=(0.0,))
        hooks.send(url, {"event": "fired", "rule": "max_above"})
        hooks.close(wait_s=30)
    assert [g["event"] for g in got] == ["fired"] * 3  # 2 failures, then delivered
    assert sum("trying again" in r.getMessage() for r in caplog.records) == 2


def test_a_webhook_never_reached_is_logged_after_its_tries_and_raises_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with flaky_receiver(failures=100) as (url, got):
        hooks = Webhooks(pauses=(0.0,))
        hooks.send(url, {"event": "cleared", "rule": "tail_worse"})
        hooks.close(wait_s=30)
    assert len(got) == ATTEMPTS
    assert any(f"not delivered after {ATTEMPTS} tries" in r.getMessage() for r in caplog.records)


def test_a_spans_histogram_read_in_days_is_every_intervals_histogram_merged(tmp_path: Path) -> None:
    rng = random.Random(3)
    ivs = []
    for i in range(3 * 288):  # three days of five-minute intervals, each of its own counts
        lo = rng.randrange(4000, 6000) // 32 * 32
        ivs.append(
            interval(
                i, 10_000.0 + i, buckets={(lo, lo + 32): rng.randrange(1, 500), (9984, 10048): 1}
            )
        )
    day = T0
    spans = [
        (None, None),
        (day + timedelta(hours=13), day + timedelta(days=2, hours=2)),  # two ends and a whole day
        (day + timedelta(days=1), day + timedelta(days=2)),  # a whole day alone
        (day + timedelta(hours=1), day + timedelta(hours=5)),  # within a day
        (day + timedelta(days=1, minutes=7), None),
    ]
    with open_store(tmp_path / "store") as store:
        for first in range(0, len(ivs), 100):  # batches across a day's end
            store.intervals.add("vm", "L", ivs[first : first + 100], None)

        def brute(since: datetime | None, until: datetime | None) -> MergedHistogram:
            m = MergedHistogram()
            for _, h in store.intervals.histograms("vm", "L", "TMR-P-LAT", since, until):
                m.add(json.loads(h))
            return m

        for since, until in spans:
            got = store.intervals.span_histogram("vm", "L", "TMR-P-LAT", since, until)
            assert got == brute(since, until) and got.count > 0, (since, until)
        store.intervals.drop_before(day + timedelta(days=1, hours=12))
        for since, until in spans[:3] + [(None, day + timedelta(days=3))]:
            assert store.intervals.span_histogram("vm", "L", "TMR-P-LAT", since, until) == brute(
                since, until
            )


def test_a_tail_worse_than_the_reference_fires_once_and_clears(tmp_path: Path) -> None:
    rules = parse_rules(
        '[labels."L"]\ntail_worse = { reference = "1h", quantile = "p99.9", p = 0.01 }\n'
        'webhook = "http://127.0.0.1:9/hook"\nclear_after = 2',
        "alerts.toml",
    )
    normal = {(4000, 4032): 59_970, (12000, 12096): 30}  # 0.05 % in the tail
    worse = {(4000, 4032): 59_400, (12000, 12096): 600}  # 1 %
    kinds = [normal] * 12 + [normal, worse, worse, normal, normal, normal]  # an hour, then the 2nd
    hooks = Recorded()
    with open_store(tmp_path / "store") as store:
        alerts = Alerts(rules, store, hooks)
        for i, b in enumerate(kinds):
            iv = interval(i, 13_000.0, "hog/9" if b is worse else "idle/0", buckets=b)
            (new,) = store.intervals.add("vm", "L", [iv], None)
            alerts.judge("vm", "L", [(new or 0, iv)])
    events = [(p["event"], p["interval"]["id"], p["culprit"]) for _, p in hooks.sent]
    assert events == [("fired", 14, "hog/9"), ("cleared", 17, "idle/0")]
    fired = hooks.sent[0][1]
    assert fired["threshold_ns"] == 12000 and fired["above"] == 600 and fired["p_value"] < 1e-6


def test_what_the_monitor_sends_is_taken_and_each_sample_counted_once(tmp_path: Path) -> None:
    """An interval as `rtgauge monitor` builds it from a recorded run (per-CPU
    figures and their .all): it fits the intake, reads back as sent, and its
    histogram counts every sample once."""
    from rtgauge.monitor.intervals import Span
    from rtgauge.monitor.intervals import interval as monitor_interval

    b = json.loads((ROOT / "tests" / "data" / "explain" / "hog_run.json").read_text())
    iv = monitor_interval(
        [b["system"], *b["tests"], b["end"]], Span(1_800_000_000.0, 1_800_000_300.0, 12.5)
    )
    assert iv is not None
    sent = {"kind": "rtgauge-intervals", "version": 1, "host": "vm", "label": "hog", "system": b["system"],
            "intervals": [iv]}  # fmt: skip
    check_payload(sent)
    names = [f["name"] for f in iv["figures"]]
    (everything,) = [f for f in iv["figures"] if f["name"].endswith(".all")]
    assert any(".cpu" in n for n in names)  # a per-CPU figure beside it
    with open_store(tmp_path / "store") as store:
        (new,) = store.intervals.add("vm", "hog", [iv], None)
        row = store.intervals.get(new or 0)
        hist = store.intervals.span_histogram("vm", "hog", iv["test"], None, None)
    assert row is not None and row.as_pushed() == dict(iv, host="vm", label="hog")
    assert hist.count == everything["count"]
