"""The local queue of bundles a result server could not be reached for.

The queue is a folder ($RTGAUGE_QUEUE, else $XDG_STATE_HOME/rtgauge/pending,
else ~/.local/state/rtgauge/pending): <stamp>-<sha256>.json, the bundle's
bytes, and beside it <stamp>-<sha256>.server, the server it was meant for.
The stamp (nanoseconds since the epoch) orders it: the oldest is sent first.

It is bounded (docs/server.md, "The queue"): at most $RTGAUGE_QUEUE_MAX_BUNDLES
bundles (200) and $RTGAUGE_QUEUE_MAX_MB MiB (256). When a bundle would go
past either, it is not queued and the caller says so: the queue never drops
what it holds, and what it refused to hold is still where it came from (the
file pushed, the run's store). A bundle the server refused is moved to
refused/ inside the queue folder with a .reason file beside it, out of the
queue but never deleted.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

from rtgauge.errors import UsageError

QUEUE_ENV = "RTGAUGE_QUEUE"
MAX_BUNDLES_ENV = "RTGAUGE_QUEUE_MAX_BUNDLES"
MAX_MB_ENV = "RTGAUGE_QUEUE_MAX_MB"
DEFAULT_MAX_BUNDLES = 200
DEFAULT_MAX_MB = 256.0
REFUSED = "refused"


class QueueFull(Exception):
    """The bundle would take the queue past its bound: it is not queued."""


@dataclass(frozen=True)
class Bound:
    bundles: int
    size: int  # bytes

    def __str__(self) -> str:
        return f"{self.bundles} bundles, {mib(self.size)}"


@dataclass(frozen=True)
class Queued:
    path: Path  # the bundle's bytes
    server: str  # the server it was meant for ("" when not recorded)


def mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"


def queue_dir() -> Path:
    if os.environ.get(QUEUE_ENV):
        return Path(os.environ[QUEUE_ENV])
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "rtgauge" / "pending"


def queue_bound() -> Bound:
    """The bound from the environment, else the defaults."""
    bundles_text = os.environ.get(MAX_BUNDLES_ENV, "") or str(DEFAULT_MAX_BUNDLES)
    mb_text = os.environ.get(MAX_MB_ENV, "") or str(DEFAULT_MAX_MB)
    if not bundles_text.isdigit() or int(bundles_text) < 1:
        raise UsageError(
            f"{MAX_BUNDLES_ENV}={bundles_text!r}: a whole number of bundles, 1 or more"
        )
    try:
        mb = float(mb_text)
    except ValueError:
        mb = 0.0
    if not mb > 0:
        raise UsageError(f"{MAX_MB_ENV}={mb_text!r}: a size in MiB above 0")
    return Bound(int(bundles_text), int(mb * 2**20))


def _order(path: Path) -> tuple[int, str]:
    """When it was queued: the name's stamp, or for a name without one (a
    queue an older release wrote, <sha256>.json) the file's time."""
    stamp = path.stem.partition("-")[0]
    if stamp.isdigit() and "-" in path.stem:
        return int(stamp), path.name
    return path.stat().st_mtime_ns, path.name


def queued(folder: Path | None = None) -> list[Queued]:
    """The queue, oldest first: each bundle and the server it waits for."""
    folder = folder or queue_dir()
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("*.json"), key=_order):
        server = path.with_suffix(".server")
        meant = server.read_text(encoding="utf-8").strip() if server.exists() else ""
        out.append(Queued(path, meant))
    return out


def enqueue(
    raw: bytes, server: str, folder: Path | None = None, bound: Bound | None = None
) -> Path:
    """Keeps a bundle for later, unless the same bytes wait already; raises
    QueueFull when it would take the queue past its bound."""
    folder = folder or queue_dir()
    bound = bound or queue_bound()
    sha = hashlib.sha256(raw).hexdigest()
    waiting = queued(folder)
    for item in waiting:
        if item.path.stem.endswith(sha):
            return item.path
    held = sum(item.path.stat().st_size for item in waiting)
    if len(waiting) + 1 > bound.bundles or held + len(raw) > bound.size:
        raise QueueFull(
            f"not queued: the queue in {folder} holds {len(waiting)} bundles, "
            f"{mib(held)} (at most {bound}); send those with rtgauge push --pending, "
            "then push this one again"
        )
    path = folder / f"{time.time_ns():020d}-{sha}.json"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.with_suffix(".server").write_text(server + "\n", encoding="utf-8")
        partial = path.with_suffix(".part")  # never sent half-written: *.json only
        partial.write_bytes(raw)
        partial.replace(path)
    except OSError as exc:
        raise UsageError(f"cannot queue the bundle in {folder}: {exc.strerror}") from None
    return path


def dequeue(path: Path) -> None:
    """Out of the queue once the server holds it."""
    path.unlink(missing_ok=True)
    path.with_suffix(".server").unlink(missing_ok=True)


def set_aside(item: Queued, reason: str) -> Path:
    """Out of the queue for good: the server refused it. Moved to refused/
    with the reason beside it (<name>.reason), never deleted."""
    aside = item.path.parent / REFUSED
    aside.mkdir(exist_ok=True)
    moved = aside / item.path.name
    moved.with_suffix(".reason").write_text(f"{item.server or '?'}: {reason}\n", encoding="utf-8")
    item.path.replace(moved)
    item.path.with_suffix(".server").unlink(missing_ok=True)
    return moved
