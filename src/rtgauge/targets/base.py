"""The one shape every target has: where the probe runs and how its lines come back.

A run through any target is the same four steps, driven by `rtgauge run`:

    with make_target(spec, args) as target:   # prepare(): find or copy the probe
        for line in target.run(probe_args):   # JSON lines as they arrive
            ...                               # (stop() may be called from a signal)
    # cleanup() has run: on success, on an error, on SIGINT

`describe()` says what the host knows about the target (kind, name, and whether
it is emulated or virtualised): it is stored in the bundle, and the conditions
module weighs it against what the probe found.
"""

from __future__ import annotations

import argparse
from abc import ABC, abstractmethod
from collections.abc import Iterator
from types import TracebackType
from typing import ClassVar

from rtgauge.model import Record


class Target(ABC):
    kind: ClassVar[str]  # "local", "ssh", "qemu": stored as the bundle's target.kind
    usage: ClassVar[str]  # how --target names it, for help and error messages
    stream: Iterator[str] | None = None  # what run() returned, once it has been called

    @classmethod
    @abstractmethod
    def matches(cls, spec: str) -> bool:
        """Whether this kind of target serves the --target string."""

    @classmethod
    @abstractmethod
    def from_args(cls, spec: str, args: argparse.Namespace) -> Target:
        """The target for a --target string and the run's options (UsageError if bad)."""

    @classmethod
    def add_options(cls, parser: argparse.ArgumentParser) -> None:
        """The command-line options of this kind of target (none by default)."""
        return None

    @abstractmethod
    def prepare(self) -> None:
        """Locates, builds or copies what the run needs; UsageError if it cannot."""

    @abstractmethod
    def run(self, probe_args: list[str]) -> Iterator[str]:
        """Runs the probe with these arguments; yields its JSON lines as they arrive."""

    def stop(self) -> None:
        """Asks a running probe to end early, keeping what it measured (from a signal
        handler: must not block). By default the signal reaches the child itself."""
        return None

    def cleanup(self) -> None:
        """Ends and removes whatever the run left (processes, files): idempotent.
        By default the stream is closed: a generator's own `finally` (or its
        GeneratorExit handler) ends the process and removes the files."""
        close = getattr(self.stream, "close", None)
        if close:
            close()

    @abstractmethod
    def outcome(self) -> tuple[int | None, str | None]:
        """After run(): the probe's exit code, and the target's last word on an error."""

    @abstractmethod
    def describe(self) -> Record:
        """The bundle's target record: kind, name, emulated, virtualised (None:
        not known to the host), and what else identifies the target. Complete
        once run() has ended (a QEMU guest knows its accelerator only then)."""

    @property
    def probe_command(self) -> str:
        """The probe as the bundle's command names it."""
        return "rtgauge-probe"

    def __enter__(self) -> Target:
        try:
            self.prepare()
        except BaseException:
            self.cleanup()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.cleanup()


def target_record(
    kind: str, name: str, emulated: bool | None, virtualised: bool | None, **extra: object
) -> Record:
    """The shape describe() returns, the same for every target."""
    return {"kind": kind, "name": name, "emulated": emulated, "virtualised": virtualised, **extra}
