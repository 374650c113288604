"""A microcontroller board in a real labgrid lab on 127.0.0.1, through
labgrid's own drivers: its SerialDriver on the exported network serial port,
its OpenOCDDriver run over SSH on the exporter's host. QEMU's netduinoplus2
stands in for the board and an openocd stand-in for OpenOCD (mcu_standin.py
says what that leaves untested). Each time: the place released, every record
that arrived kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from labgrid_lab import Lab, labgrid_lab
from mcu_standin import McuStandIn, exporter_groups, ssh_wrapper
from probe_run import ROOT

from rtgauge.targets.firmware import find_firmware

BOARD = "netduinoplus2"


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McuStandIn]:
    board = McuStandIn(tmp_path_factory.mktemp("mcu"))
    try:
        yield board
    finally:
        board.close()


@pytest.fixture(scope="module")
def lab(sshd: tuple[int, Path], standin: McuStandIn) -> Iterator[Lab]:
    with labgrid_lab(sshd[0], extra_groups=exporter_groups(standin.port)) as found:
        found.add_place("mcu-1", group="mcu", board=BOARD)
        found.add_place("mcu-noprobe", group="console-only")
        found.add_place("mcu-noconsole", group="probe-only")
        yield found


@pytest.fixture(scope="module")
def env(sshd: tuple[int, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """rtgauge's environment: labgrid's ssh reaches the test's sshd as the
    exporter's host; the firmware is the tree's, built if needed."""
    find_firmware(ROOT, BOARD)
    bin_dir = ssh_wrapper(tmp_path_factory.mktemp("ssh"), sshd[0], sshd[1])
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def rtgauge(results: Path, standin: McuStandIn, *args: str) -> list[str]:
    return [
        *(sys.executable, "-m", "rtgauge.cli.main", "run", "--no-report"),
        *("--results-dir", str(results), "--openocd", str(standin.openocd)),
        *args,
    ]


def acquired_by(lab: Lab, place: str) -> str:
    for line in lab.client("-p", place, "show").splitlines():
        if line.strip().startswith("acquired:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no acquired line for {place}")


def _bundle(results: Path) -> Any:
    (path,) = results.glob("*/*.json")
    return json.loads(path.read_text())


def test_an_mcu_board_is_flashed_reset_and_read(
    lab: Lab, standin: McuStandIn, env: dict[str, str], tmp_path: Path
) -> None:
    calls_before = len(standin.openocd_calls())
    cmd = rtgauge(
        tmp_path, standin, "--target", f"labgrid://{lab.address}/mcu-1",
        "--quick", "--tests", "SEM-B-LCK,THR-P-SLS,IRQ-P-LAT",
    )  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr
    bundle = _bundle(tmp_path)
    target = bundle["target"]
    assert target["kind"] == "labgrid" and target["place"] == "mcu-1"
    assert target["board"] == BOARD and target["bootstrap"].startswith("OpenOCDDriver")
    assert target["boots"] == 1 and bundle["command"][0] == "rtgauge-fw"
    assert [t["id"] for t in bundle["tests"]] == ["IRQ-P-LAT", "THR-P-SLS", "SEM-B-LCK"]
    assert bundle["system"]["board"]["name"] == BOARD
    assert set(bundle["end"]["board"]["stacks"]["tests"]) == {
        "IRQ-P-LAT", "THR-P-SLS", "SEM-B-LCK",
    }  # fmt: skip
    # Flashed once through labgrid's OpenOCDDriver, with the board's config.
    (call,) = standin.openocd_calls()[calls_before:]
    config = str(ROOT / "core" / "boards" / BOARD / "openocd.cfg")
    assert call[:2] == ["--command", 'adapter usb location "1-1.4"']
    assert call[call.index("--file") + 1] == config
    program = [c for c in call if c.startswith("program ")]
    assert program and program[0].endswith("rtgauge-fw.elf verify reset")
    assert acquired_by(lab, "mcu-1") == "None"


def test_after_restart_the_board_is_reset_and_given_the_tests_left(
    lab: Lab, standin: McuStandIn, env: dict[str, str], tmp_path: Path
) -> None:
    """The hooks firmware's deaf hang is killed by the watchdog: the board
    says RESTART, rtgauge resets it through OpenOCD (no second flashing)."""
    hooks = find_firmware(ROOT, BOARD, hooks=True)
    fw_dir = tmp_path / "fw" / BOARD
    fw_dir.mkdir(parents=True)
    (fw_dir / "rtgauge-fw.elf").symlink_to(hooks)
    calls_before = len(standin.openocd_calls())
    cmd = rtgauge(
        tmp_path / "r", standin, "--target", f"labgrid://{lab.address}/mcu-1",
        "--tests", "SEM-B-REL,DBG-P-HANG,DBG-P-CRASH", "--opt", "DBG-P-HANG.mode=deaf",
    )  # fmt: skip
    run_env = {**env, "RTGAUGE_FIRMWARE_DIR": str(tmp_path / "fw")}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT, env=run_env)
    assert proc.returncode == 3, proc.stderr
    bundle = _bundle(tmp_path / "r")
    tests = {t["id"]: t for t in bundle["tests"]}
    assert list(tests) == ["SEM-B-REL", "DBG-P-HANG", "DBG-P-CRASH"]
    assert tests["SEM-B-REL"]["status"] == "pass", tests["SEM-B-REL"]["reason"]
    assert "killed" in tests["DBG-P-HANG"]["reason"]
    assert "MemManage fault" in tests["DBG-P-CRASH"]["reason"]
    assert bundle["end"]["status"] == "complete" and bundle["target"]["boots"] == 2
    flash, reset = standin.openocd_calls()[calls_before:]
    assert any(c.startswith("program ") for c in flash)
    assert "reset run" in reset and not any(c.startswith("program ") for c in reset)
    assert acquired_by(lab, "mcu-1") == "None"


@pytest.mark.parametrize(
    "place, message",
    [
        ("mcu-noprobe", "has a serial console but no debug probe"),
        ("mcu-noconsole", "neither a NetworkService"),
    ],
)
def test_a_place_without_console_or_probe_is_one_line_and_exit_2(
    lab: Lab, standin: McuStandIn, env: dict[str, str], tmp_path: Path, place: str, message: str
) -> None:
    cmd = rtgauge(tmp_path, standin, "--target", f"labgrid://{lab.address}/{place}", "--quick")
    cmd += ["--board", BOARD]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert acquired_by(lab, place) == "None"
    assert not list(tmp_path.glob("*/*"))


def test_ctrl_c_during_an_mcu_run_releases_the_place(
    lab: Lab, standin: McuStandIn, env: dict[str, str], tmp_path: Path
) -> None:
    cmd = rtgauge(
        tmp_path, standin, "--target", f"labgrid://{lab.address}/mcu-1",
        "--quick", "--tests", "CLK-P-RES,TMR-P-LAT", "--opt", "TMR-P-LAT.duration_ms=600000",
    )  # fmt: skip
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env
    )
    end = time.monotonic() + 240

    def first_test_stored() -> bool:
        return any(
            '"record": "test"' in line and '"CLK-P-RES"' in line
            for p in tmp_path.glob("*/*.partial.jsonl")
            for line in p.read_text().splitlines()
        )

    while not first_test_stored():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "the first record never came"
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err
    bundle = _bundle(tmp_path)
    assert [t["id"] for t in bundle["tests"]] == ["CLK-P-RES"]  # what arrived is kept
    assert acquired_by(lab, "mcu-1") == "None"
