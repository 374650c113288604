"""Like with like: what sets runs apart beside the system they measured,
said before their figures are put side by side (compare) or in a row
(history), and a name for each run that tells it apart from the others.

Runs whose tests measured for a different time, gathered very different
numbers of samples, ran with other options, one `--quick` and one not, with
another probe version, on another kind of target or on firmware built with
another profile (its kernel's checks on or off), may differ for that
reason alone: a maximum over 1,000 wake-ups is not a maximum over 10,000.
Each such difference is one line; none stops a comparison.
"""

from __future__ import annotations

import json
from datetime import datetime

from rtgauge.run import Run

RATIO = 2.0  # a duration or a sample count this many times another's is said


def kind(r: Run) -> str:
    """How the run was made: quick, default (scaled), or imported."""
    if r.imported is not None:
        return "imported"
    base = "quick" if r.system.run.quick else "default"
    scale = r.system.run.duration_scale
    return base if scale == 1 else f"{base} ×{scale:g}"


def when(r: Run) -> str:
    """The run's time to the minute, as stored (UTC for a run of rtgauge)."""
    try:
        return datetime.fromisoformat(r.created_at).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return r.created_at or "no time"


def run_name(r: Run) -> str:
    """'L, 2026-11-27 12:03, quick': its label (else its host), time and kind."""
    return f"{r.label or r.host}, {when(r)}, {kind(r)}"


def target_of(r: Run) -> str:
    t = r.target
    out = t.kind + (f":{t.place}" if t.place else "")
    extra = [x for x in (t.accel, t.name if t.kind == "ssh" else None) if x]
    return out + (f" ({', '.join(extra)})" if extra else "")


def profile_of(r: Run) -> str | None:
    """The firmware's build profile (FreeRTOS: checked or lean), None where no
    run of the comparison records one (Linux)."""
    return r.system.profile


def _profiles(runs: list[Run], names: list[str]) -> list[str]:
    said = [profile_of(r) for r in runs]
    if not any(said):
        return []
    pairs = [(p or "not recorded", n) for p, n in zip(said, names, strict=True)]
    return _same_for_all("firmware profile", pairs)


def _spread(pairs: list[tuple[str, str]]) -> str:
    """value (name, name and N more); value (name) …: who holds which value."""
    by: dict[str, list[str]] = {}
    for value, name in pairs:
        by.setdefault(value, []).append(name)
    parts = []
    for value, names in by.items():
        who = ", ".join(names[:2]) + (f" and {len(names) - 2} more" if len(names) > 2 else "")
        parts.append(f"{value} ({who})")
    return "; ".join(parts)


def _same_for_all(label: str, pairs: list[tuple[str, str]]) -> list[str]:
    if len({v for v, _ in pairs}) < 2:
        return []
    return [f"runs differ in {label}: {_spread(pairs)}"]


def _options(runs: list[Run], names: list[str]) -> list[str]:
    parts = []
    tests: list[str] = []
    for r in runs:
        tests += [t.id for t in r.tests if t.id not in tests]
    for test_id in tests:
        held = [(t, n) for r, n in zip(runs, names, strict=True) if (t := r.test(test_id))]
        if len({json.dumps(t.options, sort_keys=True) for t, _ in held}) < 2:
            continue
        keys = sorted({k for t, _ in held for k in t.options})
        for key in keys:
            pairs = [(json.dumps(t.options.get(key)), n) for t, n in held]
            if len({v for v, _ in pairs}) > 1:
                parts.append(f"{test_id} {key} {_spread(pairs)}")
    return [f"runs differ in options: {'; '.join(parts)}"] if parts else []


def _ratio_line(what: str, spans: list[tuple[float, str, str, str]]) -> list[str]:
    """spans: (ratio, subject, the low value and its run, the high one and its run)."""
    far = [s for s in spans if s[0] > RATIO]
    if not far:
        return []
    ratio, subject, low, high = max(far, key=lambda s: s[0])
    more = f" (and {len(far) - 1} more)" if len(far) > 1 else ""
    return [
        f"runs differ in {what} by more than {RATIO:g}×: {subject} {low} against {high}"
        f" ({ratio:.1f}×){more}"
    ]


def _durations(runs: list[Run], names: list[str]) -> list[str]:
    spans = []
    tests: list[str] = []
    for r in runs:
        tests += [t.id for t in r.tests if t.id not in tests]
    for test_id in tests:
        held = [
            (t.duration_ms, n)
            for r, n in zip(runs, names, strict=True)
            if (t := r.test(test_id)) is not None and t.duration_ms > 0
        ]
        if len(held) < 2:
            continue
        lo, hi = min(held), max(held)
        spans.append(
            (
                hi[0] / lo[0],
                test_id,
                f"{lo[0] / 1e3:,.2f} s ({lo[1]})",
                f"{hi[0] / 1e3:,.2f} s ({hi[1]})",
            )
        )
    return _ratio_line("test duration", spans)


def _samples(runs: list[Run], names: list[str]) -> list[str]:
    spans = []
    figures: list[tuple[str, str]] = []
    for r in runs:
        for rec in r.tests:
            figures += [(rec.id, m.name) for m in rec.metrics if (rec.id, m.name) not in figures]
    for test_id, name in figures:
        held = [
            (m.count, n)
            for r, n in zip(runs, names, strict=True)
            if (t := r.test(test_id)) is not None and (m := t.metric(name)) is not None and m.count
        ]
        if len(held) < 2:
            continue
        lo, hi = min(held), max(held)
        spans.append(
            (hi[0] / lo[0], f"{test_id} {name}", f"{lo[0]:,} ({lo[1]})", f"{hi[0]:,} ({hi[1]})")
        )
    return _ratio_line("sample counts", spans)


def unlike(runs: list[Run], names: list[str] | None = None) -> list[str]:
    """One line per way the runs differ in how they were made (pure)."""
    if len(runs) < 2:
        return []
    names = names or [run_name(r) for r in runs]
    out: list[str] = []
    out += _durations(runs, names)
    out += _samples(runs, names)
    out += _options(runs, names)
    out += _same_for_all("quick/default", [(kind(r), n) for r, n in zip(runs, names, strict=True)])
    out += _same_for_all(
        "probe version", [(r.system.probe.version, n) for r, n in zip(runs, names, strict=True)]
    )
    out += _same_for_all("target", [(target_of(r), n) for r, n in zip(runs, names, strict=True)])
    out += _profiles(runs, names)
    return out
