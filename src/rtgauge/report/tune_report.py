"""A tune result as a report: per knob its figures before and after, the
decision's sentence, the explanation's shift and a before/after chart; the
knobs not tried and why; the configuration written out. What is decided
was decided when the tune ran (tune/decide.py); this only lays it out."""

from __future__ import annotations

from rtgauge.fmt import us
from rtgauge.report.document import Block, Cell, Chart, Heading, Para, Report, Table, cells
from rtgauge.report.plots import bars_svg
from rtgauge.tune.result import FigureTrial, Side, Trial, TuneResult

OUTCOME_KIND = {"helped": "better", "worse": "worse", "no effect": "", "not testable": "muted"}


def _us(v: float | None) -> str:
    return "—" if v is None else f"{us(v)} µs"


def _stats(s: Side) -> list[tuple[str, float | None]]:
    return [("max", s.max_ns), ("p99.99", s.p99_99_ns), ("p99", s.p99_ns), ("mean", s.mean_ns)]


def figure_chart(f: FigureTrial) -> str:
    groups = {
        name: {"before": b or 0.0, "after": a or 0.0}
        for (name, b), (_, a) in zip(_stats(f.before), _stats(f.after), strict=True)
        if b is not None and a is not None
    }
    return bars_svg(f"{f.test} {f.metric}: before and after", groups)


def trial_blocks(t: Trial) -> list[Block]:
    out: list[Block] = [
        Heading(3, f"{t.knob}: {t.title}", f"knob-{t.knob}"),
        Para(f"{t.outcome}; tried because {t.why}", "lead"),
    ]
    if t.commands:
        out.append(Para("applied for the B rounds: " + "; ".join(t.commands)))
    if t.error:
        out.append(Para(f"not measured: {t.error}", "warn"))
        return out
    rows = []
    for f in t.figures:
        for (name, b), (_, a) in zip(_stats(f.before), _stats(f.after), strict=True):
            rows.append(
                [Cell(f"{f.test} {f.metric}"), Cell(name), Cell(_us(b)), Cell(_us(a))]
                + [Cell(f.decision.outcome, OUTCOME_KIND.get(f.decision.outcome, ""))]
            )
    if rows:
        first = t.figures[0]
        caption = (
            f"{first.before.rounds} rounds each side, {first.before.count:,} and "
            f"{first.after.count:,} samples"
        )
        out.append(Table(["figure", "statistic", "before", "after", "outcome"], rows, caption))
    for f in t.figures:
        out.append(Para(f"{f.test} {f.metric}: {f.decision.sentence}"))
        svg = figure_chart(f)
        if svg:
            out.append(Chart(svg, f"{t.knob}: {f.metric} before and after"))
    out.append(Para(f"explanation of the worst samples: {t.shift.text}"))
    if t.shift.shares:
        out.append(
            Table(
                ["cause", "share before", "share after"],
                [
                    cells(s.category, f"{round(100 * s.before)} %", f"{round(100 * s.after)} %")
                    for s in t.shift.shares
                ],
                f"the kept windows' late time by cause ({t.shift.windows[0]} windows before, "
                f"{t.shift.windows[1]} after)",
            )
        )
    return out


def headline(r: TuneResult) -> str:
    helped = [t.knob for t in r.helped]
    tried = len(r.trials)
    if not tried:
        return "no knob was tried: none can be applied at run time here (see below)"
    if not helped:
        return f"none of the {tried} knobs tried helped beyond chance"
    return f"{len(helped)} of {tried} knobs helped beyond chance: {', '.join(helped)}"


def conditions_line(r: TuneResult) -> str:
    """What the rounds ran with: the figures are real-time, or what limits them."""
    if not r.conditions:
        return "every round ran with SCHED_FIFO and mlockall, on no emulator"
    return "the rounds' figures are limited: " + "; ".join(r.conditions)


def tune_report(r: TuneResult) -> Report:
    blocks: list[Block] = [
        Para(headline(r), "answer"),
        Para(
            f"{r.host}, {r.kernel}: {r.tests} on CPU {r.cpus}, {r.rounds} A/B rounds of "
            f"{r.round_ms / 1000:g} s per side and knob, interleaved; {r.seconds:g} s in all "
            f"({r.created_at})"
        ),
        Para(conditions_line(r), "warn" if r.conditions else ""),
        Table(
            ["knob", "outcome", "explanation moved"],
            [
                [
                    Cell(t.knob, href=f"#knob-{t.knob}"),
                    Cell(t.outcome, OUTCOME_KIND.get(t.outcome, "")),
                    Cell(t.shift.text if not t.error else t.error),
                ]
                for t in r.trials + ([r.together] if r.together else [])
            ],
            "each knob alone, then the helpful ones together",
        ),
        Heading(2, "Knobs tried"),
    ]
    for t in r.trials:
        blocks += trial_blocks(t)
    if r.together:
        blocks.append(Heading(2, "The helpful knobs together"))
        blocks += trial_blocks(r.together)
    if r.not_tried:
        blocks.append(Heading(2, "Not tried"))
        blocks.append(
            Table(
                ["knob", "state", "why", "at boot"],
                [cells(n.knob, n.state, n.why, n.boot or "—") for n in r.not_tried],
            )
        )
    blocks.append(Heading(2, "Written out (not applied)"))
    if r.written:
        blocks.append(Para(f"in {r.out_dir}: " + ", ".join(r.written)))
    else:
        blocks.append(Para("nothing written out"))
    return Report(f"rtgauge tune: {r.host}, CPU {r.cpus}", blocks)


def tune_text(r: TuneResult) -> str:
    """The summary printed when a tune ends."""
    lines = [headline(r), conditions_line(r)]
    for t in r.trials + ([r.together] if r.together else []):
        lines.append(f"\n{t.knob}: {t.outcome} ({t.title})")
        if t.error:
            lines.append(f"  {t.error}")
            continue
        for f in t.figures:
            pairs = ", ".join(
                f"{n} {_us(b)} → {_us(a)}"
                for (n, b), (_, a) in zip(_stats(f.before), _stats(f.after), strict=True)
            )
            lines.append(f"  {f.test} {f.metric}: {pairs}")
            lines.append(f"    {f.decision.sentence}")
        lines.append(f"  explanation: {t.shift.text}")
    for n in r.not_tried:
        lines.append(f"not tried: {n.knob} ({n.state}): {n.why}")
    return "\n".join(lines)
