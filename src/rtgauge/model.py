"""Typed view of the result contract (schema/result-v1.json) and of a bundle.

Everything read from a file or a target goes through here: validated
against the schema, so the rest of the host can trust the shape. A bad
input becomes one UsageError line, never a traceback.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from rtgauge.errors import UsageError

BUNDLE_VERSION = 1
Record = dict[str, Any]


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    text = resources.files("rtgauge").joinpath("data/result-v1.json").read_text()
    return jsonschema.Draft202012Validator(json.loads(text))


def check_record(record: Any, where: str) -> Record:
    """The record if it is valid, else a UsageError naming where and why."""
    if not isinstance(record, dict):
        raise UsageError(f"{where}: a record must be a JSON object")
    if record.get("schema_version") != 1:
        raise UsageError(
            f"{where}: unsupported schema_version {record.get('schema_version')!r} (this is v1)"
        )
    errors = sorted(_validator().iter_errors(record), key=lambda e: list(e.absolute_path))
    if errors:
        kind = record.get("record")
        best = errors[0]
        if kind in ("system", "test", "end"):  # say what is wrong, not "not oneOf"
            schema: dict[str, Any] = dict(_validator().schema)  # type: ignore[arg-type]
            sub = jsonschema.Draft202012Validator(
                {"$ref": f"#/$defs/{kind}", "$defs": schema["$defs"]}
            )
            errs = sorted(sub.iter_errors(record), key=lambda e: -len(list(e.absolute_path)))
            best = errs[0] if errs else best
        path = "/".join(str(p) for p in best.absolute_path) or "(record)"
        msg = best.message if len(best.message) < 160 else best.message[:157] + "..."
        raise UsageError(f"{where}: invalid {kind or 'record'} at {path}: {msg}")
    return record


def parse_line(line: str, where: str) -> Record:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from exc
    return check_record(value, where)


@dataclass
class Bundle:
    """One stored run: the system record, the test records, the end record."""

    system: Record
    tests: list[Record] = field(default_factory=list)
    end: Record | None = None
    command: list[str] = field(default_factory=list)
    created_at: str = ""
    target: Record = field(default_factory=lambda: {"kind": "local"})
    path: Path | None = None

    @property
    def complete(self) -> bool:
        return self.end is not None and self.end.get("status") == "complete"

    @property
    def host(self) -> str:
        return str(self.system["host"]["hostname"])

    @property
    def label(self) -> str:
        """How a comparison names this run: host and kernel release."""
        return f"{self.host} {self.system['host']['release']}"

    def to_json(self) -> Record:
        return {
            "bundle_version": BUNDLE_VERSION,
            "created_at": self.created_at,
            "target": self.target,
            "command": self.command,
            "probe_version": self.system["probe"]["version"],
            "complete": self.complete,
            "system": self.system,
            "tests": self.tests,
            "end": self.end,
        }


def bundle_from_records(records: list[Record], where: str) -> Bundle:
    if not records or records[0].get("record") != "system":
        raise UsageError(f"{where}: the first record must be the system record")
    bundle = Bundle(system=records[0])
    for i, r in enumerate(records[1:], start=2):
        if r["record"] == "test":
            bundle.tests.append(r)
        elif r["record"] == "end":
            bundle.end = r
        else:
            raise UsageError(f"{where}: record {i} is a second system record")
    return bundle


def load_bundle(path: Path) -> Bundle:
    """A stored bundle (.json) or a raw probe stream (.jsonl)."""
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UsageError(f"cannot read {where}: {reason}") from exc
    if not text.strip():
        raise UsageError(f"{where}: empty file")
    stripped = text.lstrip()
    if stripped.startswith("{") and '"bundle_version"' in stripped[:200]:
        return _load_bundle_json(text, path)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    records = []
    for i, line in enumerate(lines, start=1):
        try:
            records.append(parse_line(line, f"{where}:{i}"))
        except UsageError:
            if i == len(lines) and i > 1:  # a run cut short mid-line: keep the rest
                break
            raise
    bundle = bundle_from_records(records, where)
    bundle.path = path
    return bundle


def _load_bundle_json(text: str, path: Path) -> Bundle:
    where = str(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not JSON ({exc.msg} at line {exc.lineno})") from exc
    if not isinstance(data, dict):
        raise UsageError(f"{where}: a bundle must be a JSON object")
    if data.get("bundle_version") != BUNDLE_VERSION:
        raise UsageError(f"{where}: unsupported bundle_version {data.get('bundle_version')!r}")
    for key, kind in (("tests", list), ("command", list), ("target", dict)):
        if not isinstance(data.get(key), kind):
            raise UsageError(f"{where}: '{key}' must be a {kind.__name__}")
    system = check_record(data.get("system"), f"{where}: system")
    tests = [check_record(t, f"{where}: tests[{i}]") for i, t in enumerate(data["tests"])]
    end = data.get("end")
    if end is not None:
        end = check_record(end, f"{where}: end")
    for i, t in enumerate(tests):
        if t["record"] != "test":
            raise UsageError(f"{where}: tests[{i}] is not a test record")
    return Bundle(
        system=system,
        tests=tests,
        end=end,
        command=[str(c) for c in data["command"]],
        created_at=str(data.get("created_at", "")),
        target=data["target"],
        path=path,
    )
