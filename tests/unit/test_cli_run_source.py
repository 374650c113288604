"""A command that reads a run takes a bundle file or a store's run id; a
missing one is one line and exit 2. (The same on PostgreSQL:
tests/e2e/test_cli_shape.py.) Old spellings still work for one release,
each with its note on stderr."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rtgauge.cli.main import parser

DATA = Path(__file__).resolve().parents[1] / "data"
HOG = DATA / "explain" / "hog_run.json"
IDLE = DATA / "explain" / "idle_vm_run.json"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    from rtgauge.store import open_store

    root = tmp_path / "store"
    with open_store(root) as opened:
        assert [opened.add(p.read_bytes(), source="run").id for p in (HOG, IDLE)] == [1, 2]
    return root


def test_report_explain_compare_by_run_id(cli: Any, store: Path) -> None:
    code, out, err = cli("report", "1", "--store", str(store), "--format", "json")
    assert code == 0, err
    assert json.loads(out)["run"]["created_at"] == json.loads(HOG.read_text())["created_at"]
    code, out, err = cli("explain", "1", "--store", str(store), "--format", "json")
    assert code == 0 and json.loads(out)[0]["test"] == "TMR-P-LAT", err
    code, out, err = cli("compare", "1", str(IDLE), "--store", str(store), "--format", "md")
    assert code == 0 and out.startswith("<!-- rtgauge comparison"), err


def test_html_of_a_stored_run_is_named_after_its_id(
    cli: Any, store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("report", "2", "--store", str(store), "--format", "html")
    assert code == 0 and out.strip() == "run-2.html" and (tmp_path / "run-2.html").is_file()


def test_store_from_the_environment(cli: Any, store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RTGAUGE_STORE", str(store))
    code, out, _ = cli("report", "2", "--format", "json")
    assert code == 0 and json.loads(out)["run"]["host"] == "vm"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["report", "7"], "run 7: no such run in "),
        (["explain", "7"], "run 7: no such run in "),
        (["compare", "1", "7"], "run 7: no such run in "),
        (["report", "missing.json"], "cannot read missing.json"),
    ],
)
def test_a_missing_run_is_exit_2(cli: Any, store: Path, argv: list[str], message: str) -> None:
    code, out, err = cli(*argv, "--store", str(store))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("rtgauge: error: ") and message in err


def test_a_run_id_without_a_store_is_exit_2_and_makes_none(cli: Any, tmp_path: Path) -> None:
    code, _, err = cli("report", "3", "--store", str(tmp_path / "none"))
    assert code == 2 and "run 3: no result store at " in err
    assert not (tmp_path / "none").exists()


def test_a_file_named_like_an_id_is_the_file(
    cli: Any, store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "2").write_bytes(HOG.read_bytes())
    code, out, _ = cli("report", "2", "--store", str(store), "--format", "json")
    assert json.loads(out)["run"]["created_at"] == json.loads(HOG.read_text())["created_at"]


# -- old spellings ------------------------------------------------------------


def _parse(argv: list[str]) -> Any:
    return parser(argv).parse_args(argv)


def test_push_is_now_server(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["run"], ["import", "x.json"], ["lab"]):
        args = _parse([*command, "--push", "http://results:8080"])
        assert args.push == "http://results:8080"
        err = capsys.readouterr().err
        assert err == (
            "rtgauge: note: --push is now --server; the old spelling goes in the next release\n"
        )
        args = _parse([*command, "--server", "http://results:8080"])
        assert args.push == "http://results:8080" and capsys.readouterr().err == ""


def test_import_format_is_now_from(cli: Any, tmp_path: Path) -> None:
    src = DATA / "import" / "cyclictest-h200.json"
    out = tmp_path / "b.json"
    code, _, err = cli("import", str(src), "--format", "cyclictest-json", "--out", str(out))
    assert code == 0 and json.loads(out.read_text())["bundle_version"] == 1
    assert (
        err == "rtgauge: note: --format is now --from; the old spelling goes in the next release\n"
    )
    code, _, err = cli("import", str(src), "--from", "cyclictest-json", "--out", str(out))
    assert code == 0 and err == ""
    code, _, err = cli("import", str(src), "--from", "rtla-hist", "--out", str(out))
    assert code == 2


def test_import_to_stdout(cli: Any) -> None:
    code, out, _ = cli("import", str(DATA / "import" / "cyclictest-h200.json"), "--out", "-")
    assert code == 0 and json.loads(out)["import"]["source"].startswith("cyclictest")


def test_compare_out_stem_still_writes_html_and_md(cli: Any, tmp_path: Path) -> None:
    stem = tmp_path / "cmp"
    code, out, err = cli("compare", str(HOG), str(IDLE), "--out", str(stem))
    assert code == 0
    assert out.split() == [str(stem) + ".html", str(stem) + ".md"]
    assert err.startswith(f"rtgauge: note: --out {stem} without an extension wrote ")
    assert err.count("\n") == 1 and "give --format and --out FILE" in err
    code, out, err = cli("compare", str(HOG), str(IDLE), "--out", str(tmp_path / "c.html"))
    assert code == 0 and err == "" and (tmp_path / "c.html").read_text().startswith("<!DOCTYPE")


def test_history_html_file_still_writes_the_page(cli: Any, store: Path, tmp_path: Path) -> None:
    page = tmp_path / "h.html"
    code, out, err = cli("history", "--store", str(store), "--html", str(page))
    assert code == 0 and page.read_text().startswith("<!DOCTYPE html>")
    assert f"history page: {page}" in out
    assert err == (
        "rtgauge: note: --html [FILE] is now --format html --out FILE; "
        "the old spelling goes in the next release\n"
    )
    new = tmp_path / "new.html"
    code, out, err = cli("history", "--store", str(store), "--format", "html", "--out", str(new))
    assert code == 0 and err == "" and out.strip() == str(new)
    assert new.read_text().startswith("<!DOCTYPE html>")


def test_push_refuses_what_is_not_a_bundle(cli: Any, tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("rtg_x\n")
    old = tmp_path / "x.out.json"  # an older release wrote these into the store
    code, _, _ = cli("report", str(HOG), "--format", "json", "--out", str(old))
    report = tmp_path / "judged.json"
    code, _, _ = cli("report", str(HOG), "--deadline", "1ms", "--out", str(report))
    assert code == 0
    both = tmp_path / "both.json"
    code, _, _ = cli("compare", str(HOG), str(IDLE), "--format", "json", "--out", str(both))
    assert code == 0
    odd = tmp_path / "odd.json"  # a bundle with a key of its own added
    odd.write_text(json.dumps({**json.loads(HOG.read_text()), "analysis": {}}))
    index = tmp_path / "index.sqlite"
    index.write_bytes(b"SQLite format 3\x00")
    for path, why in (
        (old, "a report written by rtgauge report --format json, not a bundle"),
        (report, "an analysed run (rtgauge report --format json), not a bundle"),
        (odd, "not a bundle (it has analysis: a report made from a run)"),
        (both, "a list of runs (a report's JSON), not a bundle"),
        (index, "not a bundle (.json) or a probe stream (.jsonl)"),
    ):
        # port 9: nothing listens, and nothing is tried: the file is refused first
        code, out, err = cli(
            "push", str(HOG), str(path), "--server", "http://127.0.0.1:9",
            "--token-file", str(token),
        )  # fmt: skip
        assert code == 2 and out == "" and why in err and err.count("\n") == 1
