"""QEMU standing in for a microcontroller board in a labgrid lab.

A lab board has a UART behind a USB-serial adapter (exported as a network
serial port) and a debug probe through which OpenOCD flashes and resets it.
Here the "board" is QEMU's netduinoplus2: its serial console is a raw TCP
port on 127.0.0.1 that stays open across resets, as an adapter's does, and
"flashing" is done by an openocd stand-in, which labgrid's own OpenOCDDriver
runs over SSH on the exporter's host exactly as it would run OpenOCD: it
logs its command line and asks the stand-in to load the ELF it was given
into a fresh QEMU (flash and reset) or to restart QEMU (reset). What is not
tested here: OpenOCD itself and a probe's wires (the OpenOCD command line
is checked in tests/unit/test_labgrid_mcu.py)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

from ssh_server import free_port

OPENOCD = """#!{python}
import json, socket, sys
args = sys.argv[1:]
with open({log!r}, "a") as f:
    f.write(json.dumps(args) + "\\n")
files = [args[i + 1] for i, a in enumerate(args) if a == "--file"]
commands = [args[i + 1] for i, a in enumerate(args) if a == "--command"]
if not files:
    print("Error: no configuration file given")
    sys.exit(1)
say = []
for c in commands:
    words = c.split()
    if words[0] == "program":
        say.append("flash " + words[1])
        if "reset" in words[2:]:
            say.append("reset")
    elif words[0] == "reset":
        say.append("reset")
for line in say:
    s = socket.socket(socket.AF_UNIX)
    s.connect({control!r})
    s.sendall((line + "\\n").encode())
    answer = s.makefile().readline().strip()
    s.close()
    if answer != "ok":
        print("Error: " + answer)
        sys.exit(1)
print("** Programming Finished **" if any(c.startswith("program") for c in commands) else "reset")
"""


class McuStandIn:
    """The board: QEMU behind a serial port that outlives its resets."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.control = str(directory / "control.sock")
        self.openocd = directory / "openocd"
        self.openocd_log = directory / "openocd.log"
        self.qemu_starts: list[str] = []
        self._elf: str | None = None
        self._qemu: subprocess.Popen[bytes] | None = None
        self._client: socket.socket | None = None
        self._lock = threading.Lock()
        self._closing = False
        self._serial = socket.create_server(("127.0.0.1", self.port))
        self._ctl = socket.socket(socket.AF_UNIX)
        self._ctl.bind(self.control)
        self._ctl.listen()
        self.openocd.write_text(
            OPENOCD.format(python=sys.executable, log=str(self.openocd_log), control=self.control)
        )
        self.openocd.chmod(0o755)
        for loop in (self._accept_serial, self._accept_control):
            threading.Thread(target=loop, daemon=True).start()

    def openocd_calls(self) -> list[list[str]]:
        if not self.openocd_log.exists():
            return []
        return [json.loads(line) for line in self.openocd_log.read_text().splitlines()]

    def _accept_serial(self) -> None:
        while not self._closing:
            try:
                client, _ = self._serial.accept()
            except OSError:
                return
            with self._lock:
                self._client = client
            threading.Thread(target=self._to_board, args=(client,), daemon=True).start()

    def _to_board(self, client: socket.socket) -> None:
        """What the host writes on the console reaches the board's UART."""
        while True:
            try:
                data = client.recv(4096)
            except OSError:
                data = b""
            if not data:
                with self._lock:
                    if self._client is client:
                        self._client = None
                return
            with self._lock:
                qemu = self._qemu
            if qemu and qemu.stdin and qemu.poll() is None:
                try:
                    qemu.stdin.write(data)
                    qemu.stdin.flush()
                except OSError:
                    pass

    def _from_board(self, qemu: subprocess.Popen[bytes]) -> None:
        """The board's UART output goes to whoever has the console open."""
        assert qemu.stdout is not None
        while True:
            data = os.read(qemu.stdout.fileno(), 4096)
            if not data:
                return
            with self._lock:
                client = self._client
            if client is not None:
                try:
                    client.sendall(data)
                except OSError:
                    pass

    def _accept_control(self) -> None:
        while not self._closing:
            try:
                conn, _ = self._ctl.accept()
            except OSError:
                return
            with conn:
                line = conn.makefile().readline().strip()
                conn.sendall((self._command(line) + "\n").encode())

    def _command(self, line: str) -> str:
        word, _, arg = line.partition(" ")
        if word == "flash":
            if not Path(arg).is_file():
                return f"no such file {arg}"
            self._elf = arg
            return "ok"
        if word == "reset":
            if self._elf is None:
                return "nothing flashed"
            self._restart()
            return "ok"
        return f"unknown command {line}"

    def _restart(self) -> None:
        self._stop_qemu()
        assert self._elf is not None
        qemu = subprocess.Popen(
            ["qemu-system-arm", "-machine", "netduinoplus2", "-kernel", self._elf,
             "-display", "none", "-serial", "stdio", "-monitor", "none",
             "-icount", "shift=4,sleep=off"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        with self._lock:
            self._qemu = qemu
        self.qemu_starts.append(self._elf)
        threading.Thread(target=self._from_board, args=(qemu,), daemon=True).start()

    def _stop_qemu(self) -> None:
        with self._lock:
            qemu, self._qemu = self._qemu, None
        if qemu is not None and qemu.poll() is None:
            qemu.kill()
            qemu.wait(timeout=10)

    def close(self) -> None:
        self._closing = True
        self._stop_qemu()
        for s in (self._serial, self._ctl):
            s.close()
        with self._lock:
            if self._client is not None:
                self._client.close()


def exporter_groups(port: int) -> str:
    """Exporter groups: `mcu` (console and probe), `console-only`, `probe-only`."""
    serial = (
        "  NetworkSerialPort:\n    host: 127.0.0.1\n"
        f"    port: {port}\n    protocol: raw\n    speed: 115200\n"
    )
    probe = (
        "  NetworkUSBDebugger:\n    host: 127.0.0.1\n    busnum: 1\n    devnum: 7\n"
        "    path: '1-1.4'\n    vendor_id: 0x0483\n    model_id: 0x374b\n"
    )
    return f"mcu:\n{serial}{probe}console-only:\n{serial}probe-only:\n{probe}"


def ssh_wrapper(directory: Path, ssh_port: int, key: Path) -> Path:
    """A bin directory whose ssh reaches the test's sshd as the exporter's host
    (labgrid runs OpenOCD there over SSH, as in a real lab)."""
    known = directory / "known_hosts"  # labgrid insists on StrictHostKeyChecking
    host_key = (key.parent / "host.pub").read_text().split()
    known.write_text(f"[127.0.0.1]:{ssh_port} {host_key[0]} {host_key[1]}\n")
    config = directory / "ssh_config"
    config.write_text(
        f"Host 127.0.0.1\n  Port {ssh_port}\n  User root\n  IdentityFile {key}\n"
        f"  UserKnownHostsFile {known}\n  LogLevel ERROR\n"
    )
    bin_dir = directory / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "ssh"
    wrapper.write_text(f'#!/bin/sh\nexec /usr/bin/ssh -F {config} "$@"\n')
    wrapper.chmod(0o755)
    return bin_dir
