"""A real labgrid lab on 127.0.0.1: labgrid-coordinator and labgrid-exporter
(free ports, a temporary directory), the exporter exporting a NetworkService
for the test's sshd, and places made with labgrid-client."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ssh_server import free_port

BIN = Path(sys.executable).parent  # labgrid's commands sit beside the venv's python
STARTUP_S = 120  # bounded, and generous: a loaded CI machine starts Python slowly


@dataclass
class Lab:
    address: str
    directory: Path
    coordinator: subprocess.Popen[bytes]
    exporter: subprocess.Popen[bytes]
    env: dict[str, str] = field(default_factory=dict)

    def client(self, *args: str, user: str | None = None, check: bool = True) -> str:
        env = {**self.env, **({"LG_USERNAME": user} if user else {})}
        proc = subprocess.run(
            [str(BIN / "labgrid-client"), "-x", self.address, *args],
            env=env,
            capture_output=True,
            timeout=60,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"labgrid-client {args}: {proc.stderr.decode()}")
        return proc.stdout.decode()

    def add_place(self, name: str, group: str = "board", **tags: str) -> None:
        self.client("-p", name, "create")
        self.client("-p", name, "add-match", f"*/{group}/*")
        if tags:
            self.client("-p", name, "set-tags", *(f"{k}={v}" for k, v in tags.items()))

    def kill_coordinator(self) -> None:
        self.coordinator.send_signal(signal.SIGKILL)
        self.coordinator.wait(timeout=10)


def _wait_port(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    end = time.monotonic() + STARTUP_S
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"exited: {log.read_text(errors='replace')[-2000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"no listener on {port} within {STARTUP_S} s")


def exporter_config(ssh_port: int, user: str, power_url: str | None) -> str:
    """Group `board`: the sshd as a NetworkService; group `powered`: the same
    sshd and a NetworkPowerPort (labgrid's simplerest model) at power_url."""
    service = (
        f"  NetworkService:\n    address: 127.0.0.1\n    username: {user}\n    port: {ssh_port}\n"
    )
    config = "board:\n" + service
    if power_url:
        config += (
            "powered:\n" + service + "  NetworkPowerPort:\n    model: simplerest\n"
            f"    host: '{power_url}/relay/{{index}}/{{value}}'\n    index: 0\n"
        )
    return config


@contextmanager
def labgrid_lab(
    ssh_port: int, user: str = "root", power_url: str | None = None, extra_groups: str = ""
) -> Iterator[Lab]:
    """extra_groups: more exporter groups (YAML), e.g. a microcontroller board's."""
    d = Path(tempfile.mkdtemp(prefix="rtgauge-labgrid-"))
    port = free_port()
    address = f"127.0.0.1:{port}"
    env = {**os.environ, "LG_COORDINATOR": address, "LG_HOSTNAME": "rtgauge-test"}
    (d / "exporter.yaml").write_text(exporter_config(ssh_port, user, power_url) + extra_groups)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        with open(d / "coordinator.log", "wb") as log:
            coordinator = subprocess.Popen(
                [str(BIN / "labgrid-coordinator"), "-l", address], cwd=d, stderr=log, env=env
            )
        procs.append(coordinator)
        _wait_port(port, coordinator, d / "coordinator.log")
        with open(d / "exporter.log", "wb") as log:
            exporter = subprocess.Popen(
                [
                    *(str(BIN / "labgrid-exporter"), "-c", address),
                    *("-n", "rack", "--hostname", "127.0.0.1", str(d / "exporter.yaml")),
                ],
                cwd=d,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )
        procs.append(exporter)
        lab = Lab(address, d, coordinator, exporter, env)
        end = time.monotonic() + STARTUP_S
        while time.monotonic() < end:  # the exporter has registered its resource
            if "NetworkService" in lab.client("resources", check=False):
                break
            time.sleep(0.1)
        else:
            raise RuntimeError((d / "exporter.log").read_text(errors="replace")[-2000:])
        yield lab
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        shutil.rmtree(d, ignore_errors=True)
