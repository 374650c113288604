"""The documents cover every test of the catalogue, where a reader looks.

Every id of core/catalogue/catalogue.def (the test-only hooks apart) has
- its section (`### ID — Title`, the title of its descriptor) in
  docs/methodology.md, under its family's heading (`## FAM — title`, the
  title of core/catalogue/families.def), one heading per family; the
  sections in catalogue order (the families in the order of families.def, a
  family's tests in the run order of catalogue.def), each saying its parts
  in order: Measures, Start and stop, Method, Options, and Verdicts and
  controls exactly when its test gives verdicts;
- its row in the table of docs/catalogue.md (core/unit/test_catalogue_files.c
  checks that the row names the test's file);
- its row in the table of where its verdicts and rating are decided, which
  must agree with the test's source (the verdict functions it calls, its
  `release_latency`) and with the rating criteria (src/rtgauge/data/ratings.json).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DECIDED = "## Where each verdict and rating is decided"
NONE = "—"
# The parts every test's section says, in this order; the last one exactly
# when its test gives verdicts.
PARTS = ("Measures", "Start and stop", "Method", "Options")
VERDICTS_PART = "Verdicts and controls"


def catalogue_ids(def_text: str) -> list[str]:
    """The ids of catalogue.def in run order, without the hooks' block."""
    ids, hooks = [], False
    for line in def_text.splitlines():
        if line.startswith("#if RTG_TEST_HOOKS"):
            hooks = True
        elif line.startswith("#endif"):
            hooks = False
        elif (m := re.match(r"RTG_TEST\((\w+)\)", line)) and not hooks:
            ids.append(m.group(1).upper().replace("_", "-"))
    return ids


def family_titles(def_text: str) -> dict[str, str]:
    return dict(re.findall(r'^RTG_FAMILY\((\w+), "([^"]*)"\)', def_text, re.MULTILINE))


def family(test_id: str) -> str:
    return test_id.split("-", 1)[0]


def family_heading(fam: str, titles: dict[str, str]) -> str:
    """'TMR — timers and wake-up latency': the id, and the title as a heading
    writes it (first letter lower-case)."""
    title = titles.get(fam, "?")
    return f"{fam} — {title[:1].lower()}{title[1:]}"


@dataclass(frozen=True)
class SourceFacts:
    """What the methodology checks of a test's source: its descriptor's
    title, and whether it gives verdicts."""

    title: str
    verdicts: bool


def source_facts(source: str) -> SourceFacts:
    m = re.search(r'\.title\s*=\s*"([^"]*)"', source)
    return SourceFacts(
        m.group(1) if m else "?", re.search(r"\brtg_verdict(_seen)?\(", source) is not None
    )


def catalogue_order(ids: list[str], titles: dict[str, str]) -> list[str]:
    """The ids as the methodology lists them: the families in the order of
    families.def, a family's tests in run order."""
    rank = {fam: i for i, fam in enumerate(titles)}
    return sorted(ids, key=lambda tid: (rank.get(family(tid), len(rank)), ids.index(tid)))


