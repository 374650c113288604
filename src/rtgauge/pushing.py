"""Sending runs to a result server (rtgauge serve), and the local queue of
the ones it could not take yet.

A push is the bundle's exact bytes, POSTed to <server>/api/runs with the
push token as `Authorization: Bearer`; the server stores the same bytes
once, so pushing twice is harmless. When the server cannot be reached (or
answers with a server error), the bundle waits in the queue
($RTGAUGE_QUEUE, else $XDG_STATE_HOME/rtgauge/pending, else
~/.local/state/rtgauge/pending) until `rtgauge push --pending` sends it.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from rtgauge.errors import UsageError
from rtgauge.model import load_bundle

TOKEN_ENV = "RTGAUGE_TOKEN"
QUEUE_ENV = "RTGAUGE_QUEUE"
TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Pushed:
    """What became of one bundle."""

    what: str  # stored, duplicate, rejected, unreachable
    message: str
    run_url: str | None = None

    @property
    def code(self) -> int:
        """The exit code it calls for: 0 stored, 2 rejected, 3 not reached."""
        return {"rejected": 2, "unreachable": 3}.get(self.what, 0)


def server_url(text: str) -> str:
    text = text.strip().rstrip("/")
    if not text.startswith(("http://", "https://")) or len(text) < 10:
        raise UsageError(f"--server {text!r}: give the server's http:// or https:// address")
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


def send(server: str, raw: bytes, token: str, timeout: float = TIMEOUT_S) -> Pushed:
    request = urllib.request.Request(
        f"{server}/api/runs",
        data=raw,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            body = _json(answer.read())
            status = answer.status
    except urllib.error.HTTPError as exc:
        reason = str(_json(exc.read()).get("error") or exc.reason)
        if exc.code >= 500:
            return Pushed("unreachable", f"the server failed ({exc.code}): {reason}")
        return Pushed("rejected", f"rejected by the server ({exc.code}): {reason}")
    except (urllib.error.URLError, OSError) as exc:
        why = getattr(exc, "reason", None) or exc
        return Pushed("unreachable", f"cannot reach {server}: {why}")
    run_id = body.get("id")
    url = f"{server}/runs/{run_id}" if isinstance(run_id, int) else None
    if status == 201:
        return Pushed("stored", f"stored as run {run_id}: {url}", url)
    return Pushed("duplicate", f"already stored as run {run_id}: {url}", url)


def _json(raw: bytes) -> dict[str, object]:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def queue_dir() -> Path:
    if os.environ.get(QUEUE_ENV):
        return Path(os.environ[QUEUE_ENV])
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "rtgauge" / "pending"


def enqueue(raw: bytes, server: str) -> Path:
    """Keeps a bundle for later: <queue>/<sha256>.json and the server it was for."""
    folder = queue_dir()
    sha = hashlib.sha256(raw).hexdigest()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{sha}.json"
        path.write_bytes(raw)
        path.with_suffix(".server").write_text(server + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot queue the bundle in {folder}: {exc.strerror}") from None
    return path


def queued() -> list[tuple[Path, str]]:
    """The queue: each bundle and the server it waits for."""
    folder = queue_dir()
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        server = path.with_suffix(".server")
        out.append((path, server.read_text(encoding="utf-8").strip() if server.exists() else ""))
    return out


def dequeue(path: Path, rejected: bool = False) -> None:
    """Out of the queue: gone once stored, set aside under rejected/ when refused."""
    if rejected:
        aside = path.parent / "rejected"
        aside.mkdir(exist_ok=True)
        path.replace(aside / path.name)
    else:
        path.unlink(missing_ok=True)
    path.with_suffix(".server").unlink(missing_ok=True)


def push_bytes(raw: bytes, server: str, token: str) -> Pushed:
    """Sends one bundle; one the server could not take is queued, and said so."""
    got = send(server, raw, token)
    if got.what != "unreachable":
        return got
    path = enqueue(raw, server)
    return Pushed(
        "unreachable",
        f"{got.message}; queued as {path}; send it later with: rtgauge push --pending",
    )
