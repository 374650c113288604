"""rtgauge list: every test the probe has, with its options and limits."""

from __future__ import annotations

import argparse

from rtgauge.fmt import term
from rtgauge.probe import catalogue, find_probe


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--probe", help="the probe binary (default: build/rtgauge-probe)")
    p.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    entries = catalogue(find_probe(args.probe))
    print(f"{'test':<12} {'kind':<4} title")
    for entry in entries:
        avail = "" if entry.available else f"  [skipped here: {term(entry.reason)}]"
        print(f"{entry.id:<12} {entry.kind:<4} {term(entry.title)}{avail}")
        for o in entry.options:
            key, help_ = term(o.key), term(o.help)
            if o.type == "enum":
                print(f"    {key:<16} one of {term(o.choices)}  {help_}")
            else:
                quick = f" (quick {o.quick:g})" if o.quick is not None else ""
                print(f"    {key:<16} default {o.default:g}{quick}, {o.min:g}..{o.max:g}  {help_}")
    return 0
