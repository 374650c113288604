"""`rtgauge run --limits FILE`: the file read before anything runs (a bad
one is exit code 2, nothing run), and after the run each figure checked
against its calibrated limit (analysis.limits), said in the summary."""

from __future__ import annotations

from pathlib import Path

from rtgauge.analysis.history import system_name
from rtgauge.analysis.limits import LimitCheck, Limits, check_run
from rtgauge.analysis.limits_json import load
from rtgauge.fmt import term
from rtgauge.run import Run


def read(path: Path | None) -> Limits | None:
    return None if path is None else load(path)


def limits_lines(limits: Limits, r: Run) -> tuple[list[str], list[LimitCheck]]:
    """The summary's lines about the limits, and the limits exceeded."""
    checks = check_run(limits, r)
    exceeded = [c for c in checks if c.exceeded]
    checked = [c for c in checks if c.checked]
    lines = [f"\nlimits: {term(limits.summary())}"]
    system = system_name(r)
    if system != limits.system:
        lines.append(
            f"  note: calibrated on {term(limits.system)}, this run is of {term(system)}: "
            "checked all the same"
        )
    for c in checks:
        word = "FAIL" if c.exceeded else "pass" if c.checked else "----"
        lines.append(f"  {word} {c.limit.test} {term(c.name)}: {term(c.evidence())}")
    if not checked:
        lines.append("limits: none applies to this run (other tests, options or conditions)")
    elif exceeded:
        lines.append(f"limits: {len(exceeded)} of {len(checked)} exceeded")
    else:
        lines.append(f"limits: all {len(checked)} checked within their limits")
    return lines, exceeded
