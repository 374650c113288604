"""Old spellings of options, kept for one release: each still works and
says its new spelling in one line on stderr."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from rtgauge.cli.output import note

GOING = "the old spelling goes in the next release"


class Renamed(argparse.Action):
    """An option's old name: stores into the new one's dest, with a note."""

    def __init__(self, option_strings: Sequence[str], dest: str, new: str, **kw: Any) -> None:
        kw.setdefault("help", argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kw)
        self.new = new

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        note(f"{option_string} is now {self.new}; {GOING}")
        setattr(namespace, self.dest, values)
