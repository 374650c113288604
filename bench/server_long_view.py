#!/usr/bin/env python3
"""The long view at scale: a throwaway PostgreSQL cluster (as the tests
start one) holds six months of one host's five-minute intervals (two
figures each, as `rtgauge monitor` pushes them); a real `rtgauge serve`
then answers /api/long over the whole span (downsampled on the server to at
most 2,000 points per series, the span's histograms merged), over one week,
again from its kept answer, and the /long page itself. The figures go to
bench/RESULTS.md, section server-long-view. A benchmark, never a test:
nothing here passes or fails on a time.
Usage: bench/server_long_view.py [--days N] [--repeat N] [--no-write]"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "bench"))

from interval_payloads import interval  # noqa: E402
from pg_cluster import pg_cluster  # noqa: E402
from results_file import write_section  # noqa: E402
from server_proc import running_server  # noqa: E402

from rtgauge.store import open_store  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
BEGIN = "<!-- server-long-view: begin (bench/server_long_view.py) -->"
END = "<!-- server-long-view: end -->"
HOST, LABEL = "line-3", "line-3-controller"
T0 = datetime(2026, 5, 1)
SPREAD = 150  # histogram buckets per figure: a real five-minute interval's order


def fill(url: str, days: int) -> tuple[int, float]:
    """`days` of five-minute intervals, a spike every 997th; their count and the seconds taken."""
    began = time.monotonic()
    n = days * 288
    with open_store(url) as store:
        for first in range(0, n, 1000):
            batch = [
                interval(
                    T0 + timedelta(minutes=5 * i),
                    300_000 if i % 997 == 0 else 15_000 + (i * 37) % 9000,
                )
                for i in range(first, min(first + 1000, n))
            ]
            store.intervals.add(HOST, LABEL, batch, "bench")
            print(
                f"  {first + len(batch):,} intervals stored ({time.monotonic() - began:.0f} s)",
                flush=True,
            )
    return n, time.monotonic() - began


def fetch(port: int, path: str) -> tuple[float, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    began = time.perf_counter()
    conn.request("GET", path)
    answer = conn.getresponse()
    data = answer.read()
    took = time.perf_counter() - began
    conn.close()
    if answer.status != 200:
        raise RuntimeError(f"{path}: {answer.status} {data[:200]!r}")
    return took, data


def series(port: int, paths: list[str]) -> tuple[list[float], bytes]:
    got = [fetch(port, p) for p in paths]
    return [g[0] for g in got], got[-1][1]


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(f"stopped by signal {signum}")  # the cluster and server are cleaned up


def main() -> int:
    signal.signal(signal.SIGTERM, _stop)
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--days", type=int, default=183)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-write", action="store_true", help="print, do not write RESULTS.md")
    args = ap.parse_args()
    load_before = os.getloadavg()[0]
    end = T0 + timedelta(days=args.days)
    base = f"/api/long?host={HOST}&label={LABEL}"
    # a different `until` each time (past the last interval: the same data) so
    # that no answer is served from the kept ones
    cold = [
        f"{base}&until={(end + timedelta(minutes=k)).strftime('%Y-%m-%dT%H:%M:%SZ')}"
        for k in range(args.repeat)
    ]
    week0 = T0 + timedelta(days=args.days // 2)
    week = [
        f"{base}&since={(week0 + timedelta(minutes=k)).strftime('%Y-%m-%dT%H:%M:%SZ')}"
        f"&until={(week0 + timedelta(days=7)).strftime('%Y-%m-%dT%H:%M:%SZ')}"
        for k in range(args.repeat)
    ]
    with pg_cluster() as cluster:
        url = cluster.create_database("bench")
        print(f"filling {args.days} days of five-minute intervals …", flush=True)
        count, fill_s = fill(url, args.days)
        with running_server(url) as server:
            port = int(server.url.rsplit(":", 1)[1])
            fetch(port, f"/long?host={HOST}&label={LABEL}")  # warm: connections, plans
            whole, body = series(port, cold)
            answer = json.loads(body)
            kept, _ = series(port, [base] * (args.repeat + 1))
            kept = kept[1:]  # the first computed it
            weekly, _ = series(port, week)
            page, page_body = series(port, [f"/long?host={HOST}&label={LABEL}"] * args.repeat)
    load_after = os.getloadavg()[0]
    points = sum(len(s["id"]) for s in answer["series"])
    text = report(args, count, fill_s, points, len(body), whole, kept, weekly, page, len(page_body),
                  (load_before, load_after))  # fmt: skip
    print(text)
    if not args.no_write:
        write_section(RESULTS, BEGIN, END, text)
        print(f"written: {RESULTS}")
    return 0


def row(name: str, times: list[float], extra: str) -> str:
    return (
        f"| {name} | {min(times):.3f} | {statistics.mean(times):.3f} | {max(times):.3f} | {extra} |"
    )


def report(
    args: argparse.Namespace,
    count: int,
    fill_s: float,
    points: int,
    size: int,
    whole: list[float],
    kept: list[float],
    weekly: list[float],
    page: list[float],
    page_size: int,
    load: tuple[float, float],
) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    ratio = min(whole) / min(weekly)
    lines = [
        BEGIN,
        "",
        "### The long view over six months of intervals (bench/server_long_view.py)",
        "",
        f"Run {when} on this machine ({os.cpu_count()} CPUs, a shared VM; load average "
        f"{load[0]:.1f} before, {load[1]:.1f} after): a throwaway PostgreSQL cluster, one host and "
        f"label, {args.days} days of five-minute intervals ({count:,}, two figures each: "
        f"{2 * count:,} figure rows with their histograms of {SPREAD + 2} buckets) stored through the store's interface "
        f"in {fill_s:.0f} s; `rtgauge serve` on 127.0.0.1, one request at a time, {args.repeat} "
        "requests each; seconds for the whole answer.",
        "",
        "| request | min | mean | max | answer |",
        "|---|---|---|---|---|",
        row(
            f"`/api/long`, all {args.days} days, computed (nothing kept)",
            whole,
            f"{points:,} points for {count:,} intervals ({count / points:.0f} to 1), {size:,} bytes",
        ),
        row("the same, from the kept answer", kept, "the same answer"),
        row(
            "`/api/long`, one week (a zoom), computed", weekly, f"{7 * 288:,} intervals, every one"
        ),
        row(
            "`/long` (the page; its plots are drawn from `/api/long`)", page, f"{page_size:,} bytes"
        ),
        "",
        f"Six months cost {ratio:.1f} times one week (the minima: on a machine shared with other "
        "work, the load average above, the means and maxima move with that work). The series are "
        "read as (id, start, maximum) rows and cut in Python: that grows with the intervals. A kept "
        "answer costs one grouped count of the span's intervals (its key: per series, the count "
        "and the newest interval). The histogram under the plot is read in "
        "days (each day's histograms merged as its intervals arrive, table `interval_days`), the "
        "span's partial days interval by interval: it grows with the days. A page reloaded or a zoom "
        "undone costs the kept answer's time until a new interval arrives.",
        "",
        END,
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