def methodology_problems(
    text: str, ids: list[str], titles: dict[str, str], sources: dict[str, SourceFacts]
) -> list[str]:
    """What docs/methodology.md lacks: a family heading (or has it twice), a
    test's section, a section under another heading than its family's, out
    of catalogue order, headed by another title than its test's, or without
    its parts in order."""
    headings: dict[str, int] = {}
    sections: dict[str, list[str]] = {}
    order: list[str] = []  # test ids and family ids, as headed
    bodies: dict[str, list[str]] = {}
    heads: dict[str, str] = {}
    current, body = "", None
    for line in text.splitlines():
        if line.startswith("## "):
            current, body = line[3:].strip(), None
            if m := re.match(r"([A-Z]{3}) — (.+)$", current):
                headings[m.group(1)] = headings.get(m.group(1), 0) + 1
                order.append(m.group(1))
        elif line.startswith("### "):
            body = None
            if m := re.match(r"### ([A-Z]{3}-[A-Z]-[A-Z0-9]+) — (.*)$", line):
                sections.setdefault(m.group(1), []).append(current)
                order.append(m.group(1))
                heads[m.group(1)] = m.group(2).strip()
                body = bodies.setdefault(m.group(1), [])
        elif body is not None:
            body.append(line)
    problems = []
    for fam in dict.fromkeys(family(i) for i in ids):
        want = family_heading(fam, titles)
        if _h2(text).count(want) != 1 or headings.get(fam, 0) != 1:
            problems.append(f"{fam}: needs one heading '## {want}'")
    for tid in ids:
        under = sections.get(tid, [])
        if len(under) != 1:
            problems.append(f"{tid}: {len(under)} sections")
        elif under[0] != family_heading(family(tid), titles):
            problems.append(f"{tid}: under '## {under[0]}', not its family's heading")
    single = {k for k, n in headings.items() if n == 1} | {
        k for k, v in sections.items() if len(v) == 1
    }
    expected = [k for k in _with_families(catalogue_order(ids, titles)) if k in single]
    seen = [k for k in order if k in expected]
    for got, want in zip(seen, expected, strict=True):
        if got != want:
            problems.append(f"{got}: out of catalogue order, where {want} belongs")
            break
    for tid in ids:
        if tid in bodies and tid in sources:
            problems += [
                f"{tid}: {p}" for p in _section_problems(heads[tid], bodies[tid], sources[tid])
            ]
    return problems


def _with_families(ordered: list[str]) -> list[str]:
    """The ids with each family's id before its first test."""
    out: list[str] = []
    for tid in ordered:
        if family(tid) not in out:
            out.append(family(tid))
        out.append(tid)
    return out


def _section_problems(head: str, body: list[str], source: SourceFacts) -> list[str]:
    problems = []
    if head != source.title:
        problems.append(f"headed '{head}', not its title '{source.title}'")
    said = [m.group(1) for line in body if (m := re.match(r"\*\*([^*]+)\.\*\*", line))]
    wanted = [*PARTS, VERDICTS_PART] if source.verdicts else list(PARTS)
    parts = [p for p in said if p in (*PARTS, VERDICTS_PART)]
    if parts != wanted:
        problems.append(f"says {parts}, not {wanted}")
    return problems


def _h2(text: str) -> list[str]:
    return [line[3:].strip() for line in text.splitlines() if line.startswith("## ")]


