"""The freertos-qemu target's host side, against a fake QEMU: the arguments
sent over the console once the board says READY, how boots are joined into
one run (one system record, an end record counted over every boot), what a
restart passes on, which boot's stacks the end record holds, and how a
silent or bad board ends."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from rtgauge.errors import UsageError
from rtgauge.targets.firmware import board_folder, board_named, build_failure, find_firmware
from rtgauge.targets.freertos_qemu import BoardOptions, BoardRun, qemu_command, run_on_board
from rtgauge.targets.fw_session import args_line
from rtgauge.validate import check_record

SYSTEM = json.dumps({"record": "system", "schema_version": 1})


def _test(tid: str, status: str) -> str:
    return json.dumps({"record": "test", "schema_version": 1, "id": tid, "status": status})


def _fake_qemu(tmp_path: Path, boots: list[list[str]], monkeypatch: pytest.MonkeyPatch) -> Path:
    """A qemu-system-arm that prints the next boot's lines, logs its arguments,
    and after the first READY line logs what arrives on its console (stdin)."""
    script = tmp_path / "qemu-system-arm"
    lines = json.dumps(boots)
    script.write_text(
        "#!/usr/bin/env python3\n"
        "import json, sys, pathlib\n"
        f"d = pathlib.Path({str(tmp_path)!r})\n"
        "n = len(list(d.glob('args-*')))\n"
        "(d / f'args-{n}').write_text(json.dumps(sys.argv[1:]))\n"
        "asked = 0\n"
        f"for line in json.loads({lines!r})[n]:\n"
        "    print(line, flush=True)\n"
        "    if line.endswith('READY') and not asked:\n"
        "        asked = (d / f'console-{n}').write_text(sys.stdin.readline())\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    fw = tmp_path / "fw.elf"
    fw.write_bytes(b"\x7fELF")
    return fw


def _console(tmp_path: Path, boot: int) -> str:
    return (tmp_path / f"console-{boot}").read_text()


def test_boots_after_a_restart_become_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fw = _fake_qemu(
        tmp_path,
        [
            ["@RTG@ BEGIN", "@RTG@ READY", "@RTG@ PLAN A-B-X,C-P-Y", f"@RTG@ {SYSTEM}",
             "noise from the board", f"@RTG@ {_test('A-B-X', 'error')}", "@RTG@ RESTART"],
            ["@RTG@ BEGIN", "@RTG@ READY", "@RTG@ PLAN C-P-Y", f"@RTG@ {SYSTEM}",
             f"@RTG@ {_test('C-P-Y', 'ok')}", '@RTG@ {"record": "end", "tests": 1}',
             "@RTG@ EXIT 0"],
        ],
        monkeypatch,
    )  # fmt: skip
    run = BoardRun()
    records = [json.loads(x) for x in run_on_board(BoardOptions(fw), ["--quick"], run)]
    assert [r["record"] for r in records] == ["system", "test", "test", "end"]
    end = records[-1]
    assert (end["tests"], end["passed"], end["errors"], end["status"]) == (2, 1, 1, "complete")
    assert run.boots == 2 and run.restarts == ["A-B-X"] and run.exit_code == 3
    assert _console(tmp_path, 0) == "ARGS --quick --fw-qemu tcg\n"
    assert _console(tmp_path, 1) == "ARGS --quick --tests C-P-Y --fw-qemu tcg\n"


def test_one_boot_passes_its_own_end_record_and_exit_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    end = '{"record": "end", "tests": 1, "exit_code": 1}'
    fw = _fake_qemu(
        tmp_path,
        [["@RTG@ BEGIN", "@RTG@ READY", "@RTG@ READY", f"@RTG@ {SYSTEM}",
          f"@RTG@ {_test('A-B-X', 'fail')}", f"@RTG@ {end}", "@RTG@ EXIT 1"]],
        monkeypatch,
    )  # fmt: skip
    run = BoardRun()
    lines = list(run_on_board(BoardOptions(fw, icount=4), ["--tests", "A-*,B-*"], run))
    assert json.loads(lines[-1]) == json.loads(end) and run.exit_code == 1
    assert _console(tmp_path, 0) == "ARGS --tests A-*,B-* --fw-qemu icount:4\n"
    assert not (tmp_path / "console-1").exists()
    argv = json.loads((tmp_path / "args-0").read_text())
    assert argv[argv.index("-icount") + 1] == "shift=4,sleep=off"


def test_a_usage_error_of_the_firmware_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fw = _fake_qemu(
        tmp_path,
        [
            [
                "@RTG@ BEGIN",
                "@RTG@ READY",
                "@RTG@ ERROR --tests: no test matches 'Z'",
                "@RTG@ EXIT 2",
            ]
        ],
        monkeypatch,
    )
    run = BoardRun()
    assert list(run_on_board(BoardOptions(fw), ["--tests", "Z"], run)) == []
    assert run.exit_code == 2 and run.error == "--tests: no test matches 'Z'"


def test_a_board_that_ends_mid_run_keeps_what_arrived(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fw = _fake_qemu(
        tmp_path,
        [["@RTG@ BEGIN", "@RTG@ READY", "@RTG@ PLAN A-B-X,C-P-Y", f"@RTG@ {SYSTEM}",
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


def test_qemu_gets_the_console_on_stdio_and_semihosting_for_the_end(tmp_path: Path) -> None:
    cmd = qemu_command("qemu", BoardOptions(tmp_path / "fw.elf"))
    assert cmd[cmd.index("-semihosting-config") + 1] == "enable=on,target=native"
    assert cmd[cmd.index("-serial") + 1] == "stdio"
    assert "-icount" not in cmd and cmd[1:5] == ["-machine", "mps2-an385", "-cpu", "cortex-m3"]
    other = qemu_command("qemu", BoardOptions(tmp_path / "fw.elf", board="netduinoplus2"))
    assert other[1:3] == ["-machine", "netduinoplus2"]


def test_the_arguments_line_is_checked_before_anything_starts() -> None:
    assert args_line(["--tests", "A-*,B-*"]) == b"ARGS --tests A-*,B-*\n"
    with pytest.raises(UsageError, match="without spaces"):
        args_line(["--opt", "X.k=a b"])
    with pytest.raises(UsageError, match="holds 1023 characters"):
        args_line(["--tests", "X" * 1100])
    with pytest.raises(UsageError, match="unknown board"):
        board_named("stm32-nope")


def _board(runner_used: int, tid: str) -> dict[str, Any]:
    """An end record's "board": the firmware's stacks at the end of a boot."""
    return {
        "stacks": {
            "runner": {"stack_bytes": 10240, "used_bytes": runner_used},
            "tests": {tid: {"body": {"stack_bytes": 10240, "used_bytes": 5000}, "threads": 0}},
        }
    }


def test_the_end_of_several_boots_keeps_the_last_boot_s_stacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A boot that restarts writes no end record; the end record made from
    every boot's test records carries the "board" of the boot that ended; a
    MEMORY line (an older firmware's) is ignored."""
    last = json.dumps({"record": "end", "tests": 1, "board": _board(8100, "C-P-Y")})
    older = json.dumps({"heap_free_min_bytes": 900, "stacks": _board(8000, "A-B-X")["stacks"]})
    fw = _fake_qemu(
        tmp_path,
        [
            ["@RTG@ BEGIN", "@RTG@ READY", "@RTG@ PLAN A-B-X,C-P-Y", f"@RTG@ {SYSTEM}",
             f"@RTG@ {_test('A-B-X', 'error')}", f"@RTG@ MEMORY {older}", "@RTG@ RESTART"],
            ["@RTG@ BEGIN", "@RTG@ READY", "@RTG@ PLAN C-P-Y", f"@RTG@ {SYSTEM}",
             f"@RTG@ {_test('C-P-Y', 'ok')}", f"@RTG@ {last}", "@RTG@ EXIT 0"],
        ],
        monkeypatch,
    )  # fmt: skip
    records = [json.loads(x) for x in run_on_board(BoardOptions(fw), ["--quick"], BoardRun())]
    assert [r["record"] for r in records] == ["system", "test", "test", "end"]
    assert "board" not in records[0]
    end = records[-1]
    assert end["tests"] == 2 and end["board"] == _board(8100, "C-P-Y")


