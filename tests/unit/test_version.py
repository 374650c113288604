"""One version string: the repository's VERSION file, read by the package
metadata, shown by `rtgauge --version`; one schema version, the schema's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rtgauge
from rtgauge.cli.main import main
from rtgauge.validate import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]


def test_the_version_comes_from_the_version_file(capsys: pytest.CaptureFixture[str]) -> None:
    version = (ROOT / "VERSION").read_text().strip()
    assert rtgauge.__version__ == version
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"rtgauge {version}"


def test_the_schema_version_is_the_schema_files() -> None:
    schema = json.loads((ROOT / "schema" / "result-v1.json").read_text())
    for kind in ("system", "test", "end"):
        assert schema["$defs"][kind]["properties"]["schema_version"]["const"] == SCHEMA_VERSION
