"""What the quick commands import, not how long they take: `rtgauge --help`,
`list` and `runs` load no other command's module and none of the heavy
libraries (numerics and statistics, the store's migrations, the web stack,
the lab). Each runs in a fresh interpreter, which then names every module
it holds (bench/host_speed.py measures the time)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from rtgauge.store import RunWriter

HEAVY = {
    "numpy",
    "scipy",
    "statsmodels",
    "pandas",
    "patsy",
    "matplotlib",
    "sqlalchemy",
    "alembic",
    "mako",
    "jsonschema",
    "starlette",
    "jinja2",
    "plotly",
    "uvicorn",
    "psycopg",
    "labgrid",
    "httpx",
}

CATALOGUE_LINE = {
    "record": "catalogue",
    "id": "TMR-P-LAT",
    "title": "Periodic wake-up latency per CPU",
    "kind": "P",
    "available": True,
    "reason": None,
    "options": [
        {"key": "period_us", "type": "int", "default": 1000, "min": 50, "max": 10**6, "help": "p"}
    ],
}


def run_cli(argv: list[str], cwd: Path) -> tuple[int, str, set[str]]:
    """rtgauge argv in a new interpreter: its exit code, its output, and the
    modules it had loaded when it was done (their top-level packages, and
    rtgauge's own modules by their full names)."""
    program = (
        "import json, sys\n"
        "from rtgauge.cli.main import main\n"
        "try:\n"
        f"    code = main({argv!r})\n"
        "except SystemExit as done:\n"
        "    code = done.code\n"
        "names = {m if m.startswith('rtgauge') else m.split('.')[0] for m in sys.modules}\n"
        "print(json.dumps([code, sorted(names)]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, cwd=cwd, check=True
    )
    output, _, last = proc.stdout.rstrip("\n").rpartition("\n")
    code, names = json.loads(last)
    return int(code), output, set(names)


def commands(modules: set[str]) -> set[str]:
    """The command modules among them (rtgauge.cli.main is the dispatcher)."""
    return {m for m in modules if m.startswith("rtgauge.cli.") and m != "rtgauge.cli.main"}


def test_help_imports_no_command_and_no_heavy_library(tmp_path: Path) -> None:
    code, out, modules = run_cli(["--help"], tmp_path)
    assert code == 0 and "the stored runs, newest first" in out  # every command is named
    assert commands(modules) == set()
    assert modules & HEAVY == set()
    assert not {m for m in modules if m.startswith(("rtgauge.analysis", "rtgauge.store"))}


def test_a_commands_help_imports_only_that_command(tmp_path: Path) -> None:
    code, out, modules = run_cli(["runs", "--help"], tmp_path)
    assert code == 0 and "--label" in out
    assert commands(modules) == {"rtgauge.cli.runs", "rtgauge.cli.common", "rtgauge.cli.output"}


def test_list_imports_no_heavy_library(tmp_path: Path) -> None:
    probe = tmp_path / "fake-probe"
    line = shlex.quote(json.dumps(CATALOGUE_LINE))
    probe.write_text(f"#!/bin/sh\necho {line}\n")
    probe.chmod(0o755)
    code, out, modules = run_cli(["list", "--probe", str(probe)], tmp_path)
    assert code == 0 and "TMR-P-LAT" in out and "period_us" in out
    assert commands(modules) == {"rtgauge.cli.list_cmd", "rtgauge.cli.output"}
    # The probe's lines are checked against the contract: jsonschema is used.
    assert modules & HEAVY == {"jsonschema"}


def test_runs_imports_sqlalchemy_and_nothing_heavier(
    sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    store = tmp_path / "store"
    writer = RunWriter(store, ["rtgauge-probe"], {"kind": "local"})
    for record in sample_records:
        writer.add(record)
    writer.finish()
    code, out, modules = run_cli(["runs", "--store", str(store)], tmp_path)
    assert code == 0 and "vm" in out and "no runs" not in out
    assert commands(modules) == {"rtgauge.cli.runs", "rtgauge.cli.common", "rtgauge.cli.output"}
    # The index is SQLite through SQLAlchemy's core; a store at the current
    # schema is read without Alembic, and no bundle is read, checked or analysed.
    assert modules & HEAVY == {"sqlalchemy"}
    assert not {m for m in modules if m.startswith(("rtgauge.analysis", "rtgauge.report"))}
    assert "rtgauge.model" not in modules and "rtgauge.validate" not in modules