def test_an_end_without_a_board_stays_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fw = _fake_qemu(
        tmp_path,
        [
            ["@RTG@ BEGIN", "@RTG@ READY", "@RTG@ PLAN A-B-X,C-P-Y", f"@RTG@ {SYSTEM}",
             f"@RTG@ {_test('A-B-X', 'error')}", "@RTG@ RESTART"],
            ["@RTG@ BEGIN", "@RTG@ READY", "@RTG@ PLAN C-P-Y", f"@RTG@ {SYSTEM}",
             f"@RTG@ {_test('C-P-Y', 'ok')}", '@RTG@ {"record": "end", "tests": 1}',
             "@RTG@ EXIT 0"],
        ],
        monkeypatch,
    )  # fmt: skip
    records = [json.loads(x) for x in run_on_board(BoardOptions(fw), ["--quick"], BoardRun())]
    assert records[-1]["record"] == "end" and "board" not in records[-1]


def test_a_firmware_that_does_not_fit_names_the_region_and_the_overflow() -> None:
    import subprocess

    out = (
        "[ 98%] Linking C executable rtgauge-fw.elf\n"
        "/usr/bin/ld: rtgauge-fw.elf section `.bss' will not fit in region `RAM'\n"
        "/usr/bin/ld: region `RAM' overflowed by 2296 bytes\n"
        "collect2: error: ld returned 1 exit status\n"
    )
    proc = subprocess.CompletedProcess(["cmake"], 2, stdout=out, stderr="")
    assert build_failure(proc) == "/usr/bin/ld: region `RAM' overflowed by 2296 bytes"


