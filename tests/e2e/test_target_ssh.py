"""The SSH target against a real OpenSSH server on 127.0.0.1, logging in as an
unprivileged user and as root: same records as a local run, nothing left behind."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from probe_run import ROOT, validate

from rtgauge.errors import UsageError
from rtgauge.targets.ssh import SshRun, SshTarget, parse_ssh_url, run_over_ssh

USER = "rtgauge-ssh-test"
ARGS = ["--quick", "--tests", "CLK-P-RES,TMR-P-LAT", "--opt", "TMR-P-LAT.duration_ms=200"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def sshd() -> Iterator[tuple[int, Path]]:
    sshd_bin = shutil.which("sshd") or "/usr/sbin/sshd"
    if os.geteuid() != 0 or not os.path.exists(sshd_bin):
        pytest.fail("needs root and openssh-server (make deps-ssh)")
    # Its own directory, readable by the test user (pytest's tmp dirs are 0700).
    d = Path(tempfile.mkdtemp(prefix="rtgauge-sshd-"))
    os.chmod(d, 0o755)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", d / "host"], check=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", d / "client"], check=True)
    shutil.copy(d / "client.pub", d / "authorized_keys")
    os.chmod(d / "authorized_keys", 0o644)
    created = False
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "-M", "-d", "/tmp", "-s", "/bin/sh", USER], check=True)
        created = True
    subprocess.run(["passwd", "-d", USER], capture_output=True)  # unlock for key logins
    port = _free_port()
    config = d / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {d / 'host'}\n"
        f"AuthorizedKeysFile {d / 'authorized_keys'}\nPermitRootLogin prohibit-password\n"
        f"PasswordAuthentication no\nUsePAM no\nStrictModes no\nPidFile {d / 'sshd.pid'}\n"
    )
    os.makedirs("/run/sshd", exist_ok=True)
    log = open(d / "sshd.log", "wb")  # noqa: SIM115 (closed with the server)
    proc = subprocess.Popen([sshd_bin, "-D", "-e", "-f", str(config)], stderr=log)
    for _ in range(100):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    try:
        yield port, d / "client"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()
        print((d / "sshd.log").read_text(errors="replace")[-3000:])
        if created:
            subprocess.run(["userdel", USER], capture_output=True)
        shutil.rmtree(d, ignore_errors=True)


def _target(user: str, port: int, key: Path) -> SshTarget:
    t = parse_ssh_url(f"ssh://{user}@127.0.0.1:{port}")
    t.identity = key
    t.options = ["StrictHostKeyChecking=no", "UserKnownHostsFile=/dev/null", "LogLevel=ERROR"]
    return t


@pytest.mark.parametrize("user", ["root", USER])
def test_probe_runs_over_ssh_and_cleans_up(sshd: tuple[int, Path], user: str) -> None:
    port, key = sshd
    result = SshRun()
    records = [json.loads(x) for x in run_over_ssh(_target(user, port, key), ROOT, ARGS, result)]
    assert result.error is None and result.exit_code == 0
    assert result.arch == "x86_64"
    for r in records:
        validate(r)
    assert [r["record"] for r in records] == ["system", "test", "test", "end"]
    privileged = user == "root"
    assert records[0]["privileges"]["sched_fifo"] is privileged
    assert (records[0]["privileges"]["euid"] == 0) is privileged
    assert result.remote_dir and not os.path.exists(result.remote_dir)


def test_unreachable_target_is_a_clear_error(sshd: tuple[int, Path]) -> None:
    _, key = sshd
    with pytest.raises(UsageError, match="127.0.0.1"):
        list(run_over_ssh(_target("root", _free_port(), key), ROOT, ARGS, SshRun()))


@pytest.mark.parametrize(
    "url", ["ssh://", "ssh://a@b:0", "ssh://a@b:99999", "http://x", "ssh://a b"]
)
def test_bad_urls(url: str) -> None:
    with pytest.raises(UsageError):
        parse_ssh_url(url)
