"""What the monitor's e2e tests wait for: a condition polled within a bound
(a monitor that hangs fails, never a timing check), and the intervals a
monitor has kept in its store."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BOUND_S = 60.0  # each wait's bound


def wait_for(what: str, check: Callable[[], Any]) -> Any:
    end = time.monotonic() + BOUND_S
    while time.monotonic() < end:
        got = check()
        if got:
            return got
        time.sleep(0.05)  # a polling interval, not a wait for the monitor
    raise AssertionError(f"not within {BOUND_S:.0f} s: {what}")


def kept(store: Path) -> list[dict[str, Any]]:
    """The intervals in a monitor's store, in the order they closed."""
    out = []
    for path in sorted((store / "intervals").glob("*.jsonl")):
        out += [json.loads(x) for x in path.read_text().splitlines() if x.endswith("}")]
    return out
