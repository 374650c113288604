"""Reading an ssh target for rtgauge tune: the snapshot script, run by sh
over the fake tree, copied into a local tree whose candidates are the fake
tree's own; its lines parsed (write bits, directories, the ssh server's
own tasks, paths that would leave the tree); paths mapped back."""

from __future__ import annotations

import os
import platform
import re
import subprocess
from pathlib import Path

import pytest
from tune_fake import fake_system, put

from rtgauge.errors import UsageError
from rtgauge.targets.ssh import SshTarget
from rtgauge.tune import remote
from rtgauge.tune.knobs import Candidate, Change, candidates
from rtgauge.tune.remote_read import (
    cpu_count,
    parse_snapshot,
    snapshot_script,
    to_target,
)


def snapshot_of(
    fake: Path, local: Path, movable: frozenset[int] | None = None, check: bool = False
) -> list[str]:
    """The script's lines over the fake tree (its state directory under it)."""
    script = snapshot_script(str(fake / "state"), movable, check, root=str(fake))
    out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def read_back(fake: Path, local: Path, movable: frozenset[int] | None = None) -> list[Candidate]:
    lines = snapshot_of(fake, local, movable)
    parse_snapshot(lines, local, movable, prefix=str(fake))
    return to_target(candidates(frozenset({1}), movable=movable, root=local), local)


@pytest.fixture
def fake(tmp_path: Path) -> Path:
    return fake_system(tmp_path / "fake")


def test_the_copy_offers_what_the_tree_offers(fake: Path, tmp_path: Path) -> None:
    copied = read_back(fake, tmp_path / "copy")
    direct = to_target(candidates(frozenset({1}), root=fake), fake)
    assert copied == direct
    assert {c.knob for c in copied if c.state == "try"} >= {"irq-affinity", "cpu-isolation"}
    # the managed IRQ's read-only file came across read-only: skipped, with why
    irq = next(c for c in copied if c.knob == "irq-affinity")
    assert "IRQ 40 nvme0q1" in irq.why and "read-only" in irq.why
    assert all("/proc/irq/40/" not in ch.path for ch in irq.changes)


def test_movable_reads_only_those_processes(fake: Path, tmp_path: Path) -> None:
    put(fake, "/proc/200/task/200/cgroup", "3:cpuset:/app\n")
    movable = frozenset({200})
    copied = read_back(fake, tmp_path / "copy", movable)
    assert copied == to_target(candidates(frozenset({1}), movable=movable, root=fake), fake)
    assert not (tmp_path / "copy/proc/100").exists()
    shield = next(c for c in copied if c.knob == "cpu-isolation")
    assert {ch.path for ch in shield.changes} == {
        "cpuset:/sys/fs/cgroup/cpuset/rtgauge-shield",
        "cpuset-task:200",
    }


def test_cgroup_v2_and_an_existing_shield_come_across(fake: Path, tmp_path: Path) -> None:
    put(fake, "/proc/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n")
    put(fake, "/sys/fs/cgroup/cgroup.subtree_control", "cpu cpuset memory\n")
    put(fake, "/sys/fs/cgroup/cpuset.mems.effective", "0\n")
    put(fake, "/proc/200/cgroup", "0::/user.slice/x.scope\n")
    copied = read_back(fake, tmp_path / "copy", frozenset({200}))
    shield = next(c for c in copied if c.knob == "cpu-isolation")
    assert shield.changes[1] == Change(
        "cpuset-task:200",
        "/sys/fs/cgroup/user.slice/x.scope/cgroup.procs",
        "/sys/fs/cgroup/rtgauge-shield/cgroup.procs",
    )
    (fake / "sys/fs/cgroup/rtgauge-shield").mkdir()
    again = read_back(fake, tmp_path / "again", frozenset({200}))
    shield = next(c for c in again if c.knob == "cpu-isolation")
    assert shield.state == "excluded" and "/sys/fs/cgroup/rtgauge-shield exists" in shield.why


