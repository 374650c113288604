"""The kernel's command line, parameter by parameter. Parameters end at
"--" (what follows goes to init); a value may be quoted ("a b")."""

from __future__ import annotations

import shlex
from dataclasses import dataclass


@dataclass(frozen=True)
class KernelParams:
    """name -> every value it was given, in order (None: a bare flag)."""

    params: dict[str, list[str | None]]

    @classmethod
    def parse(cls, cmdline: str | None) -> KernelParams:
        out: dict[str, list[str | None]] = {}
        try:
            words = shlex.split(cmdline or "")
        except ValueError:  # an unbalanced quote: split on spaces
            words = (cmdline or "").split()
        for word in words:
            if word == "--":
                break
            name, eq, value = word.partition("=")
            out.setdefault(name, []).append(value if eq else None)
        return cls(out)

    def has(self, name: str) -> bool:
        return name in self.params

    def value(self, name: str) -> str | None:
        """The last value given (the kernel takes the last), or None."""
        values = [v for v in self.params.get(name, []) if v is not None]
        return values[-1] if values else None

    def flat(self) -> dict[str, str]:
        """Each parameter as one text: its value, "" for a flag."""
        return {
            k: " ".join(v if v is not None else "" for v in vs) for k, vs in self.params.items()
        }
