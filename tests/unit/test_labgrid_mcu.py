"""A microcontroller place's parts: what a place must have, and the OpenOCD
command line labgrid's own OpenOCDDriver builds from rtgauge's settings to
flash and reset the board on the exporter's host (only the process start is
caught: no SSH, no OpenOCD, no probe)."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rtgauge.errors import UsageError
from rtgauge.targets.labgrid_mcu import (
    LOAD_COMMANDS,
    RESET_COMMANDS,
    McuParts,
    _openocd_failure,
    mcu_parts,
    openocd_driver,
)

ROOT = Path(__file__).resolve().parents[2]
CONSOLE = ("console", "NetworkSerialPort")
PROBE = ("probe", "NetworkUSBDebugger")


def test_what_a_microcontroller_place_must_have() -> None:
    both = {CONSOLE: None, PROBE: None}
    assert mcu_parts("p", both, {}, "netduinoplus2", ROOT) == ("console", "probe", "netduinoplus2")
    assert mcu_parts("p", both, {"board": "netduinoplus2"}, None, ROOT)[2] == "netduinoplus2"
    with pytest.raises(UsageError, match="neither a NetworkService .* nor a serial console"):
        mcu_parts("p", {PROBE: None}, {}, "netduinoplus2", ROOT)
    with pytest.raises(UsageError, match="serial console but no debug probe"):
        mcu_parts("p", {CONSOLE: None}, {}, "netduinoplus2", ROOT)
    with pytest.raises(UsageError, match="say which with --board"):
        mcu_parts("p", both, {"board": "rpi4"}, None, ROOT)
    with pytest.raises(UsageError, match="mps2-an385 has no openocd.cfg"):
        mcu_parts("p", both, {}, "mps2-an385", ROOT)


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """labgrid runs OpenOCD over SSH on the probe's host: the process start is
    caught here, and the file copy to that host is taken as done."""
    from labgrid.resource.common import NetworkResource
    from labgrid.resource.remote import RemotePlaceManager
    from labgrid.util.helper import processwrapper
    from labgrid.util.managedfile import ManagedFile

    commands: list[list[str]] = []

    def run(command: list[str], **kw: Any) -> bytes:
        commands.append(command)
        return b""

    monkeypatch.setattr(processwrapper, "check_output", run)
    monkeypatch.setattr(RemotePlaceManager, "poll", lambda self: None)
    monkeypatch.setattr(
        NetworkResource, "command_prefix", property(lambda s: ["ssh", s.host, "--"])
    )
    monkeypatch.setattr(ManagedFile, "sync_to_resource", lambda self, symlink=None: None)
    monkeypatch.setattr(ManagedFile, "get_remote_path", lambda self: self.local_path)
    return commands


def test_the_openocd_command_line_flashes_then_resets(
    captured: list[list[str]], tmp_path: Path
) -> None:
    from labgrid import Target, target_factory

    target = Target("mcu-1")
    probe = target_factory.make_resource(
        target, "NetworkUSBDebugger", "probe",
        {"host": "lab-host", "busnum": 1, "devnum": 7, "path": "1-1.4",
         "vendor_id": 0x0483, "model_id": 0x374B},
    )  # fmt: skip
    probe.avail = True
    firmware = tmp_path / "rtgauge-fw.elf"
    firmware.write_bytes(b"\x7fELF")
    config = ROOT / "core" / "boards" / "netduinoplus2" / "openocd.cfg"
    parts = McuParts(
        "console", "probe", "netduinoplus2", firmware, config, "/opt/openocd/bin/openocd"
    )
    driver = openocd_driver(target, parts)
    target.activate(driver)
    driver.load(str(firmware))
    driver.execute(RESET_COMMANDS)
    flash, reset = captured
    opening = ["ssh", "lab-host", "--", "/opt/openocd/bin/openocd"]
    opening += ["--command", shlex.quote('adapter usb location "1-1.4"')]
    opening += ["--file", str(config)]
    assert flash == opening + [
        x for c in ["init", f"program {firmware} verify reset", "shutdown"]
        for x in ("--command", shlex.quote(c))
    ]  # fmt: skip
    assert reset == opening + [x for c in RESET_COMMANDS for x in ("--command", shlex.quote(c))]
    assert LOAD_COMMANDS[1] == "program {filename} verify reset"


def test_an_openocd_failure_is_said_in_its_own_error_line() -> None:
    out = b"Open On-Chip Debugger 0.12.0\r\nError: open failed\r\nin procedure 'program'\r\n"
    exc = subprocess.CalledProcessError(1, ["openocd"], output=out)
    err = _openocd_failure("mcu-1", "flashing", exc)
    assert str(err) == "labgrid place mcu-1: flashing through OpenOCD failed: Error: open failed"