def test_each_profile_has_its_firmware_folder(tmp_path: Path, monkeypatch: Any) -> None:
    assert board_folder("mps2-an385") == "mps2-an385"  # checked: where it always was
    assert board_folder("mps2-an385", "lean") == "mps2-an385-lean"
    for folder in ("mps2-an385", "mps2-an385-lean"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "rtgauge-fw.elf").write_bytes(b"")
    monkeypatch.setenv("RTGAUGE_FIRMWARE_DIR", str(tmp_path))
    assert find_firmware(None, profile="lean") == tmp_path / "mps2-an385-lean" / "rtgauge-fw.elf"
    assert find_firmware(None) == tmp_path / "mps2-an385" / "rtgauge-fw.elf"
    with pytest.raises(UsageError, match="unknown profile"):
        find_firmware(None, profile="fast")


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
    assert described["board"] == "mps2-an385"
    bad = parser().parse_args(["run", "--target", "freertos-qemu", "--cpus", "1"])
    with pytest.raises(UsageError, match="one CPU"):
        registry.make_target("freertos-qemu", bad)
    other = parser().parse_args(["run", "--target", "freertos-qemu", "--board", "netduinoplus2"])
    assert registry.make_target("freertos-qemu", other).describe()["board"] == "netduinoplus2"
    unknown = parser().parse_args(["run", "--target", "freertos-qemu", "--board", "nope"])
    with pytest.raises(UsageError, match="--board 'nope': unknown board"):
        registry.make_target("freertos-qemu", unknown)
    assert described["profile"] == "checked"  # the default
    lean = parser().parse_args(["run", "--target", "freertos-qemu", "--profile", "lean"])
    assert registry.make_target("freertos-qemu", lean).describe()["profile"] == "lean"
    typo = parser().parse_args(["run", "--target", "freertos-qemu", "--profile", "fast"])
    with pytest.raises(
        UsageError, match=r"--profile 'fast': unknown profile \(profiles: checked, lean\)"
    ):
        registry.make_target("freertos-qemu", typo)
    silicon = parser().parse_args(["run", "--target", "freertos-qemu", "--board", "nucleo-f401re"])
    with pytest.raises(UsageError, match="no QEMU machine models it"):
        registry.make_target("freertos-qemu", silicon)


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
    assert comp.rows and all(r.best_max is None and not r.tails for r in comp.rows)
    (good_real, bad_real), (good_board, bad_board) = points(comp)
    assert not any("best worst case" in p for p in good_real + good_board)
    assert not any(" against " in p for p in bad_real + bad_board)


def test_the_comparison_says_what_each_system_offers(
    sample_records: list[dict[str, Any]],
) -> None:
    import copy

    from rtgauge.analysis.ratings import load_criteria
    from rtgauge.model import bundle_from_records
    from rtgauge.report.compare_report import bundles_report
    from rtgauge.report.formats import EXPORTERS

    real = bundle_from_records(copy.deepcopy(sample_records), "x")
    board = bundle_from_records(copy.deepcopy(sample_records), "y")
    first, second = board.tests[0], board.tests[1]
    first.update(status="skipped", reason="needs processes, which the freertos OSAL does not offer")
    first.update(metrics=[], verdicts=[])
    second["notes"] = [*second["notes"], "pipe: not offered by this OS, no figures"]
    md = EXPORTERS["md"].render(bundles_report([real, board], load_criteria(), None, 0.0))
    section = md[md.index("## What each system offers") :]
    assert f"| {first['id']} | ran | skipped: needs processes" in section
    assert f"| {second['id']} | ran | ran; pipe: not offered by this OS, no figures |" in section


OLD_BUNDLE = Path(__file__).resolve().parents[1] / "data" / "explain" / "freertos_run.json"


def test_the_stacks_are_the_end_record_s_and_old_bundles_still_read() -> None:
    """A bundle from before the end record carried the stacks has them in
    its system record's "board" (the host added them): still valid; an end
    record now carries the same object under "board", and a broken one is
    refused."""
    old = json.loads(OLD_BUNDLE.read_text())
    stacks = old["system"]["board"]["stacks"]
    assert check_record(old["system"], "old system")["board"]["stacks"]["runner"]["used_bytes"]
    end = {**old["end"], "board": {"stacks": stacks}}
    assert check_record(end, "end") is end
    broken = json.loads(json.dumps(end))
    broken["board"]["stacks"]["runner"]["used_bytes"] = "deep"
    with pytest.raises(UsageError, match="board/stacks/runner/used_bytes"):
        check_record(broken, "end")
