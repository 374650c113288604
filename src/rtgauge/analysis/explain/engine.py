"""Why a worst sample was late: the parts of one kept trace window.

A pure function of what the record holds (the flight recorder's window: the
kernel's events on the sample's CPU from before the release to the end of
the sample, on the sample's own clock). The passes (passes.py) make the
events uniform, learn the tasks, find the sample's landmarks and the tasks
proven to hold the CPU, and cut the window at every event; each piece goes
to the first rule of the table (rules.py) that applies; the words are made
from the parts at the end; the parts are summed by what they were, and add
up to the sample with an explicit "unaccounted" remainder. The culprit is
the party responsible for the largest share; a window that lost events, or
does not reach back to the release, names nobody. An operation window (the
thread's call at t = 0 to its return) is cut the same way and its pieces
go to the operation rules (op_rules.py): the thread's own work, handlers,
the tasks that ran instead, the time it waited. docs/explain.md.
"""

from __future__ import annotations

from rtgauge.analysis.explain.operation import op_state, split_at_wakes, thread_pieces
from rtgauge.analysis.explain.parts import (
    HANDLER_KINDS,
    IDLE,
    RETURN,
    TASK,
    UNACCOUNTED,
    Culprit,
    Explanation,
    Part,
    Segment,
    Subject,
)
from rtgauge.analysis.explain.passes import (
    Piece,
    TaskSeen,
    cut,
    held_tasks,
    idle_as_zero,
    landmarks,
    learn_tasks,
)
from rtgauge.analysis.explain.replay import ENTRY
from rtgauge.analysis.explain.rule_base import Case, Context
from rtgauge.analysis.explain.rules import (
    BEFORE_WINDOW,
    REMAINDER,
    classify,
    merge_key,
    party_of,
    worded,
)
from rtgauge.analysis.explain.window import OPERATION, RELEASE, TraceWindow
from rtgauge.analysis.explain.words import frame_label, no_event_blame, task_label


def explain(w: TraceWindow) -> Explanation:
    """Takes the window apart; see the module's docstring."""
    events = idle_as_zero(w.events, w.os) if w.os.idle_tasks else w.events
    evs = sorted((e for e in events if e.cpu == w.cpu), key=lambda e: e.t)
    others = sorted((e for e in events if e.cpu != w.cpu), key=lambda e: e.t)
    end = w.sample_ns
    tasks = learn_tasks(events)
    me = tasks.get(w.tid)
    marks = landmarks(evs, w.tid, w.os)
    pieces = cut(evs, w)
    op = None
    if w.interval == OPERATION:  # the thread ran at the call: its states through it
        pieces = thread_pieces(pieces, evs, w.tid)
        op = op_state(w, pieces, events, tasks)
        pieces = split_at_wakes(pieces, op)
    held = held_tasks(evs, w.tid, marks, w.os)
    ctx = Context(w, marks, tasks, me.prio if me else None, held, op)

    segs: list[Segment] = []
    raw: list[Part] = []
    known_from = max(0, w.start)
    if known_from > 0:
        raw.append(worded(Part(UNACCOUNTED, min(known_from, end), BEFORE_WINDOW.name), w))
    for piece in pieces:
        if piece.b <= 0:  # before the release: the picture only
            segs.append(_context_segment(w, piece, tasks))
            continue
        for part, (a, b) in classify(Case(ctx, piece)):
            p = worded(part, w)
            raw.append(p)
            segs.append(Segment(w.cpu, a, b, p.kind, p.label, p.subject))
    for e in others:  # the other CPUs' lanes: their handlers as points
        if w.start <= e.t < end and e.kind in ENTRY:
            segs.append(Segment(e.cpu, e.t, e.t, HANDLER_KINDS.get(ENTRY[e.kind], TASK), ""))
    parts = _merge(raw, end, w)
    named = _culprit(w, parts)
    return Explanation(
        metric=w.metric,
        sample_ns=w.sample_ns,
        cpu=w.cpu,
        complete=w.complete,
        parts=tuple(parts),
        culprit=_culprit_line(w, parts, named),
        culprit_kind=named.kind if named else None,
        segments=tuple(segs),
        wake_at=op.first_wake if op else marks.wake_at,
        switch_at=op.first_back(end) if op else marks.switch_at,
        lost_events=w.lost_events,
        named=named,
        interval=OPERATION if w.interval == OPERATION else RELEASE,
    )


def _context_segment(w: TraceWindow, piece: Piece, tasks: dict[int, TaskSeen]) -> Segment:
    """What the CPU was doing before the release, for the picture."""
    a, b, who = piece.a, piece.b, piece.who
    if piece.frames:
        f = piece.frames[-1].subject
        return Segment(w.cpu, a, b, HANDLER_KINDS.get(f.what, TASK), frame_label(f), f)
    if who == 0:
        return Segment(w.cpu, a, b, IDLE, "idle")
    if who is None:
        return Segment(w.cpu, a, b, UNACCOUNTED, "unknown")
    if who == w.tid:
        return Segment(w.cpu, a, b, RETURN, "the thread itself")
    t = tasks.get(who, TaskSeen(who))
    s = Subject("task", pid=who, comm=t.comm, prio=t.prio or 0, policy=w.policies.get(who, ""))
    return Segment(w.cpu, a, b, TASK, task_label(s, w.os), s)


def _merge(raw: list[Part], end: int, w: TraceWindow) -> list[Part]:
    """Sums the pieces by what they were, in order of first appearance, and
    adds the remainder."""
    out: dict[tuple[object, ...], Part] = {}
    for p in raw:
        k = merge_key(p)
        q = out.get(k)
        out[k] = p if q is None else Part(**{**q.__dict__, "ns": q.ns + p.ns})
    parts = list(out.values())
    rest = end - sum(p.ns for p in parts)
    if rest:
        parts.append(worded(Part(UNACCOUNTED, rest, REMAINDER.name), w))
    return parts


def _culprit(w: TraceWindow, parts: list[Part]) -> Culprit | None:
    """The party responsible for the largest share (one party may own
    several parts: a hog that ran twice); None for an incomplete window."""
    if not w.complete or w.sample_ns <= 0:
        return None
    by_party: dict[tuple[str, Subject | None], int] = {}
    kinds: dict[tuple[str, Subject | None], str] = {}
    for p in parts:
        party = party_of(p)
        if party is None:
            continue
        by_party[party] = by_party.get(party, 0) + p.ns
        kinds.setdefault(party, p.kind)
    if not by_party:
        return None
    party, ns = max(by_party.items(), key=lambda kv: kv[1])
    return Culprit(party, kinds[party], ns, ns / w.sample_ns)


def _culprit_line(w: TraceWindow, parts: list[Part], named: Culprit | None) -> str:
    if not w.complete:
        n = w.lost_events
        if n:
            return f"incomplete: {n} events lost"
        if w.capped and w.start > 0:
            return (
                "incomplete: more events than a window keeps (--explain-events); "
                "the oldest, back to the release, were left out"
            )
        if w.interval == OPERATION:
            return "incomplete: the trace does not reach back to the call"
        return "incomplete: the trace does not reach back to the release"
    if named is None:
        return "nothing in the trace explains it"
    # the words of the party's largest part (a task that ran while the
    # thread was blocked and then preempted it is one party, two parts)
    blame = max((p for p in parts if party_of(p) == named.party), key=lambda p: p.ns).blame
    return f"{100.0 * named.share:.0f} % {blame}"


__all__ = ["explain", "no_event_blame"]
