"""`rtgauge lab --file` end to end: a lab of three targets of three kinds (this machine,
an SSH host, a labgrid place found by its tag) run two at a time, and one
comparison of them; a target that fails loses nothing of the others."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from labgrid_lab import Lab, labgrid_lab
from probe_run import ROOT, probe_path
from ssh_server import free_port

COMMON = f"""
[defaults]
tests = "CLK-P-RES,TMR-P-LAT"
quick = true
opt = ["TMR-P-LAT.duration_ms=200"]
ssh_options = ["StrictHostKeyChecking=no", "UserKnownHostsFile=/dev/null"]

[[target]]
name = "here"
label = "this machine"
target = "local"
probe = "{probe_path()}"
"""


@pytest.fixture(scope="module")
def lab(sshd: tuple[int, Path]) -> Iterator[Lab]:
    with labgrid_lab(sshd[0]) as found:
        found.add_place("rpi-1", board="rpi4")
        yield found


def rtgauge_lab(lab_file: Path, results: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rtgauge.cli.main", "lab", "--file", str(lab_file)]
        + ["--results-dir", str(results), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )


def test_three_kinds_two_at_a_time_one_comparison(
    lab: Lab, sshd: tuple[int, Path], tmp_path: Path
) -> None:
    port, key = sshd
    lab_file = tmp_path / "lab.toml"
    lab_file.write_text(
        COMMON.replace("[defaults]", f'[defaults]\nidentity = "{key}"')
        + f'\n[[target]]\nname = "over-ssh"\ntarget = "ssh://root@127.0.0.1:{port}"\n'
        + f'\n[[target]]\nplaces = {{ board = "rpi4" }}\ncoordinator = "{lab.address}"\n'
    )
    results = tmp_path / "results"
    proc = rtgauge_lab(lab_file, results, "--parallel", "2")
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr
    # here and over-ssh measure this machine: never at once; the board beside them.
    assert err.index("[rpi-1] started") < err.index("[here] finished")
    assert err.index("[here] finished") < err.index("[over-ssh] started")
    bundles = sorted(results.glob("*/*.json"))
    assert len(bundles) == 3
    kinds = sorted(p.read_text().split('"kind": "', 1)[1].split('"', 1)[0] for p in bundles)
    assert kinds == ["labgrid", "local", "ssh"]
    (comparison,) = results.glob("lab-lab-*.md")
    text = comparison.read_text()
    assert text.count("CLK-P-RES") >= 1 and "TMR-P-LAT" in text
    assert results.glob("lab-lab-*.html")


def test_a_failing_target_keeps_the_others(tmp_path: Path) -> None:
    lab_file = tmp_path / "lab.toml"
    lab_file.write_text(
        COMMON + f'\n[[target]]\nname = "gone"\ntarget = "ssh://root@127.0.0.1:{free_port()}"\n'
    )
    results = tmp_path / "results"
    proc = rtgauge_lab(lab_file, results, "--parallel", "2")
    assert proc.returncode == 3
    assert "[gone] failed: ssh://root@127.0.0.1" in proc.stderr
    assert "nothing to compare" in proc.stderr.splitlines()[-1]
    (kept,) = results.glob("*/*.json")  # the local run, whole
    assert '"kind": "local"' in kept.read_text()
    assert os.path.exists(kept.with_suffix(".html"))
