"""rtgauge import FILE: another tool's measurements (cyclictest, rtla) stored
as a run, so reports, comparisons and history treat them like any other."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rtgauge.cli.common import add_push, add_results_dir
from rtgauge.cli.old_spellings import Renamed
from rtgauge.cli.run import push_run, push_token, run_label
from rtgauge.errors import UsageError
from rtgauge.fmt import term
from rtgauge.importers import FORMATS, import_file
from rtgauge.model import Bundle
from rtgauge.store import open_store, safe_name


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, help="cyclictest --json or -h output, rtla hist output")
    p.add_argument(
        "--from",
        dest="source_format",
        default="auto",
        choices=["auto", *FORMATS],
        help="the file's format (default: told from its content)",
    )
    p.add_argument(
        "--format",
        dest="source_format",
        choices=["auto", *FORMATS],
        action=Renamed,
        new="--from",
    )
    p.add_argument("--label", type=run_label, help="a name for the run, e.g. a kernel build")
    p.add_argument("--host", help="the system's name when the file does not say it")
    p.add_argument(
        "--out",
        metavar="FILE|-",
        help="write the bundle to FILE (- for stdout) instead of into the store",
    )
    add_results_dir(p)
    add_push(p)
    p.set_defaults(execute=execute)


def _stamp(created_at: str) -> str:
    digits = "".join(ch for ch in created_at[:19] if ch.isdigit())
    return f"{digits[:8]}T{digits[8:14]}Z" if len(digits) >= 14 else "imported"


def _write(bundle: Bundle, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    try:
        tmp.write_text(json.dumps(bundle.to_json(), indent=1), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise UsageError(f"cannot write {path}: {exc.strerror}") from exc
    bundle.path = path
    return path


def execute(args: argparse.Namespace) -> int:
    token = push_token(args)
    bundle = import_file(args.file, args.source_format)
    bundle.run_label = args.label
    if args.host:
        bundle.system["host"]["hostname"] = args.host
        assert bundle.imported is not None
        bundle.imported["unknown"] = [u for u in bundle.imported["unknown"] if u != "hostname"]
    if args.out == "-":
        if token is not None:
            raise UsageError("--out - and --server: a bundle sent to stdout is not kept to push")
        sys.stdout.write(json.dumps(bundle.to_json(), indent=1) + "\n")
        return 0
    if args.out:
        out = Path(args.out)
        if out.resolve() == args.file.resolve():
            raise UsageError(f"refusing to overwrite {args.file}")
        print(_write(bundle, out))
        return push_run(args, token, out)
    folder = args.results_dir / safe_name(bundle.host)
    base = f"{_stamp(bundle.created_at)}-import"
    path = folder / f"{base}.json"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"{base}-{n}.json"
    _write(bundle, path)
    with open_store(args.store) as store:
        store.add_file(path, "import", bundle)
    imported = bundle.import_view()
    assert imported is not None
    unknown = ", ".join(imported.unknown)
    print(f"imported from {imported.source}: {len(bundle.test_views()[0].metrics)} metrics")
    print(f"not in the source (left null or unknown): {term(unknown)}")
    print(f"stored: {term(path)}")
    return push_run(args, token, path)
