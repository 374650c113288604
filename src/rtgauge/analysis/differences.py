"""What differs between systems: their kernel command lines parameter by
parameter, the real-time-relevant kernel options, the settings the audit
reads, and the audit's findings side by side. Rows that differ first."""

from __future__ import annotations

from dataclasses import dataclass

from rtgauge.audit import ALL, Audit
from rtgauge.audit.settings import CMDLINE, GROUPS, settings
from rtgauge.run import Run

AUDIT = "audit"


@dataclass(frozen=True)
class SettingRow:
    group: str  # CMDLINE, KCONFIG, SYSTEM or AUDIT
    name: str
    values: list[str | None]  # per system; None: not read there (or absent)

    @property
    def known(self) -> list[str]:
        return [v for v in self.values if v is not None]

    @property
    def differs(self) -> bool:
        """The systems that have it give different values."""
        return len(set(self.known)) > 1

    @property
    def partial(self) -> bool:
        """Some systems have it, others do not."""
        return not self.differs and len(self.known) < len(self.values)


def differences(runs: list[Run], audits: list[Audit]) -> list[SettingRow]:
    """Every setting and finding of the runs (each run's audit, in the runs'
    order, as the analysed run judged it): those that differ first, then
    those only some systems have, then those alike; within each, in the
    groups' order."""
    per = [settings(r.system) for r in runs]
    rows: list[SettingRow] = []
    for group in GROUPS:
        names: list[str] = []
        for p in per:
            names += [n for n in p[group] if n not in names]
        for name in names:
            values = [p[group].get(name) for p in per]
            if group == CMDLINE:  # a parameter missing from a command line read is absent
                values = [
                    "(absent)" if v is None and r.system.kernel.cmdline is not None else v
                    for v, r in zip(values, runs, strict=True)
                ]
            rows.append(SettingRow(group, name, values))
    for check in ALL:
        found = [a.get(check.id) for a in audits]
        if all(f is None for f in found):
            continue
        values = [
            None if f is None else f"{f.status.upper()}" + (f" {f.value}" if f.value else "")
            for f in found
        ]
        rows.append(SettingRow(AUDIT, check.id, values))
    return (
        [r for r in rows if r.differs]
        + [r for r in rows if r.partial]
        + [r for r in rows if not r.differs and not r.partial]
    )
