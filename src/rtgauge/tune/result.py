"""A tune result as data: what `rtgauge tune` measured per knob, decided and
wrote out. Stored as one JSON file in the store's folder beside the runs
(tune-<time>.json, "kind": "tune"), and in a database store's tune_results
table too; read back by `rtgauge runs`, `rtgauge report` and `rtgauge
serve`, which also takes one pushed (`rtgauge push`, `tune --server`).
Nothing here measures or judges.

Read back, every field is checked against its declared type: a result a
server was sent is trusted in nothing, and one that reads renders."""

from __future__ import annotations

import datetime
import json
import re
import types
import typing
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

from rtgauge.errors import UsageError

KIND = "tune"
VERSION = 1
PREFIX = "tune-"  # the file names in the store's folder
NAME = re.compile(r"tune-[0-9A-Za-z+-]{1,64}")  # a name a store keeps (and a file's stem)


@dataclass(frozen=True)
class Side:
    """One side (before or after) of one figure, its rounds pooled."""

    rounds: int
    count: int  # samples
    max_ns: float
    p99_99_ns: float | None
    p99_ns: float | None
    mean_ns: float | None
    blocks: int  # full blocks whose maxima the test weighed


@dataclass(frozen=True)
class Decision:
    """The one decision on a figure, and the sentence that states it."""

    outcome: str  # "helped" | "worse" | "no effect" | "not testable"
    p: float | None  # the smallest one-sided p-value behind the outcome
    sentence: str


@dataclass(frozen=True)
class FigureTrial:
    test: str
    metric: str
    before: Side
    after: Side
    decision: Decision


@dataclass(frozen=True)
class Share:
    """One cause category's share of the kept windows' late time."""

    category: str
    before: float  # 0..1
    after: float


@dataclass(frozen=True)
class Shift:
    """How the explanation of the worst samples moved."""

    shares: tuple[Share, ...]  # largest first (by the larger of its two shares)
    windows: tuple[int, int]  # kept windows counted before, after
    text: str  # "device IRQ share of the kept windows 61 % → 0 %", or why none
    hypervisor: bool  # the hypervisor dominates: no guest setting can help


@dataclass(frozen=True)
class Trial:
    """One knob (or the helpful knobs together) measured A/B."""

    knob: str  # the knob id, or "together"
    title: str
    why: str
    commands: tuple[str, ...]  # what was applied, as a person would type it
    figures: tuple[FigureTrial, ...]
    shift: Shift
    error: str = ""  # the knob could not be applied or measured: why

    @property
    def outcome(self) -> str:
        """helped when a figure helped and none got worse; worse when one did."""
        if self.error:
            return "not measured"
        outs = {f.decision.outcome for f in self.figures}
        if "worse" in outs:
            return "worse"
        if "helped" in outs:
            return "helped"
        if outs == {"not testable"} or not outs:
            return "not testable"
        return "no effect"


@dataclass(frozen=True)
class NotTried:
    knob: str
    title: str
    state: str  # already | absent | excluded | boot-only
    why: str
    boot: str | None


@dataclass
class TuneResult:
    created_at: str
    host: str
    kernel: str
    target: str
    cpus: str
    tests: str
    rounds: int  # per side
    round_ms: int
    seconds: float  # how long the tune took
    trials: list[Trial] = field(default_factory=list)
    together: Trial | None = None
    not_tried: list[NotTried] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # the files written out
    out_dir: str = ""
    # what limited the rounds' figures, each with the rounds it held in
    # ("no mlockall (…) in 8 of 8 rounds"); empty: real-time in every round
    conditions: list[str] = field(default_factory=list)

    @property
    def helped(self) -> list[Trial]:
        return [t for t in self.trials if t.outcome == "helped"]

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        return {"kind": KIND, "version": VERSION, **d}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TuneResult:
        if d.get("kind") != KIND or d.get("version") != VERSION:
            raise UsageError("not a tune result (kind tune, version 1)")
        try:
            result = cls(
                created_at=d["created_at"],
                host=d["host"],
                kernel=d["kernel"],
                target=d["target"],
                cpus=d["cpus"],
                tests=d["tests"],
                rounds=d["rounds"],
                round_ms=d["round_ms"],
                seconds=d["seconds"],
                trials=[_trial(t) for t in d["trials"]],
                together=_trial(d["together"]) if d.get("together") else None,
                not_tried=[NotTried(**n) for n in d["not_tried"]],
                written=d["written"],
                out_dir=d.get("out_dir", ""),
                conditions=d.get("conditions", []),
            )
        except KeyError as exc:
            raise UsageError(f"a tune result that does not read: it has no {exc}") from None
        except (TypeError, ValueError, AttributeError, IndexError) as exc:
            raise UsageError(f"a tune result that does not read: {exc}") from None
        _check_types(result, "result")
        when(result)
        return result


