"""rtgauge list: every test the probe has, with its options and limits."""

from __future__ import annotations

import argparse
import dataclasses
import json

from rtgauge.cli.output import add_output, chosen_format, emit
from rtgauge.fmt import term
from rtgauge.model import CatalogueEntry
from rtgauge.probe import catalogue, find_probe


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--probe", help="the probe binary (default: build/rtgauge-probe)")
    add_output(p, ("text", "json"), piped="text")
    p.set_defaults(execute=execute)


def text_lines(entries: list[CatalogueEntry]) -> list[str]:
    lines = [f"{'test':<12} {'kind':<4} title"]
    for entry in entries:
        avail = "" if entry.available else f"  [skipped here: {term(entry.reason)}]"
        lines.append(f"{entry.id:<12} {entry.kind:<4} {term(entry.title)}{avail}")
        for o in entry.options:
            key, help_ = term(o.key), term(o.help)
            if o.type == "enum":
                lines.append(f"    {key:<16} one of {term(o.choices)}  {help_}")
            else:
                quick = f" (quick {o.quick:g})" if o.quick is not None else ""
                lines.append(
                    f"    {key:<16} default {o.default:g}{quick}, {o.min:g}..{o.max:g}  {help_}"
                )
    return lines


def execute(args: argparse.Namespace) -> int:
    entries = catalogue(find_probe(args.probe))
    if chosen_format(args) == "json":
        data = [dataclasses.asdict(e) for e in entries]
        emit(args, json.dumps(data, indent=1, ensure_ascii=False) + "\n", "json", "list")
    else:
        emit(args, "\n".join(text_lines(entries)) + "\n", "text", "list")
    return 0