def table_rows(text: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The rows of docs/catalogue.md by id: the catalogue's table, and the
    table of where verdicts and ratings are decided (after its heading)."""
    before, _, after = text.partition(DECIDED)
    return _rows(before), _rows(after)


def _rows(text: str) -> dict[str, list[str]]:
    rows = {}
    for line in text.splitlines():
        if m := re.match(r"\| ([A-Z]{3}-[A-Z]-[A-Z0-9]+) \|", line):
            rows[m.group(1)] = [c.strip() for c in line.strip().strip("|").split("|")]
    return rows


def catalogue_problems(text: str, ids: list[str]) -> list[str]:
    listed, decided = table_rows(text)
    problems = [f"{tid}: no row in the catalogue's table" for tid in ids if tid not in listed]
    problems += [f"{tid}: no row of where it is decided" for tid in ids if tid not in decided]
    return problems


def source_of(root: Path, tid: str) -> str:
    rel = f"core/catalogue/{family(tid).lower()}/{tid.lower().replace('-', '_')}.c"
    return (root / rel).read_text(encoding="utf-8")


def release_latency(source: str) -> str | None:
    m = re.search(r'\.release_latency\s*=\s*"([^"]*)"', source)
    return m.group(1) if m else None


def decided_problems(root: Path, text: str, criteria: dict[str, Any]) -> list[str]:
    """Rows of where a test is decided that disagree with its source or with
    the rating criteria."""
    problems = []
    _, decided = table_rows(text)
    for tid, cells in decided.items():
        if len(cells) != 4:
            problems.append(f"{tid}: {len(cells)} cells, not 4")
            continue
        source = source_of(root, tid)
        problems += [f"{tid}: {p}" for p in _verdict_cell(root, tid, source, cells[1])]
        problems += [f"{tid}: {p}" for p in _rating_cell(tid, source, cells[2], criteria)]
        problems += [f"{tid}: {p}" for p in _deadline_cell(source, cells[3])]
    return problems


def _verdict_cell(root: Path, tid: str, source: str, cell: str) -> list[str]:
    has_verdicts = re.search(r"\brtg_verdict(_seen)?\(", source) is not None
    if cell == NONE:
        return ["its test gives verdicts; the row names no function"] if has_verdicts else []
    if not has_verdicts:
        return ["names a verdict function, but its test gives no verdict"]
    path, _, names = cell.partition(":")
    path = path.strip().strip("`")
    if not path.startswith(f"core/catalogue/{family(tid).lower()}/"):
        return [f"{path} is not in the family's folder"]
    if not (root / path).is_file():
        return [f"{path} does not exist"]
    defined = (root / path).read_text(encoding="utf-8")
    functions = re.findall(r"`(\w+)`", names)
    if not functions:
        return ["names no function"]
    problems = []
    for fn in functions:
        if not re.search(rf"^\S[^;]*\b{fn}\(", defined, re.MULTILINE):
            problems.append(f"{fn} is not defined in {path}")
        if not re.search(rf"\b{fn}\(", source):
            problems.append(f"{fn} is not called by its test")
    return problems


def _rating_cell(tid: str, source: str, cell: str, criteria: dict[str, Any]) -> list[str]:
    fam = family(tid)
    crit = criteria["families"].get(fam)
    has_verdicts = re.search(r"\brtg_verdict(_seen)?\(", source) is not None
    problems = []
    parts = [p.strip() for p in cell.split(";")]
    rated = [p for p in parts if re.match(r"[A-Z]{3}: ", p)]
    caps = [p for p in parts if p.startswith("caps ")]
    if has_verdicts and not caps and not any(p.endswith("by its verdict") for p in rated):
        problems.append(f"its verdicts cap {fam}'s stars; the row does not say so")
    for p in caps:
        if p != f"caps {fam}" or crit is None or not has_verdicts:
            problems.append(f"'{p}': its verdicts cap {fam} only")
    if cell.startswith("not rated") and (rated or caps):
        problems.append("both rated and not rated")
    for p in rated:
        name, _, what = p.partition(": ")
        if name != fam or crit is None:
            problems.append(f"'{p}': no criterion {name} rates {fam}'s tests")
            continue
        if what == "by its verdict":
            if crit.get("by") != "verdicts" or not has_verdicts:
                problems.append(f"'{p}': {fam} is not rated by verdicts")
        elif what == "release latencies":
            if crit.get("release_latency") is not True or release_latency(source) is None:
                problems.append(f"'{p}': {fam} does not rate this test's release latencies")
        else:
            pattern = re.compile(crit.get("metric", "^$"))
            figures = re.findall(r"`([^`]+)`", what)
            if not figures:
                problems.append(f"'{p}': names no figure")
            for fig in figures:
                if not pattern.search(fig.replace("*", "x")):
                    problems.append(f"'{p}': {fam}'s criterion does not take {fig}")
    if not rated and not caps and not cell.startswith("not rated"):
        problems.append(f"'{cell}': says neither how it is rated nor that it is not")
    return problems


def _deadline_cell(source: str, cell: str) -> list[str]:
    prefix = release_latency(source)
    if cell == NONE:
        return [f"its figures {prefix}* are release latencies"] if prefix else []
    if prefix is None:
        return ["its test says no figure is a release latency"]
    if not cell.startswith("release latencies"):
        return [f"'{cell}': should say release latencies"]
    named = re.findall(r"`([^`]+)`", cell)
    if any(n != f"{prefix}*" for n in named):
        return [f"'{cell}': its release latencies are {prefix}*"]
    return []


def _read(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


def _criteria() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_read("src/rtgauge/data/ratings.json"))
    return data


def _ids() -> list[str]:
    return catalogue_ids(_read("core/catalogue/catalogue.def"))


def _titles() -> dict[str, str]:
    return family_titles(_read("core/catalogue/families.def"))


def _sources() -> dict[str, SourceFacts]:
    return {tid: source_facts(source_of(ROOT, tid)) for tid in _ids()}


def test_the_catalogue_is_read_whole() -> None:
    ids = _ids()
    assert len(ids) >= 44 and "TMR-P-LAT" in ids and "THR-P-WKL" in ids
    assert not any(i.startswith("DBG-") for i in ids)
    assert set(map(family, ids)) <= set(_titles())


def test_every_test_has_its_section_under_its_familys_heading_in_catalogue_order() -> None:
    text = _read("docs/methodology.md")
    assert methodology_problems(text, _ids(), _titles(), _sources()) == []


def test_every_test_has_its_rows_in_the_catalogue() -> None:
    assert catalogue_problems(_read("docs/catalogue.md"), _ids()) == []


def test_where_each_test_is_decided_agrees_with_its_source_and_the_criteria() -> None:
    assert decided_problems(ROOT, _read("docs/catalogue.md"), _criteria()) == []


# The checks must be able to fail.


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_a_missing_or_misplaced_section_is_caught() -> None:
    ids, titles, sources = _ids(), _titles(), _sources()
    text = _read("docs/methodology.md")
    gone = _edit(text, "### THR-P-YLD — ", "### Yield — ")
    assert methodology_problems(gone, ids, titles, sources) == ["THR-P-YLD: 0 sections"]
    moved = _edit(text, "\n## PRC — processes\n", "\n## Threads beyond\n")
    assert methodology_problems(moved, ids, titles, sources) == [
        "PRC: needs one heading '## PRC — processes'",
        "PRC-P-NEW: under '## Threads beyond', not its family's heading",
    ]
    shared = _edit(text, "\n## RWL — reader-writer locks\n", "\n")
    assert methodology_problems(shared, ids, titles, sources) == [
        "RWL: needs one heading '## RWL — reader-writer locks'",
        "RWL-P-ARC: under '## CND — condition variables', not its family's heading",
    ]


def _section(text: str, tid: str) -> str:
    """A test's section, from its heading to the next heading."""
    m = re.search(rf"\n### {tid} — .*?(?=\n##)", text, re.DOTALL)
    assert m, tid
    return m.group(0)


def _family(text: str, fam: str) -> str:
    """A family's heading and sections, up to the next family's heading."""
    m = re.search(rf"\n## {fam} — .*?(?=\n## )", text, re.DOTALL)
    assert m, fam
    return m.group(0)


def test_a_section_out_of_catalogue_order_is_caught() -> None:
    ids, titles, sources = _ids(), _titles(), _sources()
    text = _read("docs/methodology.md")
    sus, yld = _section(text, "THR-P-SUS"), _section(text, "THR-P-YLD")
    swapped = _edit(text, sus + yld, yld + sus)
    assert methodology_problems(swapped, ids, titles, sources) == [
        "THR-P-YLD: out of catalogue order, where THR-P-SUS belongs"
    ]
    # CLK-P-DUR runs after TMR-P-LOAD, but is read with its family
    dur, load = _section(text, "CLK-P-DUR"), _section(text, "TMR-P-LOAD")
    run_order = _edit(_edit(text, dur, ""), load, load + dur)
    assert methodology_problems(run_order, ids, titles, sources) == [
        "CLK-P-DUR: under '## TMR — timers and wake-up latency', not its family's heading",
        "TMR: out of catalogue order, where CLK-P-DUR belongs",
    ]
    rwl, bar = _family(text, "RWL"), _family(text, "BAR")
    families_swapped = _edit(text, rwl + bar, bar + rwl)
    assert methodology_problems(families_swapped, ids, titles, sources) == [
        "BAR: out of catalogue order, where RWL belongs"
    ]


def test_a_section_without_its_title_or_parts_is_caught() -> None:
    ids, titles, sources = _ids(), _titles(), _sources()
    text = _read("docs/methodology.md")
    retitled = _edit(text, "### THR-P-YLD — Yield with nothing else ready", "### THR-P-YLD — Yield")
    assert methodology_problems(retitled, ids, titles, sources) == [
        "THR-P-YLD: headed 'Yield', not its title 'Yield with nothing else ready'"
    ]
    yld = _section(text, "THR-P-YLD")
    no_stop = _edit(text, yld, yld.replace("**Start and stop.**", "**When.**"))
    assert methodology_problems(no_stop, ids, titles, sources) == [
        "THR-P-YLD: says ['Measures', 'Method', 'Options'], "
        "not ['Measures', 'Start and stop', 'Method', 'Options']"
    ]
    rel = _section(text, "SEM-B-REL")
    no_verdicts = _edit(text, rel, rel.replace("**Verdicts and controls.**", "**Controls.**"))
    assert methodology_problems(no_verdicts, ids, titles, sources) == [
        "SEM-B-REL: says ['Measures', 'Start and stop', 'Method', 'Options'], "
        "not ['Measures', 'Start and stop', 'Method', 'Options', 'Verdicts and controls']"
    ]
    verdicts = _edit(text, yld, yld + "\n**Verdicts and controls.** None.\n")
    assert methodology_problems(verdicts, ids, titles, sources) == [
        "THR-P-YLD: says ['Measures', 'Start and stop', 'Method', 'Options', "
        "'Verdicts and controls'], not ['Measures', 'Start and stop', 'Method', 'Options']"
    ]


def test_a_missing_row_is_caught() -> None:
    text = _read("docs/catalogue.md")
    listed = re.sub(r"\n\| SEM-P-PNG \| performance [^\n]*", "", text)
    assert catalogue_problems(listed, _ids()) == ["SEM-P-PNG: no row in the catalogue's table"]
    decided = re.sub(r"\n\| SEM-P-PNG \| — [^\n]*", "", text)
    assert catalogue_problems(decided, _ids()) == ["SEM-P-PNG: no row of where it is decided"]


THR_NEW = "`core/catalogue/thr/thr_verdicts.c`: `rtg_thr_new_ok`"
MSG_FIL = "`core/catalogue/msg/msg_verdicts.c`: `rtg_msg_urgent_first`"
SEM_REL = "`core/catalogue/sem/sem_verdicts.c`: `rtg_sem_rel_check`"
DISAGREEING = [
    (
        f"| THR-B-NEW | {THR_NEW} |",
        "| THR-B-NEW | `core/catalogue/thr/thr_verdicts.c`: `rtg_thr_old_ok` |",
        [
            "THR-B-NEW: rtg_thr_old_ok is not defined in core/catalogue/thr/thr_verdicts.c",
            "THR-B-NEW: rtg_thr_old_ok is not called by its test",
        ],
    ),
    (
        "| CND-B-ORD | `core/catalogue/cnd/",
        "| CND-B-ORD | `core/catalogue/thr/",
        ["CND-B-ORD: core/catalogue/thr/cnd_verdicts.c is not in the family's folder"],
    ),
    (
        f"| MSG-P-FIL | {MSG_FIL} |",
        "| MSG-P-FIL | — |",
        ["MSG-P-FIL: its test gives verdicts; the row names no function"],
    ),
    (
        "| THR-P-SLS | — | THR: `thread.switch.*`",
        "| THR-P-SLS | — | THR: `thread.x.*`",
        ["THR-P-SLS: 'THR: `thread.x.*`': THR's criterion does not take thread.x.*"],
    ),
    (
        "| MEM-P-FLT | — | MEM:",
        "| MEM-P-FLT | — | THR:",
        ["MEM-P-FLT: 'THR: `mem.first_touch.*`': no criterion THR rates MEM's tests"],
    ),
    (
        "| TMR-S-SUS | — | not rated | — |",
        "| TMR-S-SUS | — | not rated | release latencies: both |",
        ["TMR-S-SUS: its test says no figure is a release latency"],
    ),
    (
        "| IRQ-P-LAT | — | IRQ: release latencies | release latencies: both |",
        "| IRQ-P-LAT | — | not rated | — |",
        ["IRQ-P-LAT: its figures irq.* are release latencies"],
    ),
    (
        f"| SEM-B-REL | {SEM_REL} | caps SEM |",
        f"| SEM-B-REL | {SEM_REL} | not rated |",
        ["SEM-B-REL: its verdicts cap SEM's stars; the row does not say so"],
    ),
]


@pytest.mark.parametrize(("old", "new", "expected"), DISAGREEING)
def test_a_row_that_disagrees_is_caught(old: str, new: str, expected: list[str]) -> None:
    text = _edit(_read("docs/catalogue.md"), old, new)
    assert decided_problems(ROOT, text, _criteria()) == expected
