"""Changes applied for a `with`, restored on every way out, and the janitor
that restores what a killed process left: on a fake tree, with processes
the tests start themselves."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tune_fake import fake_system, read

from rtgauge.errors import RunError, UsageError
from rtgauge.tune import writes
from rtgauge.tune.knobs import Change, candidates
from rtgauge.tune.state import (
    Applied,
    require_root,
    restore_leftovers,
    state_dir,
    terminate_as_exit,
)

CG = "/sys/fs/cgroup/cpuset"
SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RTGAUGE_TUNE_STATE_DIR", str(tmp_path / "state"))
    return fake_system(tmp_path / "root")


def files(root: Path) -> dict[str, str]:
    """Every file of the tree and its content, the state directory aside."""
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def knob_changes(root: Path, *knobs: str, movable: set[int] | None = None) -> list[Change]:
    found = candidates(
        frozenset({1}), movable=None if movable is None else frozenset(movable), root=root
    )
    return [ch for c in found if c.knob in knobs for ch in c.changes]


def leftover() -> list[Path]:
    d = state_dir()
    return sorted(d.glob("*.json")) if d.exists() else []


def test_values_are_applied_inside_and_restored_after(root: Path) -> None:
    before = files(root)
    changes = knob_changes(root, "timer-migration", "thp", "workqueue-mask", "irq-affinity")
    with Applied(changes):
        assert read(root, "/proc/sys/kernel/timer_migration") == "0"
        assert read(root, "/sys/kernel/mm/transparent_hugepage/enabled") == "never"
        assert read(root, "/proc/irq/30/smp_affinity_list") == "0,2-3"
        [state] = leftover()
        body = json.loads(state.read_text())
        assert body["pid"] == os.getpid() and len(body["changes"]) == len(changes)
    assert leftover() == []
    after = files(root)
    # a selector reads back as its choice: "[madvise]" was written as "madvise"
    thp = "sys/kernel/mm/transparent_hugepage"
    assert after.pop(f"{thp}/enabled").strip() == "madvise"
    assert after.pop(f"{thp}/defrag").strip() == "always"
    before.pop(f"{thp}/enabled"), before.pop(f"{thp}/defrag")
    assert {k: v.strip() for k, v in after.items()} == {k: v.strip() for k, v in before.items()}


def test_the_state_file_names_every_change_before_the_first_write(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    changes = knob_changes(root, "timer-migration", "numa-balancing")
    seen: list[list[dict[str, str]]] = []
    real = writes.apply_one

    def watched(path: str, new: str) -> int | None:
        [state] = leftover()
        seen.append(json.loads(state.read_text())["changes"])
        return real(path, new)

    monkeypatch.setattr(writes, "apply_one", watched)
    with Applied(changes):
        pass
    named = [{"path": c.path, "old": c.old, "new": c.new} for c in changes]
    assert seen == [named, named]


def test_a_failure_midway_restores_those_applied(root: Path) -> None:
    good = knob_changes(root, "timer-migration", "numa-balancing")
    bad = Change(str(root / "proc/sys/kernel/nonexistent/x"), "1", "0")
    with pytest.raises(UsageError, match="nonexistent/x.*the 2 settings applied before it"):
        with Applied([*good, bad]):
            pytest.fail("the body must not run")
    assert read(root, "/proc/sys/kernel/timer_migration") == "1"
    assert read(root, "/proc/sys/kernel/numa_balancing") == "1"
    assert leftover() == []


def test_an_unexpected_error_while_applying_restores_too(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    changes = knob_changes(root, "timer-migration", "numa-balancing")
    real = writes.apply_one

    def second_breaks(path: str, new: str) -> int | None:
        if path.endswith("numa_balancing"):
            raise ValueError("not a number")
        return real(path, new)

    monkeypatch.setattr(writes, "apply_one", second_breaks)
    with pytest.raises(ValueError):
        with Applied(changes):
            pytest.fail("the body must not run")
    assert read(root, "/proc/sys/kernel/timer_migration") == "1" and leftover() == []


def test_a_sigterm_while_applying_is_held_back_then_restores(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    changes = knob_changes(root, "timer-migration", "numa-balancing")
    real = writes.apply_one
    calls = []

    def terminated(path: str, new: str) -> int | None:
        os.kill(os.getpid(), signal.SIGTERM)  # held back until every write is done
        calls.append(path)
        return real(path, new)

    monkeypatch.setattr(writes, "apply_one", terminated)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    # Another thread, as a real run has: the kernel may hand it the signal
    # (it does not block it), and Python runs the handler in this one at once.
    idle = threading.Event()
    other = threading.Thread(target=idle.wait)
    other.start()
    try:
        terminate_as_exit()
        with pytest.raises(SystemExit) as done:
            with Applied(changes):
                pytest.fail("the body must not run")
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
        idle.set()
        other.join()
    assert done.value.code == 128 + signal.SIGTERM and len(calls) == 2
    assert read(root, "/proc/sys/kernel/timer_migration") == "1"
    assert read(root, "/proc/sys/kernel/numa_balancing") == "1" and leftover() == []


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt, SystemExit])
def test_every_way_out_restores(root: Path, error: type[BaseException]) -> None:
    with pytest.raises(error):
        with Applied(knob_changes(root, "timer-migration")):
            raise error()
    assert read(root, "/proc/sys/kernel/timer_migration") == "1"
    assert leftover() == []


def test_the_shield_is_made_filled_and_removed(root: Path) -> None:
    with Applied(knob_changes(root, "cpu-isolation", movable={100})):
        shield = root / CG.lstrip("/") / "rtgauge-shield"
        assert read(root, f"{CG}/rtgauge-shield/cpuset.cpus") == "0,2-3"
        assert read(root, f"{CG}/rtgauge-shield/tasks").split() == ["100", "101"]
    assert not shield.exists()
    # moved back (a plain file keeps every id written: the shield's own list is
    # moved to its parent again before it goes, as tasks forked in it would be)
    assert set(read(root, f"{CG}/tasks").split()) == {"100", "101"}


def test_a_shield_that_cannot_be_set_up_is_not_left_half_made(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    [shield] = [c for c in knob_changes(root, "cpu-isolation") if c.path.startswith("cpuset:")]
    real = writes._write

    def refuse_mems(path: str | Path, value: str, *, append: bool = False) -> None:
        if str(path).endswith("cpuset.mems"):
            raise OSError(22, "Invalid argument")
        real(path, value, append=append)

    monkeypatch.setattr(writes, "_write", refuse_mems)
    with pytest.raises(UsageError, match="could not apply `mkdir .*Invalid argument"):
        with Applied([shield]):
            pytest.fail("the body must not run")
    assert not Path(shield.path.partition(":")[2]).exists() and leftover() == []


def test_the_hold_keeps_the_device_open_until_the_end(root: Path) -> None:
    [hold] = [c for c in knob_changes(root, "idle-states") if c.path.startswith("hold:")]
    applied = Applied([hold])
    with applied:
        [fd] = applied._held.values()
        os.fstat(fd)  # open
        assert (root / "dev/cpu_dma_latency").read_bytes() == b"\0\0\0\0"
    with pytest.raises(OSError):
        os.fstat(fd)


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(["sleep", "600"])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def test_a_task_affinity_is_moved_and_put_back(sleeper: subprocess.Popen[bytes]) -> None:
    mine = os.sched_getaffinity(sleeper.pid)
    if len(mine) < 2:
        pytest.skip("one CPU: no other CPU to move a task to")
    one = min(mine)
    text = ",".join(map(str, sorted(mine)))
    with Applied([Change(f"pid-affinity:{sleeper.pid}", text, str(one))]):
        assert os.sched_getaffinity(sleeper.pid) == {one}
    assert os.sched_getaffinity(sleeper.pid) == mine


def test_a_value_that_cannot_be_restored_is_said_and_kept(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = root / "proc/sys/kernel/timer_migration"
    with pytest.raises(RunError, match="could not restore 1 settings"):
        with Applied(knob_changes(root, "timer-migration")):
            path.unlink()
            path.mkdir()  # restoring cannot write a directory
    assert "could not restore" in capsys.readouterr().err
    [state] = leftover()
    body = json.loads(state.read_text())
    assert [c["path"] for c in body["changes"]] == [str(path)]
    # the janitor tries again, keeps it while it fails, restores once it can
    lines = restore_leftovers()
    assert any("could not restore" in line for line in lines) and leftover() == [state]
    path.rmdir()
    [line] = restore_leftovers()
    assert line.startswith("restored 1 setting left by rtgauge tune")
    assert read(root, "/proc/sys/kernel/timer_migration") == "1" and leftover() == []


def test_the_janitor_restores_what_a_dead_pid_left(root: Path) -> None:
    changes = knob_changes(root, "timer-migration", "cpu-isolation", movable={200})
    for c in changes:  # as if a killed process had applied them all
        writes.apply_one(c.path, c.new)
    dead = subprocess.Popen(["true"])
    dead.wait()
    state_dir().mkdir(parents=True)
    entries = [{"path": c.path, "old": c.old, "new": c.new} for c in changes]
    (state_dir() / f"{dead.pid}-1.json").write_text(
        json.dumps({"pid": dead.pid, "changes": entries})
    )
    [line] = restore_leftovers()
    assert line == f"restored 3 settings left by rtgauge tune (pid {dead.pid}, killed)"
    assert read(root, "/proc/sys/kernel/timer_migration") == "1"
    assert not (root / CG.lstrip("/") / "rtgauge-shield").exists()
    assert set(read(root, f"{CG}/tasks").split()) == {"200"}
    assert leftover() == []


CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from rtgauge.tune.knobs import candidates
    from rtgauge.tune.state import Applied, terminate_as_exit
    terminate_as_exit()
    found = candidates(frozenset({1}), root=Path(sys.argv[1]))
    changes = [ch for c in found if c.knob == "timer-migration" for ch in c.changes]
    with Applied(changes):
        print("applied", flush=True)
        sys.stdin.read()
    """
)


