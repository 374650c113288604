"""A stored run as the host reads it: the typed views of its records and
what its figures may be used for, worked out once per bundle.

Every analysis takes a Run, so a report that rates, judges a deadline, warns
and compares reads each record once and decides the conditions once
(rtgauge.conditions), however many sections use them. What is judged against
choices (the audit at a latency budget, the deadline claims, the
explanations) is the analysed run's (rtgauge.analysis.analysed_run).
"""

from __future__ import annotations

from dataclasses import dataclass

from rtgauge.conditions import RunConditions, run_conditions
from rtgauge.intervals import with_rebuilt_tests
from rtgauge.model import Bundle, End, ImportInfo, System, TargetInfo, TestRecord


@dataclass(frozen=True)
class Run:
    bundle: Bundle  # the records as stored, for the formats that carry them
    system: System
    tests: list[TestRecord]
    end: End | None
    target: TargetInfo
    imported: ImportInfo | None
    conditions: RunConditions

    @classmethod
    def of(cls, bundle: Bundle) -> Run:
        system = bundle.system_view()
        # a duration test cut short is rebuilt from its interval records
        tests = [TestRecord.read(t, bundle.os) for t in with_rebuilt_tests(bundle)]
        target, imported = bundle.target_view(), bundle.import_view()
        end = bundle.end_view()
        return cls(
            bundle,
            system,
            tests,
            end,
            target,
            imported,
            run_conditions(system, tests, target, imported),
        )

    @property
    def complete(self) -> bool:
        return self.bundle.complete

    @property
    def host(self) -> str:
        return self.system.host.hostname

    @property
    def created_at(self) -> str:
        return self.bundle.created_at

    @property
    def label(self) -> str | None:
        """The run's --label (a kernel build, a board), when it has one."""
        return self.bundle.run_label

    def test(self, test_id: str) -> TestRecord | None:
        return next((t for t in self.tests if t.id == test_id), None)

    def family_title(self, fam: str) -> str | None:
        """A family's title, as its tests' records give it."""
        return next(
            (t.family_title for t in self.tests if t.family == fam and t.family_title), None
        )
