"""One CLI shape: --format and --out the same way on every command that
writes, the text format without markup, the defaults on and off a terminal,
and no report written into the store unasked."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from rtgauge.cli.output import add_output, chosen_format, destination
from rtgauge.report.document import Cell, Heading, Notice, Para, Report, Table
from rtgauge.report.formats import EXPORTERS

DATA = Path(__file__).resolve().parents[1] / "data"
HOG = DATA / "explain" / "hog_run.json"
IDLE = DATA / "explain" / "idle_vm_run.json"


def _args(argv: list[str], formats: tuple[str, ...], piped: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_output(p, formats, piped)
    return p.parse_args(argv)


def test_text_has_no_markup() -> None:
    tricky = "share <1 % of [x] *y* `z` a|b & c"
    report = Report(
        "t",
        [
            Heading(1, "Why <late>"),
            Para(tricky, "warn"),
            Table(["part", "share"], [[Cell("wake-up"), Cell("<1 %")], [Cell(tricky), Cell("")]]),
            Notice("less trust", [tricky]),
        ],
    )
    text = EXPORTERS["text"].render(report)
    assert "Why <late>" in text and "Warning: " + tricky in text
    assert text.count(tricky) == 3 and "<1 %" in text
    for markup in ("&lt;", "&amp;", "\\[", "\\*", "|---", "**", "<!--"):
        assert markup not in text


def test_text_keeps_a_targets_escape_sequence_off_the_terminal() -> None:
    text = EXPORTERS["text"].render(Report("t", [Para("host\x1b[2Jname")]))
    assert "\x1b" not in text and "\\x1b[2Jname" in text


def test_the_default_format_on_and_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    formats = ("text", "md", "html", "json")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert chosen_format(_args([], formats, "md")) == "text"
    assert chosen_format(_args(["--out", "-"], formats, "md")) == "text"
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    assert chosen_format(_args([], formats, "md")) == "md"
    # --out FILE names its format by its extension; --format wins over it
    assert chosen_format(_args(["--out", "r.html"], formats, "md")) == "html"
    assert chosen_format(_args(["--out", "r.json"], formats, "md")) == "json"
    assert chosen_format(_args(["--out", "r.txt"], formats, "md")) == "text"
    assert chosen_format(_args(["--out", "r.html", "--format", "md"], formats, "md")) == "md"
    assert chosen_format(_args(["--out", "r.xml"], formats, "md")) == "md"  # not offered here


def test_where_each_format_goes() -> None:
    formats = ("text", "md", "html", "json")
    assert destination(_args([], formats, "md"), "md", "x") is None
    assert destination(_args([], formats, "md"), "html", "x") == Path("x.html")
    assert destination(_args(["--out", "-"], formats, "md"), "html", "x") is None
    assert destination(_args(["--out", "a/b.md"], formats, "md"), "md", "x") == Path("a/b.md")


def test_report_writes_where_out_says_and_never_beside_the_bundle(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store" / "vm"
    store.mkdir(parents=True)
    bundle = store / "20261124T081910Z.json"
    bundle.write_bytes(HOG.read_bytes())
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for fmt, marker in (
        ("md", "# rtgauge: vm"),
        ("json", '"schema": "rtgauge-analysis/1"'),
        ("text", "rtgauge: vm — "),
        ("junit", "<testsuites"),
    ):
        code, out, err = cli("report", str(bundle), "--format", fmt)
        assert code == 0 and marker in out, err
    code, out, _ = cli("report", str(bundle))  # off a terminal: Markdown on stdout
    assert code == 0 and out.startswith("<!-- rtgauge: vm")
    code, out, _ = cli("report", str(bundle), "--format", "html")
    assert code == 0 and out.strip() == "20261124T081910Z.html"
    assert (work / "20261124T081910Z.html").read_text().startswith("<!DOCTYPE html>")
    code, out, _ = cli("report", str(bundle), "--out", str(tmp_path / "r.md"))
    assert code == 0 and (tmp_path / "r.md").read_text().startswith("<!-- rtgauge: vm")
    code, _, _ = cli("report", str(bundle), "--out", str(tmp_path / "t.csv"))
    assert code == 0 and (tmp_path / "t.csv").read_text().startswith("# ")
    code, _, _ = cli("report", str(bundle), "--format", "csv", "--out", str(tmp_path / "tables"))
    assert code == 0 and len(list((tmp_path / "tables").glob("*.csv"))) > 3
    assert [p.name for p in store.iterdir()] == [bundle.name]  # nothing into the store
    code, _, err = cli("report", str(bundle), "--format", "json", "--out", str(bundle))
    assert code == 2 and "refusing to overwrite the input" in err
    assert bundle.read_bytes() == HOG.read_bytes()


def test_explain_as_text_reads_as_text(cli: Any) -> None:
    code, out, _ = cli("explain", str(HOG), "--format", "text")
    assert code == 0 and "Why the worst case: TMR-P-LAT" in out
    assert "<1 %" in out and "&lt;" not in out and "###" not in out


def test_every_listing_command_has_json(cli: Any, tmp_path: Path) -> None:
    from rtgauge.store import open_store

    store = tmp_path / "store"

    with open_store(store) as opened:
        for src in (HOG, IDLE):
            opened.add(src.read_bytes(), source="run")
    code, out, _ = cli("runs", "--store", str(store), "--format", "json")
    rows = json.loads(out)
    assert code == 0 and sorted(r["id"] for r in rows) == [1, 2]
    assert all(r["host"] == "vm" and r["file"] for r in rows)
    code, out, _ = cli("history", "--store", str(store), "--format", "json")
    (group,) = json.loads(out)
    assert code == 0 and group["system"] and len(group["runs"]) == 2
    assert set(group["runs"][0]["tests"]["TMR-P-LAT"]) >= {"max µs", "verdicts"}
    code, out, _ = cli("history", "--store", str(store), "--label", "none", "--format", "json")
    assert code == 0 and json.loads(out) == []
    code, out, _ = cli("compare", "1", "2", "--store", str(store), "--format", "json")
    assert code == 0 and [r["schema"] for r in json.loads(out)] == ["rtgauge-analysis/1"] * 2
    code, out, _ = cli("compare", "1", "2", "--store", str(store), "--format", "text")
    assert code == 0 and out.startswith("rtgauge comparison: vm")


def test_list_as_json(cli: Any, tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    line = {
        "record": "catalogue",
        "id": "TMR-P-LAT",
        "title": "Periodic wake-up latency per CPU",
        "kind": "P",
        "available": True,
        "reason": None,
        "options": [],
    }
    probe.write_text(f"#!/bin/sh\necho '{json.dumps(line)}'\n")
    probe.chmod(0o755)
    code, out, _ = cli("list", "--probe", str(probe), "--format", "json")
    (entry,) = json.loads(out)
    assert code == 0 and entry["id"] == "TMR-P-LAT" and entry["available"] is True
    code, out, _ = cli("list", "--probe", str(probe), "--out", str(tmp_path / "l.json"))
    assert code == 0 and json.loads((tmp_path / "l.json").read_text())[0]["kind"] == "P"
