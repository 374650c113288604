"""Runs whose writer died: a host SIGKILLed, a crash or a power cut leaves
`<host>/<time>.partial.jsonl` behind. The writer holds an exclusive flock on
that file for as long as it writes; when the lock can be taken, nobody is
writing it any more, and the records it holds (every interval and test
record synced before the end) are sealed into the run's bundle and indexed,
so `runs`, `report` and `history` see the run, marked as stopped early."""

from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path

from rtgauge.errors import UsageError


def hold(fh: int) -> None:
    """The writer's claim on its partial file (released when it closes or dies)."""
    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)


def orphaned(partial: Path) -> bool:
    """True when no process holds the partial file's lock: its writer is gone."""
    try:
        fd = os.open(partial, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(fd)  # closing releases the probe lock taken just now
    return True


def seal_orphans(root: Path) -> list[Path]:
    """Every orphaned partial run under the directory store `root`, written as
    its bundle (`<time>.json`, beside it) and the partial file removed.
    Returns the bundles written; a partial that holds no system record yet,
    or cannot be read, is left as it is."""
    sealed = []
    for partial in sorted(root.glob("*/*.partial.jsonl")):
        if not orphaned(partial):
            continue
        bundle_path = partial.with_name(partial.name.removesuffix(".partial.jsonl") + ".json")
        if bundle_path.exists():
            continue
        from rtgauge.model import load_bundle  # only when there is one: `runs` stays light

        try:
            bundle = load_bundle(partial)
        except UsageError:
            continue
        tmp = bundle_path.with_suffix(".json.tmp")
        try:
            tmp.write_text(json.dumps(bundle.to_json(), indent=1), encoding="utf-8")
            os.replace(tmp, bundle_path)
            partial.unlink()
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            print(f"rtgauge: cannot seal {partial}: {exc.strerror}", file=sys.stderr)
            continue
        print(
            f"rtgauge: a run cut short was kept as {bundle_path} (its writer had stopped)",
            file=sys.stderr,
        )
        sealed.append(bundle_path)
    return sealed
