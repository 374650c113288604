"""A tune result stored, read back, listed by `rtgauge runs`, rendered by
`rtgauge report` (Markdown, HTML with a chart per knob) and served as a page;
the command's bad input. The result comes from synthetic rounds."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_tune_measure import FakeSystem, _cands

from rtgauge.report.formats import EXPORTERS
from rtgauge.report.tune_report import tune_report, tune_text
from rtgauge.server.app import make_app
from rtgauge.server.settings import Settings
from rtgauge.store import open_store
from rtgauge.tune import result as stored
from rtgauge.tune.measure import tune
from rtgauge.tune.result import TuneResult


def _result() -> TuneResult:
    system = FakeSystem()
    out = tune(_cands(), system.prober, system.apply, rounds=4)
    return TuneResult(
        created_at="2026-01-02T03:04:05+00:00",
        host="box",
        kernel="6.1",
        target="local",
        cpus="1",
        tests="TMR-P-LAT",
        rounds=4,
        round_ms=3000,
        seconds=out.seconds,
        trials=out.trials,
        together=out.together,
        not_tried=out.not_tried,
    )


def test_the_result_reads_back_as_written(tmp_path: Path) -> None:
    r = _result()
    path = stored.save(r, tmp_path)
    assert path.name.startswith(stored.PREFIX) and stored.is_tune_file(path)
    back = stored.load(path)
    assert back == r
    assert json.loads(path.read_text())["kind"] == "tune"


def test_markdown_says_each_knob_its_decision_and_what_was_not_tried() -> None:
    r = _result()
    md = EXPORTERS["md"].render(tune_report(r))
    for t in r.trials:
        assert f"### {t.knob}: {t.title}" in md
        for f in t.figures:
            assert f.decision.sentence.split(":")[0] in md
    helped = [t.knob for t in r.helped]
    assert helped and f"helped beyond chance: {', '.join(helped)}" in md
    for n in r.not_tried:
        assert n.knob in md and n.why in md
    irq = next(t for t in r.trials if t.knob == "irq-affinity")
    assert irq.shift.text.replace("→", "→") in md.replace("\\", "")


def test_html_has_a_before_after_chart_per_figure() -> None:
    r = _result()
    html = EXPORTERS["html"].render(tune_report(r))
    charts = sum(len(t.figures) for t in r.trials)
    assert html.count("<svg") >= charts
    assert "before" in html and "after" in html


def test_the_summary_states_before_and_after_per_statistic() -> None:
    r = _result()
    text = tune_text(r)
    for t in r.trials:
        assert f"{t.knob}: {t.outcome}" in text
    assert "max " in text and " → " in text and "p99 " in text and "mean " in text


def test_runs_lists_it_as_kind_tune_and_report_renders_it(tmp_path: Path, cli: Any) -> None:
    path = stored.save(_result(), tmp_path)
    code, out, _ = cli("runs", "--store", str(tmp_path))
    assert code == 0 and "tune" in out and str(path) in out
    code, out, _ = cli("runs", "--store", str(tmp_path), "--format", "json")
    rows = json.loads(out)
    assert [r["kind"] for r in rows] == ["tune"] and rows[0]["helped"] == ["irq-affinity"]
    code, out, _ = cli("report", str(path), "--format", "md")
    assert code == 0 and "rtgauge tune" in out
    code, out, _ = cli("report", path.stem, "--store", str(tmp_path), "--format", "md")
    assert code == 0 and "irq-affinity" in out


def test_serve_has_its_page(tmp_path: Path) -> None:
    path = stored.save(_result(), tmp_path)
    client = TestClient(make_app(open_store(tmp_path), Settings("127.0.0.1", 8080)))
    page = client.get(f"/tune/{path.stem}")
    assert page.status_code == 200 and "irq-affinity" in page.text and "<svg" in page.text
    assert client.get("/tune/tune-nothing").status_code == 404
    assert client.get("/tune/..%2fetc").status_code == 404


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--rounds", "0"], "--rounds"),
        (["--rounds", "x"], "--rounds"),
        (["--round", "soon"], "--round"),
        (["--round", "500ms"], "at least 1s"),
        (["--cpus", "99999"], "--cpus"),
        (["--cpus", "a-b"], "--cpus"),
        (["--movable", "abc"], "--movable"),
        (["--target", "ssh:box"], "tunes local or ssh://"),
        (["--target", "ssh://a b"], "expected ssh://[user@]host[:port]"),
        (["--target", "ssh://a@b:0"], "port 0"),
        (["--target", "ssh://b", "--knobs", "nope"], "unknown nope"),
        (["--target", "ssh://b", "--movable", "x"], "--movable"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], said: str, cli: Any) -> None:
    code, out, err = cli("tune", *argv)
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1


def test_a_process_that_is_gone_is_refused(cli: Any) -> None:
    gone = max(int(p) for p in os.listdir("/proc") if p.isdigit()) + 100_000
    code, _, err = cli("tune", "--movable", str(gone))
    assert code == 2 and f"no process {gone}" in err


@pytest.fixture
def fake_knobs(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The state half's candidates() as a test-local module: the fake system's knobs."""
    import sys
    import types

    import rtgauge.tune

    cands = _cands()
    module = types.ModuleType("rtgauge.tune.knobs")
    module.candidates = lambda cpus, movable=None, root=None: cands  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rtgauge.tune.knobs", module)
    monkeypatch.setattr(rtgauge.tune, "knobs", module, raising=False)
    return list(cands)


def test_dry_run_says_every_command_and_why_not_the_others(fake_knobs: list[Any], cli: Any) -> None:
    code, out, _ = cli("tune", "--cpus", "0", "--dry-run")
    assert code == 0
    for c in fake_knobs:
        if c.state == "try":
            assert f"{c.knob}: would try" in out
            assert all(f"    {ch.command()}" in out for ch in c.changes)
        else:
            assert f"{c.knob}: {c.state}: {c.why}" in out


def test_knobs_picks_and_an_unknown_one_is_refused(fake_knobs: list[Any], cli: Any) -> None:
    code, out, _ = cli("tune", "--cpus", "0", "--dry-run", "--knobs", "thp")
    assert code == 0 and "thp: would try" in out and "irq-affinity: would" not in out
    code, _, err = cli("tune", "--cpus", "0", "--dry-run", "--knobs", "thp,nope")
    assert code == 2 and "nope" in err and "irq-affinity" in err


def test_not_root_is_one_line_and_exit_2(
    fake_knobs: list[Any], cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    code, _, err = cli("tune", "--cpus", "0")
    assert code == 2 and "as root" in err and len(err.strip().splitlines()) == 1


def test_the_rounds_conditions_are_kept_and_said(tmp_path: Path) -> None:
    r = _result()
    assert "every round ran with SCHED_FIFO and mlockall" in tune_text(r)
    r.conditions = ["hypervisor present (KVM): it can steal time (in 8 of 8 rounds)"]
    back = stored.load(stored.save(r, tmp_path))
    assert back.conditions == r.conditions
    md = EXPORTERS["md"].render(tune_report(back))
    assert "limited: hypervisor present (KVM)" in md and "8 of 8 rounds" in tune_text(back)
