"""Star ratings per family and overall, from written criteria (a data file
users can replace)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from rtgauge.errors import UsageError
from rtgauge.fmt import us
from rtgauge.model import Metric, TestRecord
from rtgauge.run import Run


@dataclass
class Rating:
    family: str
    stars: int | None  # None: not rated
    figure_ns: float | None
    why: str


def load_criteria(path: Path | None = None) -> dict[str, Any]:
    try:
        if path is None:
            text = resources.files("rtgauge").joinpath("data/ratings.json").read_text()
        else:
            text = path.read_text()
        data: dict[str, Any] = json.loads(text)
    except OSError as exc:
        raise UsageError(f"cannot read criteria {path}: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise UsageError(f"criteria {path}: not JSON ({exc.msg} at line {exc.lineno})") from exc
    fams = data.get("families")
    if not isinstance(fams, dict) or not fams:
        raise UsageError(f"criteria {path}: 'families' must be a non-empty object")
    for name, c in fams.items():
        ok = (
            isinstance(c, dict)
            and (isinstance(c.get("metric"), str) or c.get("release_latency") is True)
            and c.get("stat") in ("max", "mean", "p99", "p99_9", "p99_99", "p50")
            and c.get("reduce") in ("max", "min", "mean")
            and isinstance(c.get("stars"), list)
            and all(isinstance(s, list) and len(s) == 2 for s in c["stars"])
        )
        if not ok:
            raise UsageError(
                f"criteria {path}: family {name!r} needs metric (or release_latency), stat, "
                "reduce, stars"
            )
        try:
            re.compile(c.get("metric", ""))
        except re.error as exc:
            raise UsageError(
                f"criteria {path}: family {name!r}: bad metric pattern: {exc}"
            ) from exc
    return data


def _stars(value: float, thresholds: list[list[float]]) -> int:
    for limit, stars in thresholds:
        if value <= limit:
            return int(stars)
    return 1


def _rate_by_verdicts(run: Run, fam: str, c: dict[str, Any]) -> Rating | None:
    """A behaviour-only family: every verdict holds (5) or one fails (1);
    order, not timing, so an emulated run is rated too."""
    verdicts = [v for t in run.tests if t.family == fam for v in t.verdicts]
    if not verdicts:
        has_tests = any(t.family == fam for t in run.tests)
        return Rating(fam, None, None, "not rated: no verdict") if has_tests else None
    failed = sum(1 for v in verdicts if v.failed)
    differ = sum(1 for v in verdicts if v.documented)
    what = c.get("what", fam)
    if failed:
        return Rating(fam, 1, None, f"{what}: {failed} of {len(verdicts)} verdicts fail")
    if differ:  # not a failure: the OS says it behaves so
        return Rating(
            fam, 5, None, f"{what}: every verdict holds or differs as the OS documents ({differ})"
        )
    return Rating(fam, 5, None, f"{what}: every verdict holds")


def _selects(c: dict[str, Any]) -> Callable[[TestRecord, Metric], bool]:
    """Which figures a criterion rates: those its pattern names, or (with
    "release_latency": true) those the probe says are latencies from a
    release instant, whatever their names."""
    if c.get("release_latency") is True:
        return lambda t, m: t.is_release_latency(m)
    pattern = re.compile(c["metric"])
    return lambda t, m: bool(pattern.search(m.name))


def rate(run: Run, criteria: dict[str, Any]) -> list[Rating]:
    cond = run.conditions
    limit = cond.timing_limit  # None: timing may be rated
    failed_fams = {t.family for t in run.tests for v in t.verdicts if v.failed}
    out = []
    for fam, c in criteria["families"].items():
        if c.get("by") == "verdicts":
            rating = _rate_by_verdicts(run, fam, c)
            if rating is not None:
                out.append(rating)
            continue
        selects = _selects(c)
        matching = [
            (t.id, m.name, float(value))
            for t in run.tests
            if t.family == fam
            for m in t.metrics
            if selects(t, m) and (value := m.stat(c["stat"])) is not None
        ]
        # Partial figures (a test in error or interrupted), and those whose
        # condition did not hold, are shown, never rated.
        values = [v for tid, name, v in matching if cond.figures_usable(tid, name)]
        partial = sorted({tid for tid, _, _ in matching if not cond.figures_usable(tid)})
        unmet = [
            f"{tid} {name}"
            for tid, name, _ in matching
            if cond.figures_usable(tid) and not cond.figures_usable(tid, name)
        ]
        has_tests = any(t.family == fam for t in run.tests)
        if fam in failed_fams and not values:
            out.append(Rating(fam, 1, None, "a behaviour verdict fails"))
            continue
        if fam in cond.behaviour_unjudged and fam not in failed_fams and limit is None:
            why = cond.behaviour_unjudged[fam]
            figure = max(values) if values else None
            out.append(Rating(fam, None, figure, f"not rated: behaviour not judged ({why})"))
            continue
        if not values:
            if partial:
                out.append(
                    Rating(fam, None, None, f"not rated: partial figures ({', '.join(partial)})")
                )
            elif unmet:
                why = f"not rated: measured without their condition ({', '.join(unmet)})"
                out.append(Rating(fam, None, None, why))
            elif has_tests:
                out.append(Rating(fam, None, None, "not rated: no figure matches the criterion"))
            continue
        reduce = c["reduce"]
        figure = (
            max(values)
            if reduce == "max"
            else min(values)
            if reduce == "min"
            else sum(values) / len(values)
        )
        if limit is not None:
            out.append(Rating(fam, None, figure, f"not rated: {limit}"))
            continue
        stars = _stars(figure, c["stars"])
        why = f"{c.get('what', fam)}: {us(figure)} µs"
        if fam in failed_fams and stars > criteria.get("cap_on_fail", 2):
            stars = int(criteria.get("cap_on_fail", 2))
            why += "; capped: a behaviour verdict fails"
        if unmet:
            why += f"; left out, measured without their condition: {', '.join(unmet)}"
        out.append(Rating(fam, stars, figure, why))
    return out


def overall(ratings: list[Rating]) -> int | None:
    rated = [r.stars for r in ratings if r.stars is not None]
    if not rated:
        return None
    value = int(sum(rated) / len(rated))
    tmr = next((r.stars for r in ratings if r.family == "TMR" and r.stars is not None), None)
    if tmr is not None:
        value = min(value, tmr + 1)
    return max(1, value)


def stars_text(n: int | None) -> str:
    return "not rated" if n is None else "★" * n + "☆" * (5 - n)


def criteria_lines(criteria: dict[str, Any]) -> list[tuple[str, str]]:
    """Each criterion in words, for the report."""
    out = []
    for fam, c in criteria["families"].items():
        if c.get("by") == "verdicts":
            out.append((fam, f"{c.get('what', fam)}: every verdict holds ★★★★★; one fails ★☆☆☆☆"))
            continue
        steps = " / ".join(f"≤ {us(limit)} µs {stars_text(int(s))}" for limit, s in c["stars"])
        what = c["what"] if "what" in c else c.get("metric", "latencies from a release instant")
        out.append((fam, f"{what} ({c['stat']}): {steps}; above: ★☆☆☆☆"))
    out.append(
        (
            "behaviour",
            f"a family with a failing verdict gets at most {criteria.get('cap_on_fail', 2)} stars",
        )
    )
    out.append(("overall", str(criteria.get("overall", "mean of the rated families"))))
    return out
