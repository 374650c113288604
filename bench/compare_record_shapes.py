#!/usr/bin/env python3
"""Compares two probe outputs by their shape, not their figures: whether a
change of the probe's layout left its catalogue and records as they were.

Usage: bench/compare_record_shapes.py BEFORE.jsonl AFTER.jsonl

Each file holds the probe's JSON lines: a run (`--out -`) or a catalogue
(`--list-json`). For a catalogue, every entry must be equal. For a run:
the same tests in the same order, each with the same status, options,
metric names (with their params), verdict names, info keys and series
names; the system and end records with the same key paths. Figures,
times, verdict outcomes and notes are the run's own and are not compared.
Prints each difference; exit 0 when there is none, 1 otherwise, 2 on bad
input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

Record = dict[str, Any]


def load(path: Path) -> list[Record]:
    records = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from None
        if not isinstance(value, dict) or "record" not in value:
            raise ValueError(f"{path}:{n}: not a probe record")
        records.append(value)
    if not records:
        raise ValueError(f"{path}: no records")
    return records


def key_paths(value: Any, prefix: str = "") -> set[str]:
    """Every key path of a JSON value: a.b, a[].c (list items merged)."""
    if isinstance(value, dict):
        paths = set()
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            paths |= {path} | key_paths(item, path)
        return paths
    if isinstance(value, list):
        return set().union(*(key_paths(item, f"{prefix}[]") for item in value))
    return set()


def test_shape(r: Record) -> dict[str, Any]:
    return {
        "status": r.get("status"),
        "reason": r.get("reason"),
        "options": r.get("options"),
        "metrics": [(m["name"], m.get("params")) for m in r.get("metrics", [])],
        "verdicts": [v["name"] for v in r.get("verdicts", [])],
        "info": sorted(key_paths(r.get("info", {}))),
        "series": [s.get("name") for s in r.get("series", [])],
    }


def describe(before: Any, after: Any) -> str:
    """A difference of two values, lists as what only one side has."""
    if isinstance(before, list) and isinstance(after, list):
        b, a = [repr(x) for x in before], [repr(x) for x in after]
        only_b, only_a = [x for x in b if x not in a], [x for x in a if x not in b]
        if not only_b and not only_a:
            return "the same items in another order"
        return f"only before {only_b}, only after {only_a}"
    return f"{before!r} != {after!r}"


def compare_catalogues(before: list[Record], after: list[Record]) -> list[str]:
    diffs = []
    ids_b, ids_a = [r["id"] for r in before], [r["id"] for r in after]
    if ids_b != ids_a:
        diffs.append(f"catalogue ids: {describe(ids_b, ids_a)}")
    for b, a in zip(before, after, strict=False):  # a missing id is told above
        if b != a:
            keys = sorted(k for k in set(b) | set(a) if b.get(k) != a.get(k))
            diffs.append(
                f"{b['id']}: {', '.join(f'{k}: {b.get(k)!r} != {a.get(k)!r}' for k in keys)}"
            )
    return diffs


def compare_runs(before: list[Record], after: list[Record]) -> list[str]:
    diffs = []
    for kind in ("system", "end"):
        of_b = [r for r in before if r["record"] == kind]
        of_a = [r for r in after if r["record"] == kind]
        if len(of_b) != len(of_a):
            diffs.append(f"{kind} records: {len(of_b)} != {len(of_a)}")
            continue
        for rb, ra in zip(of_b, of_a, strict=True):
            only_b, only_a = key_paths(rb) - key_paths(ra), key_paths(ra) - key_paths(rb)
            if only_b or only_a:
                diffs.append(
                    f"{kind} keys: only before {sorted(only_b)}, only after {sorted(only_a)}"
                )
    tests_b = [r for r in before if r["record"] == "test"]
    tests_a = [r for r in after if r["record"] == "test"]
    ids_b, ids_a = [r["id"] for r in tests_b], [r["id"] for r in tests_a]
    if ids_b != ids_a:
        diffs.append(f"test ids: {describe(ids_b, ids_a)}")
    for b, a in zip(tests_b, tests_a, strict=False):  # a missing id is told above
        sb, sa = test_shape(b), test_shape(a)
        for key in sb:
            if sb[key] != sa[key]:
                diffs.append(f"{b['id']} {key}: {describe(sb[key], sa[key])}")
    return diffs


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: compare_record_shapes.py BEFORE.jsonl AFTER.jsonl", file=sys.stderr)
        return 2
    try:
        before, after = (load(Path(p)) for p in argv)
    except (OSError, ValueError) as exc:
        print(f"compare_record_shapes: {exc}", file=sys.stderr)
        return 2
    kinds = {before[0]["record"], after[0]["record"]}
    if kinds == {"catalogue"}:
        diffs = compare_catalogues(before, after)
        what = f"{len(before)} catalogue entries"
    elif kinds == {"system"}:
        diffs = compare_runs(before, after)
        what = f"{sum(r['record'] == 'test' for r in before)} test records"
    else:
        print(
            f"compare_record_shapes: not two outputs of one kind: {sorted(kinds)}", file=sys.stderr
        )
        return 2
    for d in diffs:
        print(d)
    print(f"{what}: {'the same shape' if not diffs else f'{len(diffs)} differences'}")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
