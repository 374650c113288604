"""rtgauge list: every test the probe has, with its options and limits."""

from __future__ import annotations

import argparse

from rtgauge.probe import catalogue, find_probe


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("list", help="the tests and their options")
    p.add_argument("--probe", help="the probe binary (default: build/rtgauge-probe)")
    p.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    for entry in catalogue(find_probe(args.probe)):
        avail = "" if entry["available"] else f"  [skipped here: {entry['reason']}]"
        print(f"{entry['id']:<12} {entry['kind']}  {entry['title']}{avail}")
        for o in entry["options"]:
            if o["type"] == "enum":
                print(f"    {o['key']:<16} one of {o['choices']}  {o['help']}")
            else:
                quick = f" (quick {o['quick']:g})" if "quick" in o else ""
                print(
                    f"    {o['key']:<16} default {o['default']:g}{quick}, "
                    f"{o['min']:g}..{o['max']:g}  {o['help']}"
                )
    return 0
