"""Sending runs to a result server (rtgauge serve), and the local queue of
the ones it could not take yet.

A push is the bundle's exact bytes, POSTed to <server>/api/runs with the
push token as `Authorization: Bearer`; the server stores the same bytes
once, so pushing twice is harmless. What becomes of a bundle:

- 2xx: stored (or stored already): exit 0.
- a refusal (any other 4xx, a 3xx): said with its status and the server's
  reason, exit 2, never queued: sending it again would be refused again.
- not reached (connection refused, a name that does not resolve, a timeout,
  a connection cut before any answer, 5xx, 408, 429): exit 3, and the bundle
  waits in the queue (push_queue.py) until `rtgauge push --pending` sends it.

The server answers a bundle larger than its limit (and a bad token) as soon
as it has the request's headers, then closes the connection without reading
the body: the client's send is cut short (a connection reset or a broken
pipe) although the answer has arrived. So the answer is read even when the
send fails; only a connection with no answer counts as not reached.

A tune result (`rtgauge tune`'s tune-<time>.json, "kind": "tune") is pushed
the same way, to <server>/api/tunes, under the same rules and queue.
"""

from __future__ import annotations

import http.client
import json
import os
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from rtgauge.errors import UsageError
from rtgauge.model import load_bundle
from rtgauge.push_queue import QueueFull, enqueue

TOKEN_ENV = "RTGAUGE_TOKEN"
RUNS = "/api/runs"
TUNES = "/api/tunes"
TIMEOUT_S = 60.0
# Answers that say "not now" rather than "no": the bundle is queued.
BUSY = {408, 429}
# Refusals of the request, not of the bundle (the token, the address; a 3xx
# too): the queue keeps a bundle refused so, as any other would be refused.
NOT_THE_BUNDLE = {401, 403, 404, 405}


@dataclass(frozen=True)
class Pushed:
    """What became of one bundle."""

    what: str  # stored, duplicate, refused, unreachable
    message: str
    run_url: str | None = None
    status: int | None = None  # the server's HTTP status, when it answered

    @property
    def code(self) -> int:
        """The exit code it calls for: 0 stored, 2 refused, 3 not reached."""
        return {"refused": 2, "unreachable": 3}.get(self.what, 0)

    @property
    def bundle_refused(self) -> bool:
        """Refused for what the bundle is (too large, not valid), not for the
        token or the address: sending it again cannot succeed."""
        status = self.status or 0
        return self.what == "refused" and 400 <= status < 500 and status not in NOT_THE_BUNDLE


def server_url(text: str) -> str:
    text = text.strip().rstrip("/")
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname or len(text) < 10:
        raise UsageError(f"--server {text!r}: give the server's http:// or https:// address")
    try:
        _ = parts.port  # a port that is not a number raises here
    except ValueError:
        raise UsageError(f"--server {text!r}: the port is not a number") from None
    return text


def read_token(token_file: Path | None) -> str:
    """The push token: --token-file, else $RTGAUGE_TOKEN. Pushing always needs one."""
    if token_file is not None:
        try:
            token = token_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise UsageError(f"--token-file {token_file}: {reason}") from None
    else:
        token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise UsageError(
            f"pushing needs a token: set {TOKEN_ENV} or give --token-file "
            "(made on the server with: rtgauge serve token add NAME)"
        )
    if not token.isprintable() or " " in token:
        raise UsageError("the token holds spaces or control characters: not a token")
    return token


def bundle_bytes(path: Path) -> bytes:
    """What is sent for a file: a bundle's exact bytes, or for a probe stream
    (.jsonl) the bundle it makes; checked here first, so a bad file is said
    before anything is sent."""
    bundle = load_bundle(path)
    if path.suffix == ".json":
        return path.read_bytes()
    return json.dumps(bundle.to_json(), indent=1).encode("utf-8")


def tune_bytes(path: Path) -> bytes:
    """A tune result file's exact bytes, checked first (the loader reads it)."""
    from rtgauge.tune.result import loads

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror})") from None
    loads(raw, str(path))
    return raw


def is_tune(raw: bytes) -> bool:
    """Whether the bytes are a tune result's JSON ("kind": "tune"), not a bundle."""
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return False
    return isinstance(value, dict) and value.get("kind") == "tune"


