#!/usr/bin/env python3
"""make bench-server: the result server at scale. A throwaway PostgreSQL
cluster (as the tests start one) is filled with 10,000 runs, one label
holding 1,000 of them; a real `rtgauge serve` then answers the runs page
(time to its first byte, several filters and sorts) and that label's history
(the whole page, first with an empty cache, then again). The figures go to
bench/RESULTS.md. A benchmark, never a test: nothing here passes or fails on
a time. Usage: bench/server_scale.py [--runs N] [--history N] [--no-write]"""

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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from history_bundles import body, make  # noqa: E402
from pg_cluster import pg_cluster  # noqa: E402
from server_proc import running_server  # noqa: E402

from rtgauge.store import open_store  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
BEGIN, END = "<!-- server-scale -->", "<!-- /server-scale -->"
LABEL = "nightly-rt"


def fill(url: str, runs: int, history: int, first: int = 0) -> float:
    records = [json.loads(x) for x in (ROOT / "tests" / "data" / "sample_run.jsonl").open()]
    start = datetime(2025, 1, 1, tzinfo=UTC)
    began = time.monotonic()
    with open_store(url) as store:
        for i in range(first, first + runs):
            in_history = i < history or first > 0
            when = (start + timedelta(hours=i if in_history else i * 0.8)).isoformat()
            label = LABEL if in_history else f"label-{i % 9}"
            b = make(records, when, body(2000 + i % 500, above=(i * 7) % 40), label=label)
            b.system["host"]["hostname"] = "board-00" if in_history else f"board-{1 + i % 19:02d}"
            raw = json.dumps(b.to_json()).encode()
            store.add(raw, "push", "bench", bundle=b)
            if (i + 1) % 1000 == 0:
                print(f"  {i + 1} runs stored ({time.monotonic() - began:.0f} s)", flush=True)
    return time.monotonic() - began


def first_byte(port: int, path: str) -> tuple[float, float, int]:
    """Seconds to the first byte of the answer, to its end, and its size."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    began = time.perf_counter()
    conn.request("GET", path)
    answer = conn.getresponse()  # the status line and headers have arrived
    first = time.perf_counter() - began
    data = answer.read()
    whole = time.perf_counter() - began
    conn.close()
    if answer.status != 200:
        raise RuntimeError(f"{path}: {answer.status} {data[:200]!r}")
    return first, whole, len(data)


def measure(port: int, path: str, repeat: int) -> dict[str, Any]:
    first_byte(port, path)  # warm: connections, caches, plans
    got = [first_byte(port, path) for _ in range(repeat)]
    firsts = sorted(g[0] for g in got)
    return {
        "path": path,
        "median_ms": statistics.median(firsts) * 1e3,
        "max_ms": firsts[-1] * 1e3,
        "whole_ms": statistics.median(g[1] for g in got) * 1e3,
        "bytes": got[0][2],
    }


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(f"stopped by signal {signum}")  # the cluster and server are cleaned up


def main() -> int:
    signal.signal(signal.SIGTERM, _stop)
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--history", type=int, default=1_000)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--no-write", action="store_true", help="print, do not write RESULTS.md")
    args = ap.parse_args()
    load_before = os.getloadavg()[0]
    with pg_cluster() as cluster:
        url = cluster.create_database("bench")
        print(f"filling {args.runs} runs ({args.history} labelled {LABEL}) …", flush=True)
        fill_s = fill(url, args.runs, args.history)
        with running_server(url) as server:
            port = int(server.url.rsplit(":", 1)[1])
            pages = [
                measure(port, p, args.repeat)
                for p in (
                    "/",
                    "/?host=board-07",
                    f"/?label={LABEL}&sort=worst",
                    "/?status=ok&page=150",
                    "/api/runs?per_page=50",
                )
            ]
            history_path = f"/history?label={LABEL}"
            cold = first_byte(port, history_path)
            warm = [first_byte(port, history_path) for _ in range(3)]
            api_history = first_byte(port, f"/api/history?label={LABEL}")
            fill(
                url, 1, 1, first=args.runs
            )  # a nightly run arrives: the kept answer no longer fits
            newer = first_byte(port, history_path)
    load_after = os.getloadavg()[0]
    text = report(args, fill_s, pages, cold, warm, newer, api_history, (load_before, load_after))
    print(text)
    if not args.no_write:
        write(text)
    return 0


def report(
    args: argparse.Namespace,
    fill_s: float,
    pages: list[dict[str, Any]],
    cold: tuple[float, float, int],
    warm: list[tuple[float, float, int]],
    newer: tuple[float, float, int],
    api_history: tuple[float, float, int],
    load: tuple[float, float],
) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        BEGIN,
        "## The result server at scale (make bench-server)",
        "",
        f"Run {when} on this machine ({os.cpu_count()} CPUs, a shared VM; load average "
        f"{load[0]:.1f} before, {load[1]:.1f} after): a throwaway PostgreSQL cluster, "
        f"{args.runs:,} runs stored through the store's interface in {fill_s:.0f} s, "
        f"{args.history:,} of them labelled `{LABEL}` (one host); `rtgauge serve` on "
        "127.0.0.1, answering one request at a time. Aim: the runs page's first byte "
        "≤ 300 ms, a label's history over 1,000 runs ≤ 2 s.",
        "",
        f"Runs page, time to first byte over {args.repeat} requests after one to warm up:",
        "",
        "| page | median ms | max ms | whole answer ms | bytes |",
        "|---|---|---|---|---|",
    ]
    for p in pages:
        lines.append(
            f"| `{p['path']}` | {p['median_ms']:.0f} | {p['max_ms']:.0f} | "
            f"{p['whole_ms']:.0f} | {p['bytes']:,} |"
        )
    warm_s = statistics.median(w[1] for w in warm)
    lines += [
        "",
        f"History of `{LABEL}` ({args.history:,} runs, heat map, regressions, the runs "
        "linked), the whole page:",
        "",
        "| request | first byte s | whole answer s | bytes |",
        "|---|---|---|---|",
        f"| first, nothing kept | {cold[0]:.2f} | {cold[1]:.2f} | {cold[2]:,} |",
        f"| again: the kept answer (median of 3) | {statistics.median(w[0] for w in warm):.2f} | "
        f"{warm_s:.2f} | {warm[0][2]:,} |",
        f"| after one more run of the label (its runs kept, the history computed anew) | "
        f"{newer[0]:.2f} | {newer[1]:.2f} | {newer[2]:,} |",
        f"| `/api/history` (the chart's data) | {api_history[0]:.2f} | {api_history[1]:.2f} | "
        f"{api_history[2]:,} |",
        "",
        "The history page is computed whole before its first byte (the regressions "
        "need every run): reading the runs' bundles, the exceedance tests between "
        "consecutive runs (analysis/stats.py's Fisher test, pure Python: the largest "
        "share), and the heat map. A run read once is kept by its content hash, and "
        "the whole answer by the hashes of the runs it was made of, so it is computed "
        "again only when a run is added. The history is timed on a machine shared "
        "with other work: the load average above says how shared.",
        END,
    ]
    return "\n".join(lines) + "\n"


def write(text: str) -> None:
    current = RESULTS.read_text(encoding="utf-8")
    if BEGIN in current and END in current:
        head, rest = current.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        current = head + text + ("\n" + tail if tail else "")
    else:
        current = current.rstrip("\n") + "\n\n" + text
    RESULTS.write_text(current, encoding="utf-8")
    print(f"written: {RESULTS}")


if __name__ == "__main__":
    sys.exit(main())
