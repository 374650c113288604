"""A real OpenSSH server on 127.0.0.1 for the tests of the remote targets
(ssh://, labgrid://), with a throw-away host key and client key."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

USER = "rtgauge-ssh-test"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def sshd_server() -> Iterator[tuple[int, Path]]:
    sshd_bin = shutil.which("sshd") or "/usr/sbin/sshd"
    if os.geteuid() != 0 or not os.path.exists(sshd_bin):
        raise RuntimeError("needs root and openssh-server (make deps-ssh)")
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
    port = free_port()
    config = d / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {d / 'host'}\n"
        f"AuthorizedKeysFile {d / 'authorized_keys'}\nPermitRootLogin prohibit-password\n"
        f"PasswordAuthentication no\nUsePAM no\nStrictModes no\nPidFile {d / 'sshd.pid'}\n"
    )
    os.makedirs("/run/sshd", exist_ok=True)
    log = open(d / "sshd.log", "wb")  # noqa: SIM115 (closed with the server)
    proc = subprocess.Popen([sshd_bin, "-D", "-e", "-f", str(config)], stderr=log)
    deadline = time.monotonic() + 60
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            log.close()
            tail = (d / "sshd.log").read_text(errors="replace")[-1500:]
            raise RuntimeError(f"sshd did not listen on port {port} within 60 s: {tail}")
        time.sleep(0.05)  # a polling interval
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