def route_of(raw: bytes) -> str:
    """Where the bytes go: a tune result to /api/tunes, a bundle to /api/runs."""
    return TUNES if is_tune(raw) else RUNS


def _connection(
    server: str, timeout: float, route: str = RUNS
) -> tuple[http.client.HTTPConnection, str]:
    """A connection for <server><route> and the path to ask for, through
    the proxy the environment names ($http_proxy, $no_proxy), as urllib would."""
    parts = urllib.parse.urlsplit(server)
    host, port = parts.hostname or "", parts.port
    path = f"{parts.path}{route}"
    proxy = urllib.request.getproxies().get(parts.scheme)
    if proxy and not urllib.request.proxy_bypass(host):
        via = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        if parts.scheme == "http":
            return http.client.HTTPConnection(via.hostname or "", via.port, timeout=timeout), (
                f"{server}{route}"
            )
        tunnel = http.client.HTTPSConnection(via.hostname or "", via.port, timeout=timeout)
        tunnel.set_tunnel(host, port)
        return tunnel, path
    if parts.scheme == "https":
        return http.client.HTTPSConnection(host, port, timeout=timeout), path
    return http.client.HTTPConnection(host, port, timeout=timeout), path


def _post(
    conn: http.client.HTTPConnection, path: str, raw: bytes, headers: dict[str, str]
) -> http.client.HTTPResponse:
    try:
        conn.request("POST", path, body=raw, headers=headers)
    except (BrokenPipeError, ConnectionResetError) as cut:
        # Cut short while sending: the server may have answered already (a
        # 413 from the Content-Length alone) and closed; read that answer.
        try:
            return conn.getresponse()
        except (OSError, http.client.HTTPException):
            raise cut from None
    return conn.getresponse()


def send(
    server: str, raw: bytes, token: str, timeout: float = TIMEOUT_S, route: str = RUNS
) -> Pushed:
    headers = {
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/json",
        "Connection": "close",
    }
    try:
        conn, path = _connection(server, timeout, route)
    except (OSError, http.client.HTTPException) as exc:
        return Pushed("unreachable", f"cannot reach {server}: {exc}")
    try:
        answer = _post(conn, path, raw, headers)
        status, phrase, body = answer.status, answer.reason, answer.read()
    except (OSError, http.client.HTTPException) as exc:
        return Pushed("unreachable", f"cannot reach {server}: {str(exc) or type(exc).__name__}")
    finally:
        conn.close()
    return judged(server, status, phrase, body)


def judged(server: str, status: int, phrase: str, body: bytes) -> Pushed:
    """What the server's answer means for the bundle."""
    said = _json(body)
    if 200 <= status < 300 and isinstance(said.get("name"), str):  # a tune result
        name = str(said["name"])
        page = f"{server}/tune/{urllib.parse.quote(name)}"
        if status == 201:
            return Pushed("stored", f"stored as {name}: {page}", page, status)
        return Pushed("duplicate", f"already stored as {name}: {page}", page, status)
    if 200 <= status < 300:
        run_id = said.get("id")
        url = f"{server}/runs/{run_id}" if isinstance(run_id, int) else None
        if status == 201:
            return Pushed("stored", f"stored as run {run_id}: {url}", url, status)
        return Pushed("duplicate", f"already stored as run {run_id}: {url}", url, status)
    reason = " ".join(str(said.get("error") or phrase or "no reason given").split())[:300]
    if status >= 500 or status in BUSY:
        return Pushed("unreachable", f"the server could not take it now ({status}): {reason}")
    return Pushed("refused", f"refused by the server ({status}): {reason}", None, status)


def _json(raw: bytes) -> dict[str, object]:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def push_bytes(raw: bytes, server: str, token: str, route: str = RUNS) -> Pushed:
    """Sends one bundle (or tune result, to its route); one the server could
    not be reached for is queued (while the queue has room), and said so; a
    refused one is not."""
    got = send(server, raw, token, route=route)
    if got.what == "refused":
        return Pushed(got.what, f"{got.message} (not queued)", None, got.status)
    if got.what != "unreachable":
        return got
    try:
        path = enqueue(raw, server)
    except QueueFull as full:
        return Pushed("unreachable", f"{got.message}; {full}")
    return Pushed(
        "unreachable",
        f"{got.message}; queued as {path}; send it later with: rtgauge push --pending",
    )
