"""rtgauge plan: how many samples, and how long at a period, a run must have
to back the claim "miss rate ≤ R at confidence C" for a deadline, with no
miss and with k misses among them: the exact binomial (Clopper–Pearson)
bound the deadline verdict uses, asked the other way round. Needs no run
and no target."""

from __future__ import annotations

import argparse
import json

from rtgauge.cli.common import parse_confidence, parse_duration_ns, parse_rate
from rtgauge.cli.output import add_output, chosen_format, emit
from rtgauge.errors import UsageError

FORMATS = ("text", "md", "json")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--deadline", required=True, help="the deadline a miss exceeds, e.g. 100us")
    p.add_argument("--miss-rate", required=True, help="the tolerated miss rate to back, e.g. 1e-9")
    p.add_argument(
        "--period", default="1ms", help="the activation period (default 1ms: TMR-P-LAT's)"
    )
    p.add_argument("--confidence", default="0.95", help="confidence of the bound (0.95)")
    p.add_argument(
        "--misses",
        metavar="K[,K...]",
        help="the counts of misses to plan for (default 0,1,2,5,10)",
    )
    add_output(p, FORMATS, piped="text")
    p.set_defaults(execute=execute)


def parse_misses(text: str | None) -> tuple[int, ...]:
    from rtgauge.analysis.run_length import DEFAULT_MISSES

    if text is None:
        return DEFAULT_MISSES
    out = []
    for word in text.split(","):
        try:
            k = int(word.strip())
        except ValueError:
            raise UsageError(f"--misses {text!r}: give counts of misses, e.g. 0 or 0,1,5") from None
        if k < 0:
            raise UsageError(f"--misses {text!r}: a count of misses is never negative")
        out.append(k)
    return tuple(out)


def execute(args: argparse.Namespace) -> int:
    from rtgauge.analysis.run_length import plan
    from rtgauge.report.document import Report
    from rtgauge.report.formats import EXPORTERS
    from rtgauge.report.run_length_report import plan_blocks, plan_claim

    deadline = parse_duration_ns(args.deadline)
    period = parse_duration_ns(args.period, "--period", "1ms")
    rate = parse_rate(args.miss_rate)
    if rate == 0:
        raise UsageError(
            f"--miss-rate {args.miss_rate!r}: no number of samples backs a zero rate; "
            "give a rate in (0, 1), e.g. 1e-9"
        )
    confidence = parse_confidence(args.confidence)
    p = plan(deadline, rate, confidence, period, parse_misses(args.misses))
    fmt = chosen_format(args)
    if fmt == "json":
        text = json.dumps(p.to_json(), indent=1) + "\n"
    else:
        text = EXPORTERS[fmt].render(Report(f"rtgauge plan: {plan_claim(p)}", plan_blocks(p)))
    emit(args, text, fmt, "plan")
    return 0
