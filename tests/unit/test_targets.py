"""The Target interface: the --target factory, and `rtgauge run` driving any
target through prepare → run → cleanup, the host's description of the
target stored in the bundle and weighed by the conditions decision."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rtgauge.cli.main import parser
from rtgauge.errors import UsageError
from rtgauge.model import Record, load_bundle
from rtgauge.targets import registry
from rtgauge.targets.base import Target, target_record
from rtgauge.targets.labgrid_place import LabgridPlace
from rtgauge.targets.local import LocalTarget
from rtgauge.targets.qemu import QemuGuest
from rtgauge.targets.ssh import SshHost


def _args(*argv: str) -> argparse.Namespace:
    return parser().parse_args(["run", *argv])


def test_the_factory_picks_the_target_of_each_spec() -> None:
    assert isinstance(registry.make_target("local", _args()), LocalTarget)
    ssh = registry.make_target("ssh://me@board:2222", _args("--sudo"))
    assert isinstance(ssh, SshHost) and ssh.target.port == 2222 and ssh.target.sudo
    qemu = registry.make_target("qemu", _args("--kernel", "/boot/x"))
    assert isinstance(qemu, QemuGuest)
    board = registry.make_target("labgrid://lab.example:20408/rpi-1", _args())
    assert isinstance(board, LabgridPlace) and board.place == "rpi-1"
    assert board.address == "lab.example:20408"
    with pytest.raises(
        UsageError, match=r"expected local, qemu, freertos-qemu, ssh://.* or labgrid://"
    ):
        registry.make_target("serial:///dev/ttyUSB0", _args())


@pytest.mark.parametrize("vcpus", [0, 65])
def test_a_guests_cpu_count_out_of_range_names_its_option(
    vcpus: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rtgauge.targets import qemu

    exists = tmp_path / "file"
    exists.write_bytes(b"")
    monkeypatch.setattr(qemu.shutil, "which", lambda name: f"/usr/bin/{name}")
    opts = qemu.QemuOptions(kernel=exists, probe=exists, cpus=vcpus, busybox=exists)
    with pytest.raises(UsageError, match=r"^--vcpus must be 1\.\.64 for a guest$"):
        qemu._check(opts)


class Replay(Target):
    """A target that replays recorded lines: what a new kind of target adds."""

    kind, usage = "replay", "replay"
    lines: list[str] = []
    log: list[str] = []
    fail_after: int | None = None  # raise inside the stream after this many lines

    @classmethod
    def matches(cls, spec: str) -> bool:
        return spec == "replay"

    @classmethod
    def from_args(cls, spec: str, args: argparse.Namespace) -> Replay:
        return cls()

    def prepare(self) -> None:
        self.log.append("prepare")

    def run(self, probe_args: list[str]) -> Iterator[str]:
        self.log.append("run " + " ".join(probe_args))
        for i, line in enumerate(self.lines):
            if self.fail_after is not None and i == self.fail_after:
                raise UsageError("the replay broke")
            yield line

    def cleanup(self) -> None:
        self.log.append("cleanup")

    def outcome(self) -> tuple[int | None, str | None]:
        return 0, None

    def describe(self) -> Record:
        return target_record("replay", "recorded run", True, False)


@pytest.fixture
def replay(monkeypatch: pytest.MonkeyPatch, sample_records: list[dict[str, Any]]) -> type[Replay]:
    monkeypatch.setattr(registry, "KINDS", (*registry.KINDS, Replay))  # the registration line
    monkeypatch.setattr(Replay, "lines", [json.dumps(r) for r in sample_records])
    monkeypatch.setattr(Replay, "log", [])
    monkeypatch.setattr(Replay, "fail_after", None)
    return Replay


def test_a_new_target_runs_through_the_same_steps(
    cli: Any, replay: type[Replay], tmp_path: Path
) -> None:
    results = tmp_path / "r"
    code, out, err = cli("run", "--target", "replay", "--quick", "--results-dir", str(results))
    assert code == 0, err
    assert replay.log == ["prepare", "run --quick", "cleanup"]
    (path,) = results.glob("vm/*.json")
    bundle = load_bundle(path)
    assert bundle.target == target_record("replay", "recorded run", True, False)
    # emulated by the host's word alone: the report says so, timing is not rated
    html = path.with_suffix(".html").read_text()
    assert "emulated (known to the host)" in html


def test_cleanup_runs_when_the_stream_fails_and_records_are_kept(
    cli: Any, replay: type[Replay], tmp_path: Path
) -> None:
    replay.fail_after = 2  # the system record and one test arrived
    results = tmp_path / "r"
    code, _, err = cli("run", "--target", "replay", "--results-dir", str(results))
    assert code == 2 and "the replay broke" in err
    assert replay.log[-1] == "cleanup"
    (partial,) = results.glob("vm/*.partial.jsonl")
    assert len(partial.read_text().splitlines()) == 2


@pytest.mark.parametrize(
    "accel, emulated, virtualised", [("tcg", True, False), ("kvm", False, True)]
)
def test_a_guest_is_described_by_the_accelerator_the_host_chose(
    accel: str, emulated: bool, virtualised: bool
) -> None:
    guest = registry.make_target("qemu", _args("--kernel", "/boot/vmlinuz-x", "--append", "a=1"))
    assert isinstance(guest, QemuGuest)
    before = guest.describe()
    assert before["emulated"] is None and before["virtualised"] is None  # not booted yet
    guest._run.accel = accel  # what run_in_qemu records once the guest has booted
    after = guest.describe()
    assert (after["kind"], after["accel"], after["append"]) == ("qemu", accel, "a=1")
    assert after["emulated"] is emulated and after["virtualised"] is virtualised
