"""rtgauge plan: the samples and the run length a miss-rate claim needs, in
text, Markdown and JSON like every command; bad input is one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rtgauge.analysis.binomial import samples_needed, upper_bound

EXAMPLE = ("plan", "--deadline", "100us", "--miss-rate", "1e-9", "--period", "1ms")


def test_one_in_a_billion_at_1_khz(cli: Any) -> None:
    code, out, err = cli(*EXAMPLE, "--format", "text")
    assert code == 0, err
    assert "With no miss: 2,995,732,273 samples, 34.7 days at 1 ms (1 kHz)." in out
    rows = [ln.split() for ln in out.splitlines() if ln[:1].isdigit()]
    assert [int(r[0]) for r in rows] == [0, 1, 2, 5, 10]
    for k, n in ((int(r[0]), int(r[1].replace(",", ""))) for r in rows):
        assert n == samples_needed(k, 1e-9, 0.95)
    assert "a miss being a sample above 100 µs" in out


def test_the_period_and_the_confidence_default(cli: Any) -> None:
    code, out, _ = cli("plan", "--deadline", "100us", "--miss-rate", "1e-9", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert (data["period_ns"], data["confidence"]) == (1e6, 0.95)
    assert data["needed"][0]["samples"] == samples_needed(0, 1e-9, 0.95)


def test_misses_given_replace_the_table(cli: Any) -> None:
    argv = ("plan", "--deadline", "250us", "--miss-rate", "1e-5", "--period", "200us")
    code, out, err = cli(*argv, "--confidence", "0.99", "--misses", "3,0", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["deadline_ns"] == 250_000 and data["period_ns"] == 200_000
    assert [r["misses"] for r in data["needed"]] == [0, 3]
    for r in data["needed"]:
        n = r["samples"]
        assert upper_bound(r["misses"], n, 0.99) <= 1e-5 < upper_bound(r["misses"], n - 1, 0.99)
        assert r["duration_ns"] == n * 200_000


def test_markdown_and_a_file(cli: Any, tmp_path: Path) -> None:
    out_file = tmp_path / "plan.md"
    code, out, err = cli(*EXAMPLE, "--out", str(out_file))
    assert code == 0, err
    assert out.strip() == str(out_file)
    md = out_file.read_text(encoding="utf-8")
    assert md.count("| 0 | 2,995,732,273 | 34.7 days |") == 1
    assert "# rtgauge plan: miss rate ≤ 1e-9 at 95 % confidence" in md


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--deadline=-100us", "--miss-rate", "1e-9"], "--deadline '-100us'"),
        (["--deadline", "100", "--miss-rate", "1e-9"], "with a unit"),
        (["--deadline", "100us", "--miss-rate", "1"], "--miss-rate '1'"),
        (["--deadline", "100us", "--miss-rate", "0"], "zero rate"),
        (["--deadline", "100us", "--miss-rate=-1e-9"], "--miss-rate '-1e-9'"),
        (["--deadline", "100us", "--miss-rate", "x"], "not a number"),
        (["--deadline", "100us", "--miss-rate", "1e-9", "--confidence", "0.4"], "[0.5, 1)"),
        (["--deadline", "100us", "--miss-rate", "1e-9", "--confidence", "1"], "[0.5, 1)"),
        (["--deadline", "100us", "--miss-rate", "1e-9", "--misses=-1"], "never negative"),
        (["--deadline", "100us", "--miss-rate", "1e-9", "--misses", "two"], "--misses 'two'"),
        (["--deadline", "100us", "--miss-rate", "1e-9", "--period", "1000"], "--period '1000'"),
        (["--miss-rate", "1e-9"], "--deadline"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli: Any, extra: list[str], words: str) -> None:
    code, out, err = cli("plan", *extra)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("rtgauge: error: ") and words in err


def test_the_documented_example_is_what_the_tool_prints(cli: Any) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "plan.md").read_text(encoding="utf-8")
    command = "$ rtgauge " + " ".join(EXAMPLE) + " --format text\n"
    assert command in doc
    shown = doc.split(command, 1)[1].split("```", 1)[0]
    code, out, _ = cli(*EXAMPLE, "--format", "text")
    assert code == 0 and out == shown
