"""A real `rtgauge serve` for the tests: its own process, on 127.0.0.1 and a
free port, bounded in time, stopped and reaped at the end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pg_cluster import free_port

from rtgauge.store import open_store

LIMIT_S = 900  # no test server outlives this, whatever happens to the test


def rtgauge(
    *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rtgauge.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


@dataclass
class Server:
    url: str
    store: str
    proc: subprocess.Popen[str]
    log: str = ""  # what it said, once stopped
    code: int | None = None  # its exit code, once stopped

    def get(self, path: str, token: str | None = None) -> tuple[int, str, dict[str, str]]:
        req = urllib.request.Request(self.url + path)
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        return _open(req)

    def json(self, path: str) -> Any:
        code, body, _ = self.get(path)
        assert code == 200, (code, body)
        return json.loads(body)

    def post(
        self,
        body: bytes,
        token: str | None,
        content_type: str = "application/json",
        route: str = "/api/runs",
    ) -> tuple[int, str, dict[str, str]]:
        req = urllib.request.Request(self.url + route, data=body, method="POST")
        req.add_header("Content-Type", content_type)
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        return _open(req)

    def token(self, name: str, role: str = "push") -> str:
        """A new token (made in this process: `serve token add` is tested on its own)."""
        with open_store(self.store) as store:
            return store.add_token(name, role)


def _open(req: urllib.request.Request) -> tuple[int, str, dict[str, str]]:
    try:
        with urllib.request.urlopen(req, timeout=60) as answer:
            return answer.status, answer.read().decode(), dict(answer.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


@contextmanager
def running_server(store: str, *extra: str, port: int | None = None) -> Iterator[Server]:
    port = port or free_port()
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"rtgauge-serve-{port}.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            ["timeout", "-s", "TERM", str(LIMIT_S), sys.executable, "-m", "rtgauge.cli.main",
             "serve", "--store", store, "--listen", f"127.0.0.1:{port}", *extra],
            stdout=out, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )  # fmt: skip
    server = Server(f"http://127.0.0.1:{port}", store, proc)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if server.get("/api/health")[0] == 200:
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"rtgauge serve did not start: {log.read_text()[-1500:]}")
            time.sleep(0.1)
        yield server
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        server.log = log.read_text()
        server.code = proc.returncode
        log.unlink(missing_ok=True)
