"""A webhook receiver for the alert tests: an HTTP server on 127.0.0.1 and a
free port, in a thread of the test, keeping each POSTed JSON body; a test
waits for the bodies it needs, bounded in time."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    def __init__(self, url: str) -> None:
        self.url = url
        self.bodies: list[dict[str, Any]] = []
        self.changed = threading.Condition()

    def wait_for(
        self, done: Callable[[list[dict[str, Any]]], bool], timeout: float = 30
    ) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not done(self.bodies):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the webhook did not get what was awaited: {self.bodies}")
                self.changed.wait(left)
            return list(self.bodies)


@contextmanager
def webhook_receiver() -> Iterator[Receiver]:
    receiver: Receiver | None = None

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
            size = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(size))
            assert receiver is not None
            with receiver.changed:
                receiver.bodies.append(body)
                receiver.changed.notify_all()
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass  # tests record, never print

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver = Receiver(f"http://127.0.0.1:{server.server_address[1]}/hook")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
