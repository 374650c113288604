"""The timeline picture of one explained sample, as inline SVG: a lane per
CPU, segments coloured by what the CPU was doing, the release, wake-up,
switch-in and end marked (an operation's: the call, the thread's first
wake-up and switch-in within it, and its return). Every text is escaped (task names come from the
traced system)."""

from __future__ import annotations

from html import escape

from rtgauge.analysis.explain import (
    IDLE,
    IRQ,
    NO_EVENT,
    NONPREEMPT,
    OPERATION,
    OWN_WORK,
    RETURN,
    SOFTIRQ,
    SWITCH,
    TASK,
    TICK_WAIT,
    TIMER,
    UNACCOUNTED,
    VECTOR,
    WAIT,
    WAKE_IRQ,
    WAKER,
    Explanation,
)

W = 660
ML, MR, MT = 70, 16, 46
LANE, GAP = 26, 8

COLOURS = {
    IDLE: "#d0d7de",
    NO_EVENT: "#cf222e",
    WAKE_IRQ: "#0969da",
    TICK_WAIT: "#8c959f",
    IRQ: "#8250df",
    VECTOR: "#bf8700",
    SOFTIRQ: "#e16f24",
    TIMER: "#1a7f37",
    TASK: "#82071e",
    WAKER: "#54aeff",
    SWITCH: "#6e7781",
    NONPREEMPT: "#a475f9",
    RETURN: "#2da44e",
    OWN_WORK: "#4ac26b",
    WAIT: "#eaeef2",
    UNACCOUNTED: "#ffffff",
}
NAMES = {
    IDLE: "idle",
    NO_EVENT: "no kernel event",
    WAKE_IRQ: "the waking interrupt",
    TICK_WAIT: "waiting for the tick",
    IRQ: "device interrupt",
    VECTOR: "other vector",
    SOFTIRQ: "softirq",
    TIMER: "other timer",
    TASK: "another task",
    WAKER: "the waker",
    SWITCH: "switch path",
    NONPREEMPT: "not preempted",
    RETURN: "the thread",
    OWN_WORK: "the call's own work",
    WAIT: "waited (idle)",
    UNACCOUNTED: "unaccounted",
}


def _us(ns: float) -> str:
    v = ns / 1e3
    return f"{v:.0f} µs" if abs(v) >= 10 else f"{v:.1f} µs"


def timeline_svg(x: Explanation) -> str:
    """The picture of x, from just before the release (an operation's call)
    to the sample's end."""
    end = max(1, x.sample_ns)
    lo = -max(end // 10, 1)
    cpus = sorted({s.cpu for s in x.segments} | {x.cpu}, key=lambda c: (c != x.cpu, c))

    def fx(t: float) -> float:
        t = min(max(t, lo), end)
        return ML + (t - lo) / (end - lo) * (W - ML - MR)

    body: list[str] = []
    for i, cpu in enumerate(cpus):
        y = MT + i * (LANE + GAP)
        body.append(
            f'<text x="{ML - 6}" y="{y + LANE / 2 + 4}" text-anchor="end" class="ax">CPU {cpu}'
            "</text>"
            f'<rect x="{ML}" y="{y}" width="{W - ML - MR}" height="{LANE}" fill="#fafbfc" '
            'stroke="#d0d7de"/>'
        )
        for s in x.segments:
            if s.cpu != cpu:
                continue
            x0, x1 = fx(s.start), fx(s.end)
            width = max(x1 - x0, 1.0)
            colour = COLOURS.get(s.kind, "#afb8c1")
            stroke = ' stroke="#57606a" stroke-dasharray="2 2"' if s.kind == UNACCOUNTED else ""
            tip = f"{s.label}: {_us(s.end - s.start)}" if s.end > s.start else s.label
            body.append(
                f'<rect x="{x0:.1f}" y="{y + 3}" width="{width:.1f}" height="{LANE - 6}" '
                f'fill="{colour}"{stroke}><title>{escape(tip)}</title></rect>'
            )
    bottom = MT + len(cpus) * (LANE + GAP) - GAP
    for q in range(5):  # the axis: µs from the release
        at = end * q / 4
        anchor = "end" if q == 4 else "middle"
        body.append(
            f'<text x="{fx(at):.1f}" y="{bottom + 13}" text-anchor="{anchor}" class="tk">'
            f"{escape(_us(at))}</text>"
        )
    marks = [(0, "release"), (x.wake_at, "wake-up"), (x.switch_at, "switch-in"), (end, "end")]
    if x.interval == OPERATION:
        marks = [(0, "call"), (x.wake_at, "woken"), (x.switch_at, "switch-in"), (end, "return")]
    taken: list[list[tuple[float, float]]] = [[], [], []]  # label rows, spans used
    for mark, label in marks:
        if mark is None:
            continue
        xm = fx(mark)
        half = 3.2 * len(label)
        anchor, lo_x = "middle", xm - half
        if xm + half > W - 2:
            anchor, lo_x = "end", xm - 2 * half
        elif xm - half < ML:
            anchor, lo_x = "start", xm
        span = (lo_x - 4, lo_x + 2 * half + 4)
        row = next(
            (r for r, used in enumerate(taken) if all(b < span[0] or a > span[1] for a, b in used)),
            len(taken) - 1,
        )
        taken[row].append(span)
        ty = MT - 32 + 12 * row
        body.append(
            f'<line x1="{xm:.1f}" y1="{ty + 3}" x2="{xm:.1f}" y2="{bottom + 2}" '
            'stroke="#24292f" stroke-width="1"/>'
            f'<text x="{xm:.1f}" y="{ty}" text-anchor="{anchor}" class="tk">{escape(label)}</text>'
        )
    kinds = [kind for kind in COLOURS if any(s.kind == kind for s in x.segments)]
    lx, ly = float(ML), bottom + 30.0
    for kind in kinds:
        width = 22 + 6.5 * len(NAMES[kind])
        if lx + width > W - MR:  # wrap the legend
            lx, ly = float(ML), ly + 16
        body.append(
            f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{COLOURS[kind]}" '
            'stroke="#57606a" stroke-width="0.5"/>'
            f'<text x="{lx + 14}" y="{ly}" class="lg">{escape(NAMES[kind])}</text>'
        )
        lx += width
    height = int(ly + 8)
    title = f"{x.metric}: {_us(x.sample_ns)} — {x.culprit}"
    return (
        f'<svg class="chart timeline" viewBox="0 0 {W} {height}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>'
        + "".join(body)
        + "</svg>"
    )