def start_child(root: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None and child.stdout.readline() == "applied\n"
    return child


def test_the_janitor_leaves_a_live_owner_alone_and_cleans_after_a_killed_one(root: Path) -> None:
    child = start_child(root)
    try:
        assert restore_leftovers() == [] and len(leftover()) == 1
        assert read(root, "/proc/sys/kernel/timer_migration") == "0"
    finally:
        child.kill()
        child.wait()
    [line] = restore_leftovers()
    assert line == f"restored 1 setting left by rtgauge tune (pid {child.pid}, killed)"
    assert read(root, "/proc/sys/kernel/timer_migration") == "1" and leftover() == []


def test_sigterm_restores_in_the_process_itself(root: Path) -> None:
    child = start_child(root)
    try:
        child.send_signal(signal.SIGTERM)
        assert child.wait() == 128 + signal.SIGTERM
    finally:
        child.kill()
        child.wait()
    assert read(root, "/proc/sys/kernel/timer_migration") == "1" and leftover() == []


def test_every_command_runs_the_janitor_first_as_root(
    root: Path, tmp_path: Path, cli: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    changes = knob_changes(root, "numa-balancing")
    writes.apply_one(changes[0].path, changes[0].new)
    state_dir().mkdir(parents=True)
    entries = [{"path": c.path, "old": c.old, "new": c.new} for c in changes]
    (state_dir() / "1-1.json").write_text(json.dumps({"pid": 999999999, "changes": entries}))
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    run = cli  # type: ignore[assignment]
    code, _, err = run("runs", "--store", str(tmp_path / "store"))  # type: ignore[operator]
    assert code == 0 and "rtgauge tune" not in err and len(leftover()) == 1
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    code, _, err = run("runs", "--store", str(tmp_path / "store"))  # type: ignore[operator]
    assert code == 0 and "restored 1 setting left by rtgauge tune (pid 999999999" in err
    assert read(root, "/proc/sys/kernel/numa_balancing") == "1" and leftover() == []


def test_root_is_required_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(UsageError, match="run it as root"):
        require_root()
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    require_root()
