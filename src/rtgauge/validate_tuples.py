"""A shortcut in checking records: arrays of short numeric tuples.

Most of a bundle's values are such arrays (histogram buckets [low, high,
count], block maxima [start_ms, count, max, above], series points [t, v]),
and jsonschema checks each number of each tuple through its whole keyword
machinery: two thirds of the time a report spends reading a default run's
bundle. Here an array whose item schema is a tuple of bounded numbers is
first checked by plain Python; when every element plainly fits (a list of
the right length of ints, or ints and floats for "number", within the
bounds), nothing is yielded. Anything else (a wrong type, a bound missed, an
integer written 1.0, an item schema of another shape) goes through
jsonschema's own `items` keyword: what is accepted, and every error message,
is jsonschema's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jsonschema

Check = Callable[[Any], bool]

_NUMBER_KEYS = {"type", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "description"}
_TUPLE_KEYS = {"type", "prefixItems", "items", "minItems", "maxItems", "description"}


def number_check(schema: Any) -> Check | None:
    """A predicate true only of values the schema accepts, for a schema of a
    bounded integer or number; None for any other schema."""
    if not isinstance(schema, dict) or not set(schema) <= _NUMBER_KEYS:
        return None
    kinds: tuple[type, ...] = {"integer": (int,), "number": (int, float)}.get(
        str(schema.get("type")), ()
    )
    if not kinds:
        return None
    low, high = schema.get("minimum"), schema.get("maximum")
    above, below = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")

    def fits(v: Any) -> bool:  # type(v), not isinstance: a bool is no number here
        return (
            type(v) in kinds
            and (low is None or v >= low)
            and (high is None or v <= high)
            and (above is None or v > above)
            and (below is None or v < below)
        )

    return fits


def tuple_check(schema: Any) -> Check | None:
    """A predicate true only of values the schema accepts, for the schema of
    an array of a fixed length whose items are bounded numbers; None for any
    other schema."""
    if not isinstance(schema, dict) or not set(schema) <= _TUPLE_KEYS:
        return None
    size = schema.get("minItems")
    if schema.get("type") != "array" or type(size) is not int or schema.get("maxItems") != size:
        return None
    prefix = schema.get("prefixItems", [])
    if not isinstance(prefix, list) or len(prefix) > size:
        return None
    rest = [schema.get("items")] * (size - len(prefix))
    checks = [number_check(s) for s in prefix + rest]
    if any(c is None for c in checks):
        return None
    each: list[Check] = [c for c in checks if c is not None]

    def fits(v: Any) -> bool:
        return (
            type(v) is list and len(v) == size and all(c(x) for c, x in zip(each, v, strict=True))
        )

    return fits


@cache
def validator_class() -> type[jsonschema.protocols.Validator]:
    """Draft 2020-12 with the shortcut in its `items` keyword."""
    import jsonschema

    items = jsonschema.Draft202012Validator.VALIDATORS["items"]
    known: dict[int, tuple[Any, Check | None]] = {}  # item schema's id → (it, its check)

    def tuples_first(
        validator: Any, item_schema: Any, instance: Any, schema: dict[str, Any]
    ) -> Iterator[jsonschema.ValidationError]:
        if id(item_schema) not in known:  # the schema object is kept, so its id is too
            known[id(item_schema)] = (item_schema, tuple_check(item_schema))
        fits = known[id(item_schema)][1]
        if (
            fits is not None
            and "prefixItems" not in schema
            and type(instance) is list
            and all(map(fits, instance))
        ):
            return
        yield from items(validator, item_schema, instance, schema)

    extended: type[jsonschema.protocols.Validator] = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        jsonschema.Draft202012Validator, {"items": tuples_first}
    )
    return extended
