"""Checking records against the result contract (schema/result-v1.json).

The schema ships inside the package (rtgauge/data/result-v1.json, kept
identical to schema/result-v1.json by a test). A record that does not fit
becomes one UsageError line that says where and what, never a traceback.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from rtgauge.errors import UsageError
from rtgauge.validate_tuples import validator_class

if TYPE_CHECKING:
    import jsonschema

Record = dict[str, Any]


@lru_cache(maxsize=1)
def schema() -> Record:
    text = resources.files("rtgauge").joinpath("data/result-v1.json").read_text("utf-8")
    loaded: Record = json.loads(text)
    return loaded


# The version the contract fixes (every record kind carries the same const).
SCHEMA_VERSION: int = int(schema()["$defs"]["system"]["properties"]["schema_version"]["const"])


@lru_cache(maxsize=8)
def _validator(kind: str | None) -> jsonschema.protocols.Validator:
    """The whole contract, or one record kind of it (clearer messages than oneOf).
    jsonschema is loaded here, when a record is first checked; arrays of
    numeric tuples are checked by a shortcut that accepts only what jsonschema
    accepts and leaves every error to it (validate_tuples.py)."""
    checker = validator_class()
    s = schema()
    if kind is None:
        return checker(s)
    return checker({"$ref": f"#/$defs/{kind}", "$defs": s["$defs"]})


def check_record(record: Any, where: str) -> Record:
    """The record if it is valid, else a UsageError naming where and why."""
    if not isinstance(record, dict):
        raise UsageError(f"{where}: a record must be a JSON object")
    if record.get("schema_version") != SCHEMA_VERSION:
        raise UsageError(
            f"{where}: unsupported schema_version {record.get('schema_version')!r} (this is v{SCHEMA_VERSION})"
        )
    kind = record.get("record")
    if kind not in ("system", "test", "interval", "end"):
        raise UsageError(f"{where}: unknown record kind {kind!r} (system, test, interval or end)")
    # The deepest error is the most specific one.
    errors = sorted(_validator(kind).iter_errors(record), key=lambda e: -len(e.absolute_path))
    if errors:
        best = errors[0]
        path = "/".join(str(p) for p in best.absolute_path) or "(record)"
        msg = best.message if len(best.message) < 160 else best.message[:157] + "..."
        raise UsageError(f"{where}: invalid {kind} at {path}: {msg}")
    return record


def check_catalogue_line(entry: Any, where: str) -> Record:
    """One --list-json line if it fits the contract's catalogue entry, else a
    UsageError naming where and why."""
    import jsonschema.exceptions

    error = jsonschema.exceptions.best_match(_validator("catalogue").iter_errors(entry))
    if error is not None:
        path = "/".join(str(p) for p in error.absolute_path) or "(entry)"
        raise UsageError(f"{where}: invalid catalogue entry at {path}: {error.message}")
    checked: Record = entry
    return checked


def parse_line(line: str, where: str) -> Record:
    """One JSON line of a probe stream, checked."""
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from exc
    return check_record(value, where)
