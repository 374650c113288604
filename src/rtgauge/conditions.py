"""What a run's figures may be used for: the one place that decides it.

Two sources speak about a run: the probe (its system record, and each test's
conditions and notes) and the host (what it knows about the target it
started: a QEMU guest under TCG is emulated even when the probe inside could
not tell). Either source is enough to withhold trust; neither can grant it
alone when the other withholds it.

- Emulated: timings say nothing about the OS (the CPU is software); behaviour
  verdicts still hold. Under QEMU's instruction counting (-icount) they are
  virtual time: reproducible, a cost in instructions, still not a real CPU's.
- No SCHED_FIFO or no mlockall: the figures are those of an ordinary
  process (preemptible by anything, page faults included), not real-time.
- Virtualised (a hypervisor below): figures are real but the hypervisor may
  steal time; they are rated (the lab compares guests like for like) and
  said to be from a virtual machine.

- Imported (rtgauge import) from a source that does not record the policy,
  priority and memory locking it ran under: the conditions are unknown, so
  the figures are not treated as real-time either; what the source did
  record (cyclictest --json's command line) counts like the probe's word.

Timing is rated only when meaningful and real-time; a deadline verdict is
shown as met (green) only under the same conditions.

Per test and per family, the same module decides:
- A test that ended in error (a watchdog, a crash) or was interrupted left
  partial figures: they are shown, marked partial, and feed no rating, no
  deadline verdict and no "better" mark of a comparison.
- A family whose behaviour test errored, was interrupted or was skipped has
  verdicts nobody saw pass: it is not rated as if they had.
- A figure whose condition did not hold while it was measured (the probe's
  `condition_unmet`: THR-P-BKG's background processes never ran) is not
  what its name says: shown with why, never rated, compared or judged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rtgauge.model import ImportInfo, System, TargetInfo, TestRecord

RT_POLICIES = ("SCHED_FIFO", "SCHED_RR")
# Statuses of a test that stopped before it finished measuring.
PARTIAL_STATUSES = ("error", "interrupted")
# Statuses of a behaviour test whose verdicts were not (all) given.
UNJUDGED_STATUSES = (*PARTIAL_STATUSES, "skipped")


def figures_partial(test: TestRecord) -> bool:
    """The test stopped before it finished: its figures are partial."""
    return test.status in PARTIAL_STATUSES


@dataclass(frozen=True)
class RunConditions:
    emulated: bool
    emulated_known_by: tuple[str, ...]  # "probe", "host": who said so
    virtualised: bool
    rt_policy_ok: bool  # SCHED_FIFO obtained for the run and every test that measured
    mlock_ok: bool  # mlockall obtained for the run and every test that measured
    reasons: list[str] = field(default_factory=list)  # each limit in words, worst first
    partial_tests: tuple[str, ...] = ()  # ids whose figures are partial
    # family -> why its behaviour verdicts cannot be taken as passed
    behaviour_unjudged: dict[str, str] = field(default_factory=dict)
    virtual_time: bool = False  # emulated under instruction counting (QEMU -icount)
    unrecorded: str | None = None  # imported from this source, which did not record them
    # (test id, figure name) -> the condition its name promises that did not hold
    unmet_figures: dict[tuple[str, str], str] = field(default_factory=dict)

    def figures_usable(self, test_id: str, figure: str | None = None) -> bool:
        """The test's figures (with figure: that one of them) may feed
        ratings, deadline verdicts and marks."""
        return test_id not in self.partial_tests and (test_id, figure) not in self.unmet_figures

    def figure_unmet(self, test_id: str, figure: str) -> str | None:
        """Why the figure is not what its name says, or None."""
        return self.unmet_figures.get((test_id, figure))

    @property
    def timing_meaningful(self) -> bool:
        """The figures measure the OS at all (not an emulated CPU)."""
        return not self.emulated

    @property
    def timing_rateable(self) -> bool:
        """The figures are real-time figures: fit for stars and comparisons."""
        return self.timing_meaningful and self.rt_policy_ok and self.mlock_ok

    @property
    def deadline_verdict_allowed(self) -> bool:
        """A met deadline may be claimed (shown green)."""
        return self.timing_rateable

    @property
    def timing_limit(self) -> str | None:
        """Why timing is not rated, in a few words; None when it is."""
        if self.emulated and self.virtual_time:
            return "emulated CPU, timings are virtual time (instruction counts)"
        if self.emulated:
            return "emulated CPU, timings are not meaningful"
        if self.unrecorded:
            return f"imported from {self.unrecorded}, which does not record the conditions"
        if not self.rt_policy_ok:
            return "ran without SCHED_FIFO, figures are not real-time"
        if not self.mlock_ok:
            return "ran without mlockall, figures are not real-time"
        return None


def run_conditions(
    system: System, tests: list[TestRecord], target: TargetInfo, imported: ImportInfo | None
) -> RunConditions:
    """Decided once per run (rtgauge.run.Run holds it): the probe's records
    and the host's target record weighed together."""
    virt, priv = system.virtualization, system.privileges
    measured = [t for t in tests if t.metrics]
    by_probe = bool(virt.emulated) or any(n.startswith("emulated") for t in tests for n in t.notes)
    by_host = bool(target.emulated)
    known_by = tuple(who for who, said in (("probe", by_probe), ("host", by_host)) if said)
    emulated = bool(known_by)
    virtualised = not emulated and (
        bool(virt.hypervisor)
        or bool(target.virtualised)
        or any(t.conditions.virtualized for t in measured)
    )
    rt_ok = priv.sched_fifo and all(t.conditions.policy in RT_POLICIES for t in measured)
    mlock_ok = priv.mlockall and all(t.conditions.mlockall for t in measured)

    virtual_time = emulated and (
        target.icount_shift is not None or "-icount" in str(virt.vendor or "")
    )
    unrecorded = None if imported is None or imported.conditions_known else imported.source
    if unrecorded:
        rt_ok = mlock_ok = False

    reasons: list[str] = []
    if virtual_time:
        who = " and ".join(known_by)
        reasons.append(
            f"emulated with instruction counting (known to the {who}): timings are virtual "
            "time, reproducible, a cost in instructions and not a real CPU's; behaviour "
            "verdicts are valid"
        )
    elif emulated:
        who = " and ".join(known_by)
        reasons.append(
            f"emulated (known to the {who}): timings are not meaningful; behaviour verdicts are valid"
        )
    if unrecorded:
        reasons.append(
            f"imported from {unrecorded}: whether it ran with SCHED_FIFO and mlockall is not "
            "recorded, so the figures are not treated as real-time"
        )
    elif not rt_ok:
        why = priv.sched_fifo_reason or (
            "not obtained" if not priv.sched_fifo else "some tests ran without it"
        )
        reasons.append(f"no SCHED_FIFO ({why}): the figures are not real-time")
    if not mlock_ok and not unrecorded:
        why = priv.mlockall_reason or (
            "not obtained" if not priv.mlockall else "some tests ran without it"
        )
        reasons.append(f"no mlockall ({why}): page faults may appear in the figures")
    if virtualised:
        vendor = f" ({virt.vendor})" if virt.vendor else ""
        reasons.append(f"hypervisor present{vendor}: it can steal time from any measurement")
    partial = tuple(t.id for t in tests if figures_partial(t))
    unjudged: dict[str, str] = {}
    for t in tests:
        if t.kind == "B" and t.status in UNJUDGED_STATUSES:
            why = f"{t.id} {t.status}" + (f" ({t.reason})" if t.reason else "")
            unjudged.setdefault(t.family, why)
    unmet = {
        (t.id, m.name): m.condition_unmet for t in tests for m in t.metrics if m.condition_unmet
    }
    return RunConditions(
        emulated,
        known_by,
        virtualised,
        rt_ok,
        mlock_ok,
        reasons,
        partial,
        unjudged,
        virtual_time=virtual_time,
        unrecorded=unrecorded,
        unmet_figures=unmet,
    )
