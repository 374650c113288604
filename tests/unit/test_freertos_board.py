"""The freertos-qemu target's host side, against a fake QEMU: how boots are
joined into one run (one system record, an end record counted over every
boot), what a restart passes on, and how a silent or bad board ends."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from rtgauge.errors import UsageError
from rtgauge.targets.freertos_qemu import BoardOptions, BoardRun, qemu_command, run_on_board

SYSTEM = json.dumps({"record": "system", "schema_version": 1})


def _test(tid: str, status: str) -> str:
    return json.dumps({"record": "test", "schema_version": 1, "id": tid, "status": status})


def _fake_qemu(tmp_path: Path, boots: list[list[str]], monkeypatch: pytest.MonkeyPatch) -> Path:
    """A qemu-system-arm that prints the next boot's lines and logs its arguments."""
    script = tmp_path / "qemu-system-arm"
    lines = json.dumps(boots)
    script.write_text(
        "#!/usr/bin/env python3\n"
        "import json, sys, pathlib\n"
        f"d = pathlib.Path({str(tmp_path)!r})\n"
        "n = len(list(d.glob('args-*')))\n"
        "(d / f'args-{n}').write_text(json.dumps(sys.argv[1:]))\n"
        f"for line in json.loads({lines!r})[n]:\n"
        "    print(line, flush=True)\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    fw = tmp_path / "fw.elf"
    fw.write_bytes(b"\x7fELF")
    return fw


def _semihosting_args(tmp_path: Path, boot: int) -> str:
    argv: list[str] = json.loads((tmp_path / f"args-{boot}").read_text())
    return argv[argv.index("-semihosting-config") + 1]


def test_boots_after_a_restart_become_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fw = _fake_qemu(
        tmp_path,
        [
            ["@RTG@ BEGIN", "@RTG@ PLAN A-B-X,C-P-Y", f"@RTG@ {SYSTEM}",
             "noise from the board", f"@RTG@ {_test('A-B-X', 'error')}", "@RTG@ RESTART"],
            ["@RTG@ BEGIN", "@RTG@ PLAN C-P-Y", f"@RTG@ {SYSTEM}", f"@RTG@ {_test('C-P-Y', 'ok')}",
             '@RTG@ {"record": "end", "tests": 1}', "@RTG@ EXIT 0"],
        ],
        monkeypatch,
    )  # fmt: skip
    run = BoardRun()
    records = [json.loads(x) for x in run_on_board(BoardOptions(fw), ["--quick"], run)]
    assert [r["record"] for r in records] == ["system", "test", "test", "end"]
    end = records[-1]
    assert (end["tests"], end["passed"], end["errors"], end["status"]) == (2, 1, 1, "complete")
    assert run.boots == 2 and run.restarts == ["A-B-X"] and run.exit_code == 3
    assert "arg=--tests,arg=C-P-Y" in _semihosting_args(tmp_path, 1)


def test_one_boot_passes_its_own_end_record_and_exit_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    end = '{"record": "end", "tests": 1, "exit_code": 1}'
    fw = _fake_qemu(
        tmp_path,
        [["@RTG@ BEGIN", f"@RTG@ {SYSTEM}", f"@RTG@ {_test('A-B-X', 'fail')}", f"@RTG@ {end}",
          "@RTG@ EXIT 1"]],
        monkeypatch,
    )  # fmt: skip
    run = BoardRun()
    lines = list(run_on_board(BoardOptions(fw, icount=4), ["--tests", "A-*,B-*"], run))
    assert json.loads(lines[-1]) == json.loads(end) and run.exit_code == 1
    semi = _semihosting_args(tmp_path, 0)
    assert "arg=A-*,,B-*" in semi  # QEMU's escaping of a comma
    argv = json.loads((tmp_path / "args-0").read_text())
    assert argv[argv.index("-icount") + 1] == "shift=4,sleep=off"


def test_a_usage_error_of_the_firmware_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fw = _fake_qemu(
        tmp_path, [["@RTG@ ERROR --tests: no test matches 'Z'", "@RTG@ EXIT 2"]], monkeypatch
    )
    run = BoardRun()
    assert list(run_on_board(BoardOptions(fw), ["--tests", "Z"], run)) == []
    assert run.exit_code == 2 and run.error == "--tests: no test matches 'Z'"


def test_a_board_that_ends_mid_run_keeps_what_arrived(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fw = _fake_qemu(
        tmp_path,
        [["@RTG@ BEGIN", "@RTG@ PLAN A-B-X,C-P-Y", f"@RTG@ {SYSTEM}",
          f"@RTG@ {_test('A-B-X', 'pass')}"]],
        monkeypatch,
    )  # fmt: skip
    run = BoardRun()
    records = [json.loads(x) for x in run_on_board(BoardOptions(fw), [], run)]
    assert [r["record"] for r in records] == ["system", "test", "end"]
    assert records[-1]["status"] == "interrupted" and run.exit_code == 3
    assert run.error == "the run ended before every test had a record"


def test_silence_before_boot_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fw = _fake_qemu(tmp_path, [["only noise, no frame"]], monkeypatch)
    run = BoardRun()
    assert list(run_on_board(BoardOptions(fw, boot_timeout_s=5), [], run)) == []
    assert run.exit_code == 3 and run.error and "did not boot" in run.error


def test_the_command_line_reaches_semihosting_escaped(tmp_path: Path) -> None:
    cmd = qemu_command("qemu", BoardOptions(tmp_path / "fw.elf"), ["--opt", "X.k=a,b"])
    semi = cmd[cmd.index("-semihosting-config") + 1]
    assert semi == "enable=on,target=native,arg=rtgauge-fw,arg=--opt,arg=X.k=a,,b"
    assert "-icount" not in cmd and cmd[1:5] == ["-machine", "mps2-an385", "-cpu", "cortex-m3"]


def test_the_factory_knows_the_board_and_its_options() -> None:
    from rtgauge.cli.main import parser
    from rtgauge.targets import registry
    from rtgauge.targets.freertos_qemu import FreeRTOSBoard

    args = parser().parse_args(["run", "--target", "freertos-qemu", "--icount"])
    board = registry.make_target("freertos-qemu", args)
    assert isinstance(board, FreeRTOSBoard) and board.probe_command == "rtgauge-fw"
    described = board.describe()
    assert described["kind"] == "freertos-qemu" and described["emulated"] is True
    assert described["icount_shift"] == 4 and described["virtualised"] is False
    bad = parser().parse_args(["run", "--target", "freertos-qemu", "--cpus", "1"])
    with pytest.raises(UsageError, match="one CPU"):
        registry.make_target("freertos-qemu", bad)


def test_an_icount_run_is_labelled_virtual_time_and_never_ranked(
    sample_records: list[dict[str, Any]],
) -> None:
    import copy

    from rtgauge.analysis.compare import compare, points
    from rtgauge.model import bundle_from_records
    from rtgauge.run import Run

    real = Run.of(bundle_from_records(copy.deepcopy(sample_records), "x"))
    on_board = bundle_from_records(copy.deepcopy(sample_records), "y")
    on_board.target = {"kind": "freertos-qemu", "emulated": True, "icount_shift": 4}
    board = Run.of(on_board)
    cond = board.conditions
    assert cond.emulated and cond.virtual_time and not cond.timing_rateable
    assert cond.timing_limit == "emulated CPU, timings are virtual time (instruction counts)"
    assert "virtual time" in cond.reasons[0]
    comp = compare([real, board])
    assert comp.rows and all(r.best_max is None and not r.bulk for r in comp.rows)
    (good_real, bad_real), (good_board, bad_board) = points(comp)
    assert not any("best worst case" in p for p in good_real + good_board)
    assert not any(" against " in p for p in bad_real + bad_board)


def test_the_comparison_says_what_each_system_offers(
    sample_records: list[dict[str, Any]],
) -> None:
    import copy

    from rtgauge.analysis.ratings import load_criteria
    from rtgauge.model import bundle_from_records
    from rtgauge.report.compare_report import compare_report
    from rtgauge.report.formats import EXPORTERS

    real = bundle_from_records(copy.deepcopy(sample_records), "x")
    board = bundle_from_records(copy.deepcopy(sample_records), "y")
    first, second = board.tests[0], board.tests[1]
    first.update(status="skipped", reason="needs processes, which the freertos OSAL does not offer")
    first.update(metrics=[], verdicts=[])
    second["notes"] = [*second["notes"], "pipe: not offered by this OS, no figures"]
    md = EXPORTERS["md"].render(compare_report([real, board], load_criteria(), None, 0.0))
    section = md[md.index("## What each system offers") :]
    assert f"| {first['id']} | ran | skipped: needs processes" in section
    assert f"| {second['id']} | ran | ran; pipe: not offered by this OS, no figures |" in section
