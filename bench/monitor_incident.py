#!/usr/bin/env python3
"""A deployed system watched end to end: `rtgauge monitor` pushes its
intervals to `rtgauge serve` on a throwaway PostgreSQL cluster with an
alert rule, a SCHED_FIFO hog on the measured CPU is started part-way and
stopped later, and a webhook receiver counts what the server tells it:
one "fired" naming the hog, one "cleared". At the end the long view is
screenshot in Chromium. A demonstration and a measurement, never a test.

Usage: bench/monitor_incident.py [--minutes 32] [--interval 1m] [--cpu 1]
       [--hog-at 12] [--hog-for 3] [--limit 25ms] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

import server_proc  # noqa: E402
from pg_cluster import pg_cluster  # noqa: E402
from server_proc import running_server  # noqa: E402

RTGAUGE = ROOT / ".venv" / "bin" / "rtgauge"
LABEL = "line-3-controller"


class Hooks(BaseHTTPRequestHandler):
    got: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        Hooks.got.append(json.loads(body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def hog(cpu: int, seconds: int) -> subprocess.Popen[bytes]:
    """stress-ng at SCHED_FIFO 97 (above the monitor's 95) on the measured
    CPU, busy 40 ms in every second: each second's wake-ups wait for it."""
    argv = ["chrt", "-f", "97", "taskset", "-c", str(cpu), "stress-ng", "--cpu", "1",
            "--cpu-load", "4", "--cpu-load-slice", "40", "--timeout", f"{seconds}s"]  # fmt: skip
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def screenshot(url: str, png: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("no Chromium: no screenshot", file=sys.stderr)
        return
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--window-size=1400,1300", "--virtual-time-budget=8000", f"--screenshot={png}", url],
        capture_output=True, timeout=120, check=False,
    )  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=32)
    ap.add_argument("--interval", default="1m")
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--hog-at", type=float, default=12, help="minutes after the start")
    ap.add_argument("--hog-for", type=float, default=3, help="minutes")
    ap.add_argument("--limit", default="25ms")
    ap.add_argument("--out", default=tempfile.mkdtemp(prefix="rtgauge-incident-"))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    hooks = ThreadingHTTPServer(("127.0.0.1", 0), Hooks)
    threading.Thread(target=hooks.serve_forever, daemon=True).start()
    rules = out / "alerts.toml"
    rules.write_text(
        f'[labels."{LABEL}"]\nmax_above = "{args.limit}"\n'
        f'webhook = "http://127.0.0.1:{hooks.server_address[1]}/hook"\nclear_after = 3\n'
    )
    server_proc.LIMIT_S = int(args.minutes * 60) + 1200  # the tests' bound, made to fit
    with pg_cluster() as cluster:
        url = cluster.create_database("incident")
        with running_server(url, "--alerts", str(rules)) as server:
            token = out / "token"
            token.write_text(server.token("monitor") + "\n")
            os.chmod(token, 0o600)
            base = server.url
            monitor = subprocess.Popen(
                [str(RTGAUGE), "monitor", "--cpus", str(args.cpu), "--interval", args.interval,
                 "--label", LABEL, "--server", base, "--token-file", str(token),
                 "--store", str(out / "monitor"), "--for", f"{args.minutes * 60:.0f}s"],
                stdout=(out / "monitor.out").open("w"), stderr=(out / "monitor.err").open("w"),
            )  # fmt: skip
            start = time.monotonic()
            time.sleep(args.hog_at * 60)  # a scenario's schedule, not a wait for a result
            print(f"{time.strftime('%H:%M:%S')} hog on CPU {args.cpu}", flush=True)
            h = hog(args.cpu, int(args.hog_for * 60))
            print(f"hog pid {h.pid}", flush=True)
            h.wait()
            print(f"{time.strftime('%H:%M:%S')} hog ended", flush=True)
            monitor.wait(timeout=args.minutes * 60 + 600)
            took = (time.monotonic() - start) / 60
            hosts = server.json("/api/facets")
            print(f"monitor exit {monitor.returncode} after {took:.1f} min; facets {hosts}")
            host = os.uname().nodename
            long = server.json(f"/api/long?host={host}&label={LABEL}")
            (out / "long.json").write_text(json.dumps(long, indent=1))
            screenshot(f"{base}/long?host={host}&label={LABEL}", out / "long-view.png")
    hooks.shutdown()
    (out / "webhooks.json").write_text(json.dumps(Hooks.got, indent=1))
    events = [(g.get("event"), g.get("rule"), g.get("culprit"), g.get("value")) for g in Hooks.got]
    print(f"webhook POSTs: {len(Hooks.got)}: {events}")
    print(f"hog pid was {h.pid}; everything in {out}")


if __name__ == "__main__":
    main()
