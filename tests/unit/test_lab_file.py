"""The lab file: what it accepts, which machine each target measures, and bad
files as one line and exit 2 before anything runs."""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import Any

import pytest

from rtgauge.cli.lab_file import THIS_MACHINE, apply, load_lab_file, machine_key
from rtgauge.cli.lab_pool import Prefixed
from rtgauge.cli.main import parser
from rtgauge.errors import UsageError

GOOD = """
[defaults]
quick = true
tests = "CLK-P-RES"
prio = 80

[[target]]
target = "local"
label = "laptop"

[[target]]
name = "vanilla"
target = "qemu"
kernel_package = "linux-image-amd64"
append = "preempt=full"
vcpus = 4

[[target]]
target = "ssh://root@board-7:2222"
sudo = true
ssh_options = ["StrictHostKeyChecking=no"]

[[target]]
target = "labgrid://lab.example:20408/rpi-1"
acquire_timeout = 5
machine = "bench-1"
"""


def _load(tmp_path: Path, text: str) -> Any:
    path = tmp_path / "lab.toml"
    path.write_text(text)
    args = parser().parse_args(["lab", "--file", str(path)])
    return load_lab_file(path, args), args


def test_a_good_file(tmp_path: Path) -> None:
    entries, args = _load(tmp_path, GOOD)
    names = [e.name for e in entries]
    assert names == ["laptop", "vanilla", "ssh://root@board-7:2222", entries[3].target]
    assert [e.machine for e in entries] == [THIS_MACHINE, THIS_MACHINE, "ssh:board-7", "bench-1"]
    ns = apply(args, entries[1])
    assert ns.target == "qemu" and ns.vcpus == 4 and ns.append == "preempt=full"
    assert ns.quick and ns.tests == "CLK-P-RES" and ns.prio == "80"  # from [defaults]
    ns = apply(args, entries[2])
    assert ns.sudo and ns.ssh_option == ["StrictHostKeyChecking=no"]
    assert apply(args, entries[3]).acquire_timeout == 5.0
    assert apply(args, entries[0]).label == "laptop"


@pytest.mark.parametrize(
    "spec, machine",
    [
        ("local", THIS_MACHINE),
        ("qemu", THIS_MACHINE),
        ("ssh://root@127.0.0.1:2222", THIS_MACHINE),
        ("ssh://localhost", THIS_MACHINE),
        ("ssh://[::1]:22", THIS_MACHINE),
        ("ssh://me@Board-7", "ssh:board-7"),
        ("ssh://me@board-7:2200", "ssh:board-7"),  # one machine, whatever the port
        ("labgrid://lab:20408/rpi-1", "labgrid://lab:20408/rpi-1"),
    ],
)
def test_machine_keys(spec: str, machine: str) -> None:
    assert machine_key(spec) == machine


@pytest.mark.parametrize(
    "text, message",
    [
        ("[[target]\n", "not valid TOML"),
        ("", "no targets"),
        ("[defaults]\nquick = true\n", "no targets"),
        ("[[targets]]\ntarget = 'local'\n", "unknown table 'targets'"),
        ("[[target]]\nname = 'x'\n", "target 1: no target"),
        ("[[target]]\ntarget = 'local'\nspeed = 3\n", "target 1: unknown key 'speed'"),
        ("[[target]]\ntarget = 'local'\nquick = 'yes'\n", "target 1: quick must be a bool"),
        ("[[target]]\ntarget = 'local'\nopt = [1]\n", "opt must be a list of strings"),
        ("[[target]]\ntarget = 3\n", "target must be a string"),
        ("[defaults]\nvcpus = 'two'\n[[target]]\ntarget = 'local'\n", "vcpus must be a int"),
        ("[[target]]\ntarget = 'local'\n[[target]]\ntarget = 'local'\n", "two targets are named"),
        ("[[target]]\ntarget = 'ftp://x'\n", "expected local, qemu"),
        ("[[target]]\ntarget = 'ssh://a@b:0'\n", "port 0 is outside"),
        (
            "[[target]]\ntarget = 'local'\nplaces = { board = 'rpi4' }\n",
            "either target or places",
        ),
        ("[[target]]\nplaces = 'rpi4'\n", "places must be a table of tags"),
        ("[[target]]\ntarget = 'freertos-qemu'\nboard = 'nope'\n", "--board 'nope': unknown board"),
    ],
)
def test_bad_files(cli: Any, tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "lab.toml"
    path.write_text(text)
    code, out, err = cli("lab", "--file", str(path), "--results-dir", str(tmp_path / "r"))
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err
    assert not (tmp_path / "r").exists()  # found before anything ran


def test_missing_file_and_bad_parallel(cli: Any, tmp_path: Path) -> None:
    code, _, err = cli("lab", "--file", str(tmp_path / "none.toml"))
    assert code == 2 and "none.toml" in err
    path = tmp_path / "lab.toml"
    path.write_text(GOOD)
    code, _, err = cli("lab", "--file", str(path), "--parallel", "0")
    assert code == 2 and "--parallel" in err


def test_tags_with_no_coordinator_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="target 1: labgrid coordinator 127.0.0.1:1"):
        _load(tmp_path, "[[target]]\nplaces = { board = 'rpi4' }\ncoordinator = '127.0.0.1:1'\n")


def test_prefixed_lines() -> None:
    out = io.StringIO()
    stream = Prefixed(out, "rpi-1", threading.Lock())
    stream.write("  3.0s rpi: 2 tests\n  3.1s [1/2] ")
    stream.write("CLK-P-RES ok\n")
    assert out.getvalue() == "[rpi-1]   3.0s rpi: 2 tests\n[rpi-1]   3.1s [1/2] CLK-P-RES ok\n"
    assert not stream.isatty()


def test_the_rtos_set_takes_a_board() -> None:
    from rtgauge.cli.lab import lab_sets
    from rtgauge.cli.lab_file import entries_from_set
    from rtgauge.targets.registry import make_target

    args = parser().parse_args(["lab", "--set", "rtos", "--board", "netduinoplus2"])
    entries = entries_from_set(lab_sets()["rtos"], "--set rtos")
    board = next(e for e in entries if e.target == "freertos-qemu")
    described = make_target(board.target, apply(args, board)).describe()
    assert described["board"] == "netduinoplus2" and described["icount_shift"] == 4
    plain = parser().parse_args(["lab", "--set", "rtos"])
    assert make_target(board.target, apply(plain, board)).describe()["board"] == "mps2-an385"


def test_a_lab_with_an_unknown_board_is_exit_2(cli: Any, tmp_path: Path) -> None:
    code, _, err = cli("lab", "--set", "rtos", "--board", "nope", "--results-dir", str(tmp_path))
    assert code == 2 and "unknown board" in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())
