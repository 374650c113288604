"""docs/explain.md's "Rules" section, made from the rule table: the rules in
the order they are tried, each with the kind of part it makes, the party the
culprit line names and whether that party may legally delay the thread.

    python -m rtgauge.analysis.explain.rules_doc docs/explain.md   # rewrite it

tests/unit/test_explain_docs.py checks that the file says what the table does.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rtgauge.analysis.explain.rule_base import Rule
from rtgauge.analysis.explain.rules import BEFORE_WINDOW, REMAINDER, RULES

MARKER = (
    "<!-- rules: generated from the rule table (src/rtgauge/analysis/explain/rules.py) by "
    "`python -m rtgauge.analysis.explain.rules_doc docs/explain.md`; do not edit by hand -->"
)
HEADING = "## Rules"


def _legal(r: Rule) -> str:
    return {True: "yes", False: "no", None: "—"}[r.legal]


def _party(r: Rule) -> str:
    if r.party is None:
        return "nobody"
    whom = " (per task or handler)" if r.party_by_subject else ""
    whom = " (per interrupt)" if r.party_by_via else whom
    return f"`{r.party}`{whom}"


def rules_markdown() -> str:
    """The section's body: a table of every rule, in the order tried."""
    lines = [
        MARKER,
        "",
        "Each piece of the sample after the release goes to the first rule that",
        "applies, among the rules of its window's interval: a release window's",
        "(from the release to the thread running) or an operation's (from the",
        "thread's call to its return, the `op-` rules). A rule reads the OS",
        "only through its profile (how priorities count, whether idle has",
        "states to leave, the tick's vector, what holds off a switch), never by",
        "the OS's name. *Party* is whom the culprit line names when that rule's",
        "parts are the largest share (parts of one party are summed); *legal*",
        "says whether that party may legally delay the",
        "thread. Every rule has a must-fail case in",
        "tests/unit/test_explain_rule_table.py (release) or",
        "tests/unit/test_explain_operation.py (operation).",
        "",
        "| # | rule | window | part kind | party | legal | when and why |",
        "|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate((*RULES, BEFORE_WINDOW, REMAINDER), start=1):
        kind = "by the handler" if r.kind_of else f"`{r.kind}`"
        lines.append(
            f"| {i} | `{r.name}` | {r.interval} | {kind} | {_party(r)} | {_legal(r)} | {r.says} |"
        )
    return "\n".join(lines) + "\n"


def with_rules(text: str) -> str:
    """The document with its Rules section's body made anew."""
    start = text.index(HEADING + "\n") + len(HEADING) + 1
    end = text.find("\n## ", start)
    end = len(text) if end < 0 else end + 1
    return text[:start] + "\n" + rules_markdown() + "\n" + text[end:]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(
            "usage: python -m rtgauge.analysis.explain.rules_doc docs/explain.md", file=sys.stderr
        )
        return 2
    path = Path(argv[0])
    path.write_text(with_rules(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
