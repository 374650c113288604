"""The renderers against stored expectations: two stored bundles (tests/golden/
*.json) → their run reports and their comparison as Markdown, compared
exactly, so any change of output is a visible diff in review.

After an intended change of output, regenerate and review the diff:

    pytest tests/unit/test_golden.py --update-golden
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rtgauge.analysis.ratings import load_criteria
from rtgauge.model import load_bundle
from rtgauge.report.compare_report import bundles_report
from rtgauge.report.formats import EXPORTERS
from rtgauge.report.run_report import bundle_report

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
BUNDLES = ("local-vm", "qemu-tcg")
DEADLINE_NS, MISS_RATE = 100_000.0, 1e-2  # 100 µs: the deadline section is covered too


def _check(name: str, text: str, update: bool) -> None:
    path = GOLDEN / name
    if update:
        path.write_text(text, encoding="utf-8")
        return
    assert path.is_file(), f"{path} missing: run pytest {__file__} --update-golden"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} differs: if intended, regenerate with --update-golden"


@pytest.mark.parametrize("name", BUNDLES)
def test_run_report_markdown(name: str, update_golden: bool) -> None:
    bundle = load_bundle(GOLDEN / f"{name}.json")
    text = EXPORTERS["md"].render(bundle_report(bundle, DEADLINE_NS, MISS_RATE))
    _check(f"{name}.md", text, update_golden)


def test_compare_markdown(update_golden: bool) -> None:
    bundles = [load_bundle(GOLDEN / f"{name}.json") for name in BUNDLES]
    report = bundles_report(bundles, load_criteria(), DEADLINE_NS, MISS_RATE)
    _check("compare.md", EXPORTERS["md"].render(report), update_golden)


def test_golden_output_is_machine_independent() -> None:
    """No path of a checkout or of the machine, no time of the test run."""
    for path in GOLDEN.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        for word in (str(GOLDEN.parents[1]), "/tmp/", "/home/", "/root/"):
            assert word not in text, (path.name, word)
