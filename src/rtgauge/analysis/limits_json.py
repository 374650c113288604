"""Calibrated limits as JSON (schema/limits-v1.json, shipped in the package
as rtgauge/data/limits-v1.json): written by `history --calibrate`, kept in
the store per label, read by `run --limits FILE` and `history --check`.
A file that does not fit is one UsageError line, never a traceback."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from rtgauge.analysis.limits import LIMITS_VERSION, METHOD, Limit, Limits, Uncalibrated
from rtgauge.errors import UsageError


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    text = resources.files("rtgauge").joinpath("data/limits-v1.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def to_dict(lim: Limits) -> dict[str, Any]:
    return {
        "limits_version": LIMITS_VERSION,
        "label": lim.label,
        "system": lim.system,
        "created_at": lim.created_at,
        "method": METHOD,
        "false_alarm": {"asked": lim.asked},
        "runs": {"count": lim.runs, "first": lim.first, "last": lim.last},
        "limits": [
            {
                "test": x.test,
                "metric": x.metric,
                "stat": x.stat,
                "limit_ns": x.limit_ns,
                "runs": x.runs,
                "rank": x.rank,
                "false_alarm": x.false_alarm,
                "options": x.options,
                "conditions": x.conditions,
            }
            for x in lim.limits
        ],
        "uncalibrated": [
            {"test": u.test, "metric": u.metric, "stat": u.stat, "why": u.why}
            for u in lim.uncalibrated
        ],
        "notes": list(lim.notes),
    }


def dumps(lim: Limits) -> str:
    return json.dumps(to_dict(lim), indent=1, ensure_ascii=False) + "\n"


def from_dict(data: Any, where: str) -> Limits:
    """Limits from parsed JSON, checked against the schema first."""
    import jsonschema

    if isinstance(data, dict) and data.get("limits_version") not in (None, LIMITS_VERSION):
        raise UsageError(
            f"{where}: unsupported limits_version {data.get('limits_version')!r} "
            f"(this is v{LIMITS_VERSION})"
        )
    errors = sorted(
        jsonschema.Draft202012Validator(schema()).iter_errors(data),
        key=lambda e: -len(e.absolute_path),
    )
    if errors:
        e = errors[0]
        at = "/".join(str(p) for p in e.absolute_path) or "top level"
        raise UsageError(f"{where}: not a limits file: at {at}: {e.message}")
    for x in data["limits"]:
        if x["rank"] > x["runs"]:
            raise UsageError(f"{where}: not a limits file: a rank above its runs ({x['test']})")
    runs = data["runs"]
    return Limits(
        label=data["label"],
        system=data["system"],
        created_at=data["created_at"],
        asked=float(data["false_alarm"]["asked"]),
        runs=int(runs["count"]),
        first=runs["first"],
        last=runs["last"],
        limits=[
            Limit(
                x["test"],
                x["metric"],
                x["stat"],
                float(x["limit_ns"]),
                int(x["runs"]),
                int(x["rank"]),
                dict(x["options"]),
                dict(x["conditions"]),
            )
            for x in data["limits"]
        ],
        uncalibrated=[
            Uncalibrated(u["test"], u["metric"], u["stat"], u["why"]) for u in data["uncalibrated"]
        ],
        notes=[str(n) for n in data["notes"]],
    )


def loads(text: str, where: str) -> Limits:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not JSON ({exc.msg} at line {exc.lineno})") from None
    return from_dict(data, where)


def load(path: Path) -> Limits:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UsageError(f"cannot read {path}: {reason}") from None
    return loads(text, str(path))
