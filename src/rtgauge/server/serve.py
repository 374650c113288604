"""Running the application under uvicorn until SIGINT or SIGTERM."""

from __future__ import annotations

import signal
import sys
from types import FrameType

import uvicorn

from rtgauge.server.alert_rules import LabelRules
from rtgauge.server.app import make_app
from rtgauge.server.settings import Settings
from rtgauge.store import ResultStore

PUBLIC_WARNING = (
    "WARNING: --public: anyone who can reach {where} reads every run in this store "
    "without a token (pushing still needs one)"
)


def banner(store: ResultStore, settings: Settings) -> list[str]:
    where = f"http://{settings.host}:{settings.port}"
    lines = [f"rtgauge serve: {store.location} on {where}/"]
    if settings.public and not settings.loopback:
        lines.append("*" * 78)
        lines.append(PUBLIC_WARNING.format(where=where))
        lines.append("*" * 78)
    elif settings.loopback:
        lines.append("reading is open to this machine (loopback); pushing needs a push token")
    else:
        lines.append("reading needs a read token (browsers ask for it: any user name, the token)")
    if not store.token_list():
        lines.append("no token yet: rtgauge serve token add NAME --store … makes one")
    return lines


class Stopped(Exception):
    """SIGTERM: the ordinary way a service manager stops the server."""


def _stop(signum: int, frame: FrameType | None) -> None:
    raise Stopped(signum)


def serve(
    store: ResultStore, settings: Settings, rules: dict[str, LabelRules] | None = None
) -> None:
    """Serves until SIGINT or SIGTERM, both an ordinary stop (uvicorn finishes
    the requests under way, then hands the signal back)."""
    if rules:
        print(f"alerts: rules for {len(rules)} label(s)", file=sys.stderr, flush=True)
    for line in banner(store, settings):
        print(line, file=sys.stderr, flush=True)
    config = uvicorn.Config(
        make_app(store, settings, rules),
        host=settings.host,
        port=settings.port,
        log_level="warning",
        access_log=False,
        server_header=False,
        timeout_keep_alive=5,
        limit_concurrency=200,
        proxy_headers=False,
    )
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        uvicorn.Server(config).run()
    except (KeyboardInterrupt, Stopped):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    print("rtgauge serve: stopped", file=sys.stderr, flush=True)
