"""GET /metrics from the monitor itself: the newest closed interval as
OpenMetrics, from a small stdlib HTTP server in a thread."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rtgauge import openmetrics
from rtgauge.errors import UsageError


class Newest:
    """The newest closed interval, shared between the loop and the server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._interval: dict[str, Any] | None = None

    def set(self, interval: dict[str, Any]) -> None:
        with self._lock:
            self._interval = interval

    def get(self) -> dict[str, Any] | None:
        with self._lock:
            return self._interval


def listen_address(text: str) -> tuple[str, int]:
    """--metrics-listen HOST:PORT (port 0: any free port, said at start)."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise UsageError(f"--metrics-listen {text!r}: give HOST:PORT, e.g. 127.0.0.1:9464")
    return host, int(port)


class MetricsServer:
    def __init__(self, address: tuple[str, int], newest: Newest) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                if self.path.split("?")[0] != "/metrics":
                    self.send_error(404, "only /metrics here")
                    return
                latest = newest.get()
                body = openmetrics.render([latest] if latest else []).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", openmetrics.CONTENT_TYPE)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return  # the monitor's output is its intervals, not each scrape

        try:
            self.httpd = ThreadingHTTPServer(address, Handler)
        except OSError as exc:
            raise UsageError(
                f"--metrics-listen {address[0]}:{address[1]}: {exc.strerror or exc}"
            ) from None
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        shown = f"[{name}]" if ":" in name else name
        return f"http://{shown}:{port}/metrics"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=5)
