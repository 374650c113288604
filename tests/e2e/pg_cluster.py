"""A throwaway PostgreSQL cluster for the tests: Debian's server binaries,
initdb in a temporary directory, listening on 127.0.0.1 on a free port only,
password authentication, stopped and removed at the end. As root the
cluster runs as the `postgres` user (PostgreSQL refuses to run as root)."""

from __future__ import annotations

import ctypes
import glob
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

USER = "rtgauge"


def server_bin() -> Path:
    """The directory of initdb and postgres: Debian's newest, else the PATH's."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4])
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).resolve().parent
    raise RuntimeError("PostgreSQL's server binaries are missing: make deps-postgres")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Cluster:
    port: int
    password: str

    def url(self, database: str) -> str:
        return f"postgresql://{USER}:{self.password}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A fresh database; returns its URL."""
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _die_with_parent() -> None:
    """In the server's child: a fast shutdown when the process that started it
    dies, however it dies (the cluster never outlives its test run)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGINT)  # PR_SET_PDEATHSIG


def _as_user() -> dict[str, Any]:
    if os.geteuid() != 0:
        return {}
    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
    raise RuntimeError("running as root without a 'postgres' or 'nobody' user to run PostgreSQL")


@contextmanager
def pg_cluster(timeout: float = 60.0) -> Iterator[Cluster]:
    bindir = server_bin()
    who = _as_user()
    home = Path(tempfile.mkdtemp(prefix="rtgauge-pg-"))
    proc: subprocess.Popen[bytes] | None = None
    try:
        if who:
            os.chown(home, who["user"], who["group"])
        password = secrets.token_hex(16)
        pwfile = home / "pw"
        pwfile.write_text(password + "\n")
        if who:
            os.chown(pwfile, who["user"], who["group"])
        data = home / "data"
        subprocess.run(
            [bindir / "initdb", "-D", data, "-U", USER, "-E", "UTF8", "--no-sync",
             "--auth=scram-sha-256", f"--pwfile={pwfile}", "--no-instructions"],
            check=True, capture_output=True, timeout=timeout, cwd=home, **who,
        )  # fmt: skip
        pwfile.unlink()
        port = free_port()
        log = open(home / "server.log", "wb")  # noqa: SIM115 (closed below)
        proc = subprocess.Popen(
            [bindir / "postgres", "-D", data, "-h", "127.0.0.1", "-p", str(port),
             "-k", home, "-c", "fsync=off", "-c", "synchronous_commit=off",
             "-c", "full_page_writes=off", "-c", "max_connections=200"],
            stdout=log, stderr=subprocess.STDOUT, cwd=home, preexec_fn=_die_with_parent, **who,
        )  # fmt: skip
        log.close()
        cluster = Cluster(port, password)
        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(cluster.url("postgres"), connect_timeout=2):
                    break
            except psycopg.OperationalError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    tail = (home / "server.log").read_text(errors="replace")[-800:]
                    raise RuntimeError(f"PostgreSQL did not start: {tail}") from None
                time.sleep(0.1)
        yield cluster
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # fast shutdown
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        shutil.rmtree(home, ignore_errors=True)