def test_the_script_says_who_it_runs_as_and_whether_it_can_keep_state(
    fake: Path, tmp_path: Path
) -> None:
    snap = parse_snapshot(snapshot_of(fake, tmp_path, check=True), tmp_path / "c", None)
    assert snap.uid == os.geteuid() and snap.too_many is None
    assert snap.arch == platform.machine()
    assert snap.state_writable is True and (fake / "state").is_dir()


def test_the_servers_own_tasks_are_left_out_unless_named(tmp_path: Path) -> None:
    lines = [
        "V 1",
        "U 0",
        "A 700",
        "D /proc/700/task/700",
        "D /proc/800/task/800",
        "=grep",
        "/proc/700/stat:700 (sshd) S 1 0 0 0 -1 4194560 0",
        "/proc/800/stat:800 (app) S 1 0 0 0 -1 4194560 0",
        "/proc/mounts:cgroup2 /sys/fs/cgroup cgroup2 rw,a=b:c 0 0",
        "=end",
    ]
    snap = parse_snapshot(lines, tmp_path / "all", None)
    assert snap.ancestors == {700} and snap.uid == 0
    assert not (tmp_path / "all/proc/700").exists()
    assert (tmp_path / "all/proc/800/task/800").is_dir()
    # a colon in a value is the value's
    assert (
        tmp_path / "all/proc/mounts"
    ).read_text() == "cgroup2 /sys/fs/cgroup cgroup2 rw,a=b:c 0 0\n"
    parse_snapshot(lines, tmp_path / "named", frozenset({700}))
    assert (tmp_path / "named/proc/700/stat").is_file()


def test_file_lines_modes_and_paths_that_would_leave_the_tree(tmp_path: Path) -> None:
    lines = [
        "F /sys/fs/cgroup/a b/cpuset.cpus",
        "|0-1",
        "|=grep",  # content, not a section
        "X /proc/irq/40/smp_affinity_list",
        "R /proc/irq/40/smp_affinity_list",
        "X /dev/cpu_dma_latency",
        "F /proc/../../etc/passwd",
        "|x",
        "D /sys/./x",
        "J 4242 3 0 /dev/cpu_dma_latency",
        "K /run/rtgauge/tune/1-a.json kept for the next try",
        "T 30000",
        "W 0",
    ]
    snap = parse_snapshot(lines, tmp_path / "t", None)
    assert (tmp_path / "t/sys/fs/cgroup/a b/cpuset.cpus").read_text() == "0-1\n=grep\n"
    irq = tmp_path / "t/proc/irq/40/smp_affinity_list"
    assert irq.read_text() == "" and irq.stat().st_mode & 0o777 == 0o444
    assert (tmp_path / "t/dev/cpu_dma_latency").is_file()
    assert not (tmp_path / "etc").exists() and not (tmp_path / "t/etc").exists()
    assert not (tmp_path / "t/sys/x").exists()
    assert snap.too_many == 30000 and snap.state_writable is False and snap.uid is None
    assert [x.split()[0] for x in snap.janitor] == ["J", "K"]


def test_the_cpu_count_is_the_targets(tmp_path: Path) -> None:
    put(tmp_path, "/sys/devices/system/cpu/present", "0-7\n")
    put(tmp_path, "/sys/devices/system/cpu/online", "0-3\n")
    assert cpu_count(tmp_path) == 8
    assert cpu_count(tmp_path / "none") == 1


