"""Shared fixtures: a real probe stream recorded on a Linux machine, and the CLI."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(Path(__file__).parent / "e2e"))  # probe_run for every test


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
