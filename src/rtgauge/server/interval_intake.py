"""A pushed batch of monitored intervals (POST /api/intervals), trusted in
nothing: bounded in size as it is read (intake.read_body), UTF-8 JSON, then
schema/intervals-v1.json (whose figures are result-v1.json's
interval_figure), then the names checked as a bundle's are and each
interval's times in order. Any fault is a 4xx with one line."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from starlette.exceptions import HTTPException

from rtgauge.errors import UsageError
from rtgauge.server.intake import check_host, check_label
from rtgauge.store.intervals_table import utc
from rtgauge.validate_tuples import validator_class

if TYPE_CHECKING:
    import jsonschema

Record = dict[str, Any]


def _schema(name: str) -> Record:
    loaded: Record = json.loads(
        resources.files("rtgauge").joinpath(f"data/{name}").read_text("utf-8")
    )
    return loaded


@lru_cache(maxsize=1)
def validator() -> jsonschema.protocols.Validator:
    """The intervals schema, its reference to the result contract resolved
    against the packaged result-v1.json."""
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    result, intervals = _schema("result-v1.json"), _schema("intervals-v1.json")
    registry: Registry[Any] = Registry().with_resources(
        [(s["$id"], DRAFT202012.create_resource(s)) for s in (result, intervals)]
    )
    return validator_class()(intervals, registry=registry)


def check_payload(value: Any) -> Record:
    """The payload if it fits the schema and the rules beside it, else a UsageError."""
    errors = sorted(validator().iter_errors(value), key=lambda e: -len(e.absolute_path))
    if errors:
        best = errors[0]
        path = "/".join(str(p) for p in best.absolute_path) or "(payload)"
        msg = best.message if len(best.message) < 160 else best.message[:157] + "..."
        raise UsageError(f"invalid intervals at {path}: {msg}")
    check_host(value["host"])
    check_label(value["label"])
    for i, iv in enumerate(value["intervals"]):
        try:
            start, end = utc(iv["start"]), utc(iv["end"])
        except ValueError:
            raise UsageError(f"intervals/{i}: start or end is not a time") from None
        if end < start:
            raise UsageError(f"intervals/{i}: end {iv['end']} is before start {iv['start']}")
    payload: Record = value
    return payload


def checked_payload(raw: bytes) -> Record:
    """The intervals in the bytes, or a 400 / 422 saying what is wrong."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise HTTPException(400, "the intervals are not UTF-8") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HTTPException(
            400, f"the intervals are not JSON ({exc.msg} at line {exc.lineno})"
        ) from None
    try:
        return check_payload(value)
    except UsageError as exc:
        raise HTTPException(422, str(exc)) from None
