"""The SSH target against a real OpenSSH server on 127.0.0.1, logging in as an
unprivileged user and as root: same records as a local run, nothing left behind."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from probe_run import ROOT, validate
from ssh_server import USER, free_port

from rtgauge.errors import UsageError
from rtgauge.targets.ssh import SshRun, SshTarget, parse_ssh_url, run_over_ssh

ARGS = ["--quick", "--tests", "CLK-P-RES,TMR-P-LAT", "--opt", "TMR-P-LAT.duration_ms=200"]


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
        list(run_over_ssh(_target("root", free_port(), key), ROOT, ARGS, SshRun()))


@pytest.mark.parametrize(
    "url", ["ssh://", "ssh://a@b:0", "ssh://a@b:99999", "http://x", "ssh://a b"]
)
def test_bad_urls(url: str) -> None:
    with pytest.raises(UsageError):
        parse_ssh_url(url)