def when(result: TuneResult) -> datetime.datetime:
    """When the tune started, in UTC (naive), from its created_at."""
    try:
        found = datetime.datetime.fromisoformat(result.created_at)
    except ValueError:
        raise UsageError(
            f"a tune result that does not read: created_at {result.created_at[:40]!r} "
            "is not an ISO time"
        ) from None
    if found.tzinfo is not None:
        found = found.astimezone(datetime.UTC).replace(tzinfo=None)
    return found


def _check_types(value: Any, where: str) -> None:
    """Every field of a dataclass (and of those it holds) of its declared type."""
    hints = typing.get_type_hints(type(value))
    for f in fields(value):
        _check(getattr(value, f.name), hints[f.name], f"{where}.{f.name}")


def _check(value: Any, hint: Any, where: str) -> None:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is types.UnionType or origin is typing.Union:
        if value is None and type(None) in args:
            return
        (hint,) = [a for a in args if a is not type(None)]
        origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (list, tuple):
        if not isinstance(value, origin):
            raise UsageError(f"a tune result that does not read: {where} is not a list")
        inner = args if origin is tuple and Ellipsis not in args else (args[0],) * len(value)
        if len(inner) != len(value):
            raise UsageError(f"a tune result that does not read: {where} has {len(value)} items")
        for i, (item, h) in enumerate(zip(value, inner, strict=True)):
            _check(item, h, f"{where}[{i}]")
        return
    if is_dataclass(hint):
        _check_types(value, where)
        return
    ok = {
        str: isinstance(value, str),
        bool: isinstance(value, bool),
        int: isinstance(value, int) and not isinstance(value, bool),
        float: isinstance(value, int | float) and not isinstance(value, bool),
    }.get(hint)
    if not ok:
        name = getattr(hint, "__name__", str(hint))
        raise UsageError(f"a tune result that does not read: {where} is not {name}")


def name_of(result: TuneResult) -> str:
    """Its name in a store: tune-<time> (a store adds -2, -3… to tell apart
    two results of the same second)."""
    stamp = result.created_at.replace(":", "").replace("-", "").split(".")[0]
    return PREFIX + (re.sub(r"[^0-9A-Za-z+]", "", stamp)[:56] or "0")


def loads(raw: bytes | str, what: str = "a tune result") -> TuneResult:
    """A tune result from its JSON text, or a UsageError saying why not."""
    try:
        d = json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise UsageError(f"{what}: not UTF-8 JSON ({exc})") from None
    if not isinstance(d, dict):
        raise UsageError(f"{what}: not a tune result (a JSON object of kind tune)")
    try:
        return TuneResult.from_json(d)
    except UsageError as exc:
        raise UsageError(f"{what}: {exc}") from None


def _trial(d: dict[str, Any]) -> Trial:
    figures = tuple(
        FigureTrial(
            f["test"],
            f["metric"],
            Side(**f["before"]),
            Side(**f["after"]),
            Decision(**f["decision"]),
        )
        for f in d["figures"]
    )
    s = d["shift"]
    shift = Shift(
        tuple(Share(**x) for x in s["shares"]),
        (int(s["windows"][0]), int(s["windows"][1])),
        s["text"],
        bool(s["hypervisor"]),
    )
    return Trial(
        d["knob"], d["title"], d["why"], tuple(d["commands"]), figures, shift, d.get("error", "")
    )


def save(result: TuneResult, folder: Path) -> Path:
    """The result as tune-<time>.json in the store's folder."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = name_of(result)
    path = folder / f"{stamp}.json"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"{stamp}-{n}.json"
    path.write_text(dumps(result), encoding="utf-8")
    return path


def dumps(result: TuneResult) -> str:
    return json.dumps(result.to_json(), indent=1, ensure_ascii=False) + "\n"


def is_tune_file(path: Path) -> bool:
    """A tune result by its name, or by its content's kind."""
    if path.name.startswith(PREFIX) and path.suffix == ".json":
        return True
    if path.suffix != ".json" or not path.is_file():
        return False
    try:
        with path.open(encoding="utf-8") as f:
            head = f.read(64)
    except OSError:
        return False
    return '"kind": "tune"' in head


def load(path: Path) -> TuneResult:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read a tune result ({exc.strerror})") from None
    return loads(raw, str(path))


def stored(folder: Path) -> list[Path]:
    """The tune results in a store's folder, newest first."""
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f"{PREFIX}*.json"), reverse=True)
