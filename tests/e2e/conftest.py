"""The family files' shared fixture: their family run once, quick."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from probe_run import ProbeRun, run_probe
from ssh_server import sshd_server


@pytest.fixture(scope="module")
def quick(request: pytest.FixtureRequest) -> ProbeRun:
    """`--quick --tests FAMILY` plus the module's SHORT options, run once per file."""
    module = request.module
    return run_probe("--quick", "--tests", module.FAMILY, *getattr(module, "SHORT", ()))


@pytest.fixture(scope="module")
def sshd() -> Iterator[tuple[int, Path]]:
    """An OpenSSH server on 127.0.0.1: its port and the client key that logs in."""
    try:
        server = sshd_server()
        with server as found:
            yield found
    except RuntimeError as exc:
        pytest.fail(str(exc))
