"""What the index holds of a bundle: the facts pages filter and sort on, one
row for the run and one per test. Pure: a bundle in, rows out."""

from __future__ import annotations

import hashlib
import json
import math
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rtgauge.errors import UsageError

if TYPE_CHECKING:  # the views are loaded to write or read a bundle, not to list the index
    from rtgauge.model import Bundle, TargetInfo

STATUSES = ("ok", "failed", "errors", "incomplete")


def target_name(target: TargetInfo) -> str:
    """The index's target column: the kind, and for a labgrid board its place
    (boards of one kind often share a host name)."""
    return f"{target.kind}:{target.place}" if target.place else target.kind


def utc_naive(text: str | None) -> datetime | None:
    """An ISO time as naive UTC (how both engines store times), or None."""
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when


def now_utc() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None, microsecond=0)


def run_status(complete: bool, failed: int, errors: int) -> str:
    """incomplete, else the worst outcome: errors, failed, or ok."""
    if not complete:
        return "incomplete"
    if errors:
        return "errors"
    return "failed" if failed else "ok"


def finite(value: float | None) -> float | None:
    """A figure as the index and the API keep it: None when not a finite number."""
    return value if value is None or math.isfinite(value) else None


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:30]} is beyond a double")
    return value


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def parse_bundle(raw: bytes, where: str) -> Bundle:
    """A bundle from the exact bytes received: UTF-8 JSON (strict: no NaN or
    Infinity, no number beyond a double), every record checked against the
    schema; any fault is one UsageError line."""
    from rtgauge.model import Bundle

    try:
        data = json.loads(
            raw.decode("utf-8"), parse_float=_finite_float, parse_constant=_no_constant
        )
    except UnicodeDecodeError:
        raise UsageError(f"{where}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not JSON ({exc.msg} at line {exc.lineno})") from None
    except ValueError as exc:
        raise UsageError(f"{where}: not JSON ({exc})") from None
    except RecursionError:
        raise UsageError(f"{where}: JSON nested too deeply") from None
    return Bundle.from_dict(data, where)


def stored_bundle(raw: bytes, sha256: str, where: str) -> Bundle:
    """A bundle read back from the store. Its bytes were checked against the
    schema when they came in and are named by their hash: when they still have
    that hash they are those bytes, and are not checked again (a long history
    reads a thousand bundles). Bytes changed since (a file edited on disk) are
    checked like any input."""
    from rtgauge.model import Bundle

    if hashlib.sha256(raw).hexdigest() != sha256:
        return parse_bundle(raw, where)
    data = json.loads(raw.decode("utf-8"))
    return Bundle(
        system=data["system"],
        tests=data["tests"],
        end=data.get("end"),
        command=[str(c) for c in data["command"]],
        created_at=str(data.get("created_at", "")),
        target=data["target"],
        run_label=data.get("label"),
        imported=data.get("import"),
    )


def index_values(bundle: Bundle) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The run's row (without the storage columns) and its tests' rows: each
    test's headline figure (the one its history follows), worked out when a
    run is indexed, not when the index is read."""
    from rtgauge.intervals import with_rebuilt_tests
    from rtgauge.model import TestRecord

    system, end, target = bundle.system_view(), bundle.end_view(), bundle.target_view()
    # a duration test cut short is indexed as its report shows it: rebuilt
    tests = [TestRecord.read(t, bundle.os) for t in with_rebuilt_tests(bundle)]
    statuses = [t.status for t in tests]
    passed = end.passed if end else sum(s in ("ok", "pass") for s in statuses)
    failed = end.failed if end else statuses.count("fail")
    errors = end.errors if end else statuses.count("error")
    skipped = end.skipped if end else statuses.count("skipped")
    when = utc_naive(bundle.created_at) or utc_naive(system.started_at) or now_utc()
    test_rows: list[dict[str, Any]] = []
    worst: float | None = None
    for seq, t in enumerate(tests):
        m = t.headline
        tail = float(m.tail) if m is not None and m.tail is not None else None
        top = finite(float(m.max)) if m is not None and m.max is not None else None
        if top is not None and t.latency_test:
            worst = max(worst or 0.0, top)
        test_rows.append(
            {
                "seq": seq,
                "test_id": t.id[:64],
                "status": t.status,
                "verdicts_passed": sum(v.passed for v in t.verdicts),
                "verdicts_failed": sum(not v.passed for v in t.verdicts),
                "metric": m.name if m else None,
                "max_ns": finite(float(m.max)) if m and m.max is not None else None,
                "tail_ns": finite(tail),
                "samples": m.count if m else None,
            }
        )
    place = target.place or _board(bundle.target)
    row = {
        "created_at": bundle.created_at or when.isoformat(),
        "run_time": when,
        "host": system.host.hostname,
        "target": target_name(target),
        "target_kind": target.kind[:32],
        "place": place,
        "label": bundle.run_label,
        "kernel": system.host.release,
        "preempt": (system.kernel.preempt_model or "")[:32] or None,
        "tests": len(tests),
        "passed": passed,
        "failed": failed,
        "errors": errors,
        "skipped": skipped,
        "complete": bundle.complete,
        "status": run_status(bundle.complete, failed, errors),
        "worst_ns": worst,
        "probe_version": system.probe.version,
        "timing": _timing(bundle),
    }
    return row, test_rows


def _timing(bundle: Bundle) -> str | None:
    """What time the run's figures are in, when not the target's real time."""
    from rtgauge.conditions import run_conditions

    c = run_conditions(
        bundle.system_view(), bundle.test_views(), bundle.target_view(), bundle.import_view()
    )
    return "virtual" if c.virtual_time else "emulated" if c.emulated else None


def _board(target: dict[str, Any]) -> str | None:
    """A board named by the target record (an emulated RTOS board), when it has one."""
    board = target.get("board")
    return board if isinstance(board, str) and board else None
