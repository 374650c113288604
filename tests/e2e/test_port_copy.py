"""docs/porting.md's first steps, as a newcomer would take them: copy
core/osal/c11/ under a new name, set RTG_OSAL_NAME, build with
-DRTG_OSAL=<name>, run ctest there and the catalogue. The copy must build
with nothing else changed (its port.cmake names its parts), and every test
must run or say why the port does not offer it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from probe_run import validate

ROOT = Path(__file__).resolve().parents[2]
NAME = "copied"


def source_files() -> list[str]:
    """The tree as it is checked out: tracked files and new ones not ignored."""
    if not shutil.which("git") or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the source tree's files are unknown")
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [f for f in out.split("\0") if f and (ROOT / f).is_file()]


def copy_tree(dest: Path) -> None:
    for rel in source_files():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)


def copy_port(tree: Path) -> None:
    """Step 1 of docs/porting.md: the c11 port under a new name."""
    port = tree / "core" / "osal" / NAME
    shutil.copytree(tree / "core" / "osal" / "c11", port)
    types = port / "include" / "rtg_osal_types.h"
    text = types.read_text()
    assert '#define RTG_OSAL_NAME "c11"' in text
    types.write_text(text.replace('#define RTG_OSAL_NAME "c11"', f'#define RTG_OSAL_NAME "{NAME}"'))


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Step 3: the copy built in its own build directory."""
    tree = tmp_path_factory.mktemp("tree")
    copy_tree(tree)
    copy_port(tree)
    out = tree / f"build-{NAME}"
    configure = ["cmake", "-S", str(tree), "-B", str(out), f"-DRTG_OSAL={NAME}"]
    proc = subprocess.run(
        [*configure, "-DCMAKE_BUILD_TYPE=Release"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    jobs = str(os.cpu_count() or 2)
    proc = subprocess.run(
        ["cmake", "--build", str(out), "-j", jobs], capture_output=True, text=True, timeout=1200
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    yield out
    shutil.rmtree(tree, ignore_errors=True)


def records(probe: Path, *args: str) -> tuple[int, list[dict[str, Any]]]:
    """The probe's JSON lines; a run's records must be valid by the contract."""
    proc = subprocess.run(
        [str(probe), *args], capture_output=True, text=True, timeout=600, check=False
    )
    found = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    for r in found:
        if r["record"] != "catalogue":
            validate(r)
    return proc.returncode, found


def test_the_copy_passes_its_unit_tests(build: Path) -> None:
    proc = subprocess.run(
        ["ctest", "--output-on-failure"], cwd=build, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert "tests passed" in proc.stdout


def test_every_test_runs_or_says_why_not(build: Path) -> None:
    probe = build / "rtgauge-probe"
    code, listed = records(probe, "--list-json")
    assert code == 0
    catalogue = {r["id"]: r for r in listed}
    code, run = records(probe, "--quick", "--tests", "*", "--out", "-")
    assert code == 0, run[-1:]
    system, tests, end = run[0], run[1:-1], run[-1]
    assert system["probe"]["build"]["osal"] == NAME
    assert end["record"] == "end" and end["status"] == "complete"
    assert [r["id"] for r in tests] == list(catalogue)
    ran = 0
    for r in tests:
        entry = catalogue[r["id"]]
        if not entry["available"]:
            # a topic the port does not offer, named with the port's name
            assert entry["reason"].endswith(f"which the {NAME} OSAL does not offer")
            assert (r["status"], r["reason"]) == ("skipped", entry["reason"])
        elif r["status"] == "skipped":
            # priorities, which ISO C11 has none of
            assert r["reason"].startswith("needs SCHED_"), (r["id"], r["reason"])
        else:
            assert r["status"] == "ok", (r["id"], r["status"], r.get("reason"))
            assert r["metrics"] or r["verdicts"], r["id"]
            ran += 1
    assert ran > 0
    assert end["tests"] == len(tests)


def test_the_copy_runs_as_the_c11_port_does(build: Path) -> None:
    """The copy is the c11 port under another name: the same tests run and
    the same are skipped, for the same reasons."""
    chosen = os.environ.get("RTGAUGE_PROBE_C11")
    c11 = Path(chosen) if chosen else ROOT / "build-c11" / "rtgauge-probe"
    if not c11.exists():
        if chosen:
            pytest.fail(f"RTGAUGE_PROBE_C11={chosen} does not exist")
        pytest.skip("no c11 build to compare with (make probe-c11)")

    def outcome(probe: Path) -> list[tuple[str, str, str]]:
        code, run = records(probe, "--quick", "--tests", "*", "--out", "-")
        assert code == 0
        return [
            (r["id"], r["status"], (r.get("reason") or "").replace(f" {NAME} ", " c11 "))
            for r in run[1:-1]
        ]

    assert outcome(build / "rtgauge-probe") == outcome(c11)
