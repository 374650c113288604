"""What a command that reads a run accepts: a bundle file (.json), a probe
stream (.jsonl), or the id of a run in the result store (--store, a
directory or a postgresql:// URL), as `rtgauge runs` lists them. An
argument that is a whole number names a run id unless a file of that name
exists. A missing file, store or run is one line and exit 2."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rtgauge.cli.common import add_results_dir
from rtgauge.errors import UsageError

if TYPE_CHECKING:
    from rtgauge.model import Bundle
    from rtgauge.store.location import Location

RUN_HELP = "a bundle (.json), a probe stream (.jsonl), or a run id of --store (rtgauge runs)"


def add_run_inputs(p: argparse.ArgumentParser, dest: str, nargs: str | None = None) -> None:
    """The positional run argument(s), and --store for the ids among them."""
    p.add_argument(dest, nargs=nargs, metavar="RUN", help=RUN_HELP)
    add_results_dir(p)


@dataclass
class Source:
    """A run as read for a command."""

    bundle: Bundle
    name: str  # names its default output files: the file's stem, or run-ID
    path: Path | None  # the file read (None for a run of a database store)


def run_id(text: str) -> int | None:
    """The run id text names, or None when it names a file."""
    if text.isdigit() and not Path(text).exists():
        return int(text)
    return None


def read_runs(texts: list[str], store: Location) -> list[Source]:
    """The runs named, in the order given; the store is opened only for ids."""
    from rtgauge.model import load_bundle

    ids = [i for i in map(run_id, texts) if i is not None]
    by_id = _stored(ids, store) if ids else {}
    out = []
    for text in texts:
        i = run_id(text)
        if i is None:
            path = Path(text)
            name = path.name.removesuffix(".jsonl").removesuffix(".json")
            out.append(Source(load_bundle(path), name or "run", path))
        else:
            bundle = by_id[i]
            out.append(Source(bundle, f"run-{i}", bundle.path))
    return out


def read_run(text: str, store: Location) -> Source:
    (source,) = read_runs([text], store)
    return source


def _stored(ids: list[int], store: Location) -> dict[int, Bundle]:
    from rtgauge.store import open_store

    if store.root is not None and not store.root.is_dir():
        raise UsageError(
            f"run {ids[0]}: no result store at {store} (--store or $RTGAUGE_STORE names one)"
        )
    out: dict[int, Bundle] = {}
    with open_store(store) as opened:
        for i in ids:
            row = opened.get(i)
            if row is None:
                raise UsageError(f"run {i}: no such run in {store} (rtgauge runs lists them)")
            out[i] = opened.bundle(row)
    return out
