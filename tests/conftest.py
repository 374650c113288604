"""Shared fixtures: a real probe stream recorded on a Linux machine, and the CLI."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# Property tests draw the same examples on every run of a commit, so CI
# passes or fails by the code, not by the draw (a new case a random draw
# finds would fail some later, unrelated submission). To search afresh:
# HYPOTHESIS_PROFILE=explore .venv/bin/python -m pytest tests/unit
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore")  # random draws, the example database on
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(Path(__file__).parent / "e2e"))  # probe_run for every test


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite tests/golden/*.md from the current renderers (then review the diff)",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture
def sample_records() -> list[dict[str, Any]]:
    return [json.loads(x) for x in (DATA / "sample_run.jsonl").read_text().splitlines()]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Any:
    """Runs rtgauge in-process: returns (exit code, stdout, stderr)."""
    from rtgauge.cli.main import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


@pytest.fixture(scope="session")
def host_probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The probe the host's end-to-end tests drive: $RTGAUGE_PROBE when set (make
    test sets it to build/), else one built from this tree into a temporary
    directory. Skipped, saying why, only when it cannot be built."""
    import os
    import shutil
    import subprocess

    chosen = os.environ.get("RTGAUGE_PROBE")
    if chosen:
        return Path(chosen)
    root = Path(__file__).resolve().parents[1]
    if not shutil.which("cmake") or not (root / "CMakeLists.txt").is_file():
        pytest.skip("no probe: cmake or the C sources are missing and RTGAUGE_PROBE is not set")
    out = tmp_path_factory.mktemp("probe-build")
    for cmd in (
        ["cmake", "-S", str(root), "-B", str(out), "-DCMAKE_BUILD_TYPE=Release"],
        ["cmake", "--build", str(out), "--target", "rtgauge-probe", "-j", str(os.cpu_count() or 2)],
    ):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
            pytest.skip(f"the probe could not be built: {' / '.join(tail)}")
    return out / "rtgauge-probe"


@pytest.fixture(scope="session")
def pg() -> Any:
    """A throwaway PostgreSQL cluster on 127.0.0.1 for the whole session (its
    databases are made per test: pg.create_database(name))."""
    from pg_cluster import pg_cluster

    try:
        cluster = pg_cluster()
        with cluster as found:
            yield found
    except RuntimeError as exc:
        pytest.fail(str(exc))


_DATABASES = iter(range(1, 1_000_000))


@pytest.fixture(params=["sqlite", "postgresql"])
def store_spec(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty store on each engine: a directory, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "store")
    cluster = request.getfixturevalue("pg")
    return str(cluster.create_database(f"store_{next(_DATABASES)}"))


@pytest.fixture
def pg_store(request: pytest.FixtureRequest) -> str:
    """A fresh PostgreSQL database as a store (for a test whose subject is not
    the engine, run once on PostgreSQL rather than on both)."""
    cluster = request.getfixturevalue("pg")
    return str(cluster.create_database(f"store_{next(_DATABASES)}"))