def test_paths_map_back_to_the_target(tmp_path: Path) -> None:
    r = str(tmp_path)
    c = Candidate(
        "cpu-isolation",
        "cpu-isolation",
        "a shield",
        "try",
        f"the shield {r}/sys/fs/cgroup/cpuset/rtgauge-shield keeps them",
        (
            Change(f"cpuset:{r}/sys/fs/cgroup/cpuset/rtgauge-shield", "absent", "cpus=0 mems=0"),
            Change("cpuset-task:12", f"{r}/sys/fs/cgroup/cpuset/tasks", f"{r}/x/tasks"),
            Change("pid-affinity:2", "0-3", "0"),
            Change(f"hold:{r}/dev/cpu_dma_latency", "not held", "0"),
            Change(f"{r}/proc/sys/kernel/timer_migration", "1", "0"),
        ),
        "isolcpus=1",
        f"mkdir {r}/sys/fs/cgroup/cpuset/rtgauge-shield",
    )
    (m,) = to_target([c], tmp_path)
    assert [(ch.path, ch.old, ch.new) for ch in m.changes] == [
        ("cpuset:/sys/fs/cgroup/cpuset/rtgauge-shield", "absent", "cpus=0 mems=0"),
        ("cpuset-task:12", "/sys/fs/cgroup/cpuset/tasks", "/x/tasks"),
        ("pid-affinity:2", "0-3", "0"),
        ("hold:/dev/cpu_dma_latency", "not held", "0"),
        ("/proc/sys/kernel/timer_migration", "1", "0"),
    ]
    assert r not in m.why and r not in (m.persistent or "") and m.boot == "isolcpus=1"


@pytest.mark.parametrize(
    "lines, said",
    [
        (["V 1", "U 1000", "W 1", "M x86_64"], "log in as root, or give --sudo"),
        (["V 1", "U 0", "W 0", "M x86_64"], "cannot write /s, where rtgauge tune keeps"),
        (["V 1", "U 0", "W 1", "M sparc64"], "no probe build for the target's architecture"),
        (["V 1", "U 0", "W 1", "M x86_64", "T 30000"], "30000 tasks, more than"),
        (["Last login: yesterday"], "did not answer as a POSIX sh does"),
    ],
)
def test_a_target_that_cannot_be_tuned_is_said(
    lines: list[str], said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RTGAUGE_TARGET_TUNE_STATE_DIR", "/s")
    monkeypatch.setattr(remote, "ssh_output", lambda t, cmd, timeout=60: "\n".join(lines))
    (tmp_path / "build-static").mkdir()
    (tmp_path / "build-static/rtgauge-probe").write_text("")
    with pytest.raises(UsageError, match=re.escape(said)):
        remote.read_candidates(
            SshTarget("u", "h"), lambda n: frozenset({1}), None, to_apply=True, probes=tmp_path
        )


def test_the_target_is_read_once_its_janitor_said_what_it_restored(
    fake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    put(fake, "/sys/devices/system/cpu/present", "0-5\n")
    lines = ["J 77 2 0", *snapshot_of(fake, tmp_path)]
    monkeypatch.setattr(
        remote,
        "parse_snapshot",
        lambda got, root, movable: parse_snapshot(got, root, movable, str(fake)),
    )
    monkeypatch.setattr(remote, "ssh_output", lambda t, cmd, timeout=60: "\n".join(lines))
    counted: list[int] = []

    def cpus_of(n: int) -> frozenset[int]:
        counted.append(n)
        return frozenset({1})

    found, cpus = remote.read_candidates(SshTarget("root", "h"), cpus_of, None, to_apply=False)
    assert counted == [6] and cpus == {1}
    assert found == to_target(candidates(frozenset({1}), root=fake), fake)
    assert "restored 2 settings left on ssh://root@h:22 by rtgauge tune (holder pid 77" in (
        capsys.readouterr().err
    )


def test_cpus_are_checked_against_the_targets_count() -> None:
    from rtgauge.cli.tune import parse_cpus

    assert parse_cpus("5", 8, "the target ssh://h") == {5}
    assert parse_cpus(None, 4, "the target ssh://h") == {1, 2, 3}
    with pytest.raises(UsageError, match=re.escape("--cpus '5': the target ssh://h has CPUs 0-3")):
        parse_cpus("5", 4, "the target ssh://h")
