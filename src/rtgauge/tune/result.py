"""A tune result as data: what `rtgauge tune` measured per knob, decided and
wrote out. Stored as one JSON file in the store's folder beside the runs
(tune-<time>.json, "kind": "tune"), read back by `rtgauge runs`, `rtgauge
report` and `rtgauge serve`; nothing here measures or judges."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rtgauge.errors import UsageError

KIND = "tune"
VERSION = 1
PREFIX = "tune-"  # the file names in the store's folder


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
            return cls(
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
                written=list(d["written"]),
                out_dir=d.get("out_dir", ""),
            )
        except (KeyError, TypeError) as exc:
            raise UsageError(f"a tune result that does not read: {exc}") from exc


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
    stamp = result.created_at.replace(":", "").replace("-", "").split(".")[0]
    path = folder / f"{PREFIX}{stamp}.json"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"{PREFIX}{stamp}-{n}.json"
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
        d = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: cannot read a tune result ({exc})") from exc
    if not isinstance(d, dict):
        raise UsageError(f"{path}: not a tune result")
    return TuneResult.from_json(d)


def stored(folder: Path) -> list[Path]:
    """The tune results in a store's folder, newest first."""
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f"{PREFIX}*.json"), reverse=True)
