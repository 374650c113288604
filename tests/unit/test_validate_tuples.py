"""The shortcut for arrays of numeric tuples accepts what jsonschema accepts
and leaves every error to it: the same errors, at the same paths, as the
plain Draft 2020-12 validator, for good records and for broken ones."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

from rtgauge.validate import schema
from rtgauge.validate_tuples import tuple_check, validator_class

Record = dict[str, Any]


def errors(checker: Any, record: Record) -> list[tuple[list[Any], str]]:
    return sorted((list(e.absolute_path), e.message) for e in checker.iter_errors(record))


@pytest.fixture
def validators() -> tuple[Any, Any]:
    test = {"$ref": "#/$defs/test", "$defs": schema()["$defs"]}
    return jsonschema.Draft202012Validator(test), validator_class()(test)


@pytest.fixture
def record(sample_records: list[Record]) -> Record:
    """TMR-P-LAT with block maxima and a series: every kind of tuple array."""
    r = copy.deepcopy(next(x for x in sample_records if x.get("id") == "TMR-P-LAT"))
    r["metrics"][0]["blocks"] = {
        "span_ms": 100,
        "threshold_ns": 50000,
        "items": [[0, 100, 9000, 0], [100.0, 100, 12000, 1], [200, 98, 8000, 0]],
    }
    r["series"] = [
        {"name": "wake-up", "unit": "ns", "window_ms": 100, "points": [[0, 1.5], [100, 2]]}
    ]
    return r


def test_the_schema_s_tuple_arrays_take_the_shortcut() -> None:
    defs = schema()["$defs"]
    assert tuple_check(defs["histogram"]["properties"]["buckets"]["items"]) is not None
    assert tuple_check(defs["blocks"]["properties"]["items"]["items"]) is not None
    assert tuple_check(defs["series"]["properties"]["points"]["items"]) is not None
    assert tuple_check(defs["trace_event"]) is None  # an object: jsonschema alone


def test_a_good_record_is_good_to_both(validators: tuple[Any, Any], record: Record) -> None:
    plain, quick = validators
    assert errors(plain, record) == errors(quick, record) == []


Edit = Callable[[Record], None]


def bucket(value: Any) -> Edit:
    def edit(r: Record) -> None:
        r["metrics"][0]["hist"]["buckets"][1] = value

    return edit


def bucket_count(value: Any) -> Edit:
    def edit(r: Record) -> None:
        r["metrics"][0]["hist"]["buckets"][2][2] = value

    return edit


def block(value: Any) -> Edit:
    def edit(r: Record) -> None:
        r["metrics"][0]["blocks"]["items"][1] = value

    return edit


def point(value: Any) -> Edit:
    def edit(r: Record) -> None:
        r["series"][0]["points"][0] = value

    return edit


BROKEN = {
    "a count written as text": bucket_count("3"),
    "a count with a fraction": bucket_count(1.5),
    "a count that is a boolean": bucket_count(True),
    "a count that is null": bucket_count(None),
    "a bucket too short": bucket([1, 2]),
    "a bucket too long": bucket([1, 2, 3, 4]),
    "a bucket that is an object": bucket({"low": 1}),
    "a bucket that is a number": bucket(7),
    "a block before the test's start": block([-1.0, 100, 9000, 0]),
    "a block with no sample": block([100, 0, 9000, 0]),
    "a block with a negative count above": block([100, 10, 9000, -1]),
    "a point with text": point(["a", 1]),
    "a point with a boolean": point([True, 1]),
    "a point with one value": point([1]),
    "a point with three values": point([1, 2, 3]),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_tuple_gets_jsonschema_s_own_errors(
    validators: tuple[Any, Any], record: Record, name: str
) -> None:
    plain, quick = validators
    BROKEN[name](record)
    found = errors(plain, record)
    assert found  # the edit did break the record
    assert errors(quick, record) == found


def test_what_the_shortcut_doubts_jsonschema_decides(
    validators: tuple[Any, Any], record: Record
) -> None:
    plain, quick = validators
    bucket_count(3.0)(record)  # not an int to Python, an integer to JSON Schema
    assert errors(quick, record) == errors(plain, record) == []
