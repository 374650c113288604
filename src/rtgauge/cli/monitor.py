"""rtgauge monitor: measure a target without end, interval by interval, keep
each closed interval on disk, push it to a result server and serve the
newest at /metrics (docs/monitor.md)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from rtgauge import pushing
from rtgauge.cli.run import run_label
from rtgauge.cli.spans import span_ms
from rtgauge.errors import UsageError
from rtgauge.monitor.metrics_http import MetricsServer, Newest, listen_address
from rtgauge.targets.registry import add_target_options, make_target

MIN_INTERVAL_MS = 1000
LAST_PUSH_S = 10.0  # at the end: how long the queue may take to go out


def _span(flag: str, least_ms: int = 100) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            ms = span_ms(text, flag)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if ms < least_ms:
            raise UsageError(f"{flag} {text!r}: at least {least_ms / 1000:g} s")
        return ms

    return parse


def _test_id(text: str) -> str:
    text = text.strip()
    if not text or "," in text or "*" in text:
        raise UsageError(
            f"--tests {text!r}: the monitor measures one duration test, e.g. TMR-P-LAT"
        )
    return text


def default_store() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "rtgauge" / "monitor"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_target_options(p)
    p.add_argument(
        "--tests", type=_test_id, default="TMR-P-LAT", help="the duration test (TMR-P-LAT)"
    )
    p.add_argument("--cpus", help="CPUs to measure on, e.g. 0,2-3 (default: all)")
    p.add_argument("--prio", help="SCHED_FIFO priority of the test, 1..98 (default 95)")
    p.add_argument(
        "--interval",
        type=_span("--interval", MIN_INTERVAL_MS),
        default=300_000,
        metavar="SPAN",
        help="length of one interval, e.g. 5m (default), 1m, 30s",
    )
    p.add_argument("--label", type=run_label, help="names this monitor's intervals")
    p.add_argument("--server", help="push each closed interval to this result server")
    p.add_argument("--token-file", type=Path, help=f"the push token (else ${pushing.TOKEN_ENV})")
    p.add_argument(
        "--store",
        dest="monitor_store",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"where closed intervals are kept (default {default_store()})",
    )
    p.add_argument(
        "--metrics-listen", type=listen_address, metavar="HOST:PORT", help="serve GET /metrics"
    )
    p.add_argument(
        "--for", dest="for_ms", type=_span("--for"), metavar="SPAN", help="stop after SPAN"
    )
    p.add_argument(
        "--keep",
        type=_span("--keep"),
        default=30 * 86_400_000,
        metavar="SPAN",
        help="how long the store keeps intervals (default 30d)",
    )
    p.set_defaults(execute=execute)


def _say(text: str) -> None:
    print(f"rtgauge monitor: {text}", file=sys.stderr, flush=True)


def execute(args: argparse.Namespace) -> int:
    # the analysis behind each interval is imported here, not for --help
    from rtgauge.monitor.loop import Monitor, Settings, run_monitor
    from rtgauge.monitor.outbox import Outbox
    from rtgauge.monitor.store import IntervalStore

    server = pushing.server_url(args.server) if args.server else None
    token = pushing.read_token(args.token_file) if server else None
    root: Path = args.monitor_store or default_store()
    store = IntervalStore(root)
    settings = Settings(
        args.tests, args.cpus, args.interval, args.label, args.for_ms, args.keep, args.prio
    )
    newest = Newest() if args.metrics_listen else None
    metrics = MetricsServer(args.metrics_listen, newest) if newest is not None else None
    outbox = Outbox(server, token, root / "outbox", _say) if server and token else None
    with make_target(args.target, args) as target:
        monitor = Monitor(target, settings, store, outbox, newest, sys.stdout, sys.stderr)

        def on_signal(signum: int, frame: FrameType | None) -> None:
            monitor.stop()

        old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        if metrics is not None:
            metrics.start()
            _say(f"metrics: {metrics.url}")
        if outbox is not None:
            outbox.start()
        _say(
            f"measuring {settings.test} in intervals of {settings.interval_ms / 1000:g} s; "
            f"store {store.folder}" + (f"; pushing to {server}" if server else "")
        )
        try:
            run_monitor(monitor, _say)
        finally:
            for s, h in old.items():
                signal.signal(s, h)
            if metrics is not None:
                metrics.stop()
            if outbox is not None:
                outbox.close(LAST_PUSH_S)
                _say(
                    f"pushed {outbox.sent}, refused {outbox.refused}, "
                    f"{outbox.waiting()} waiting in {outbox.folder}"
                    + (
                        f", {outbox.not_queued} not queued (queue full)"
                        if outbox.not_queued
                        else ""
                    )
                )
    return 0
