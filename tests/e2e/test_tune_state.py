"""rtgauge tune's settings on the real system: a process applies a few real
knobs (one IRQ's affinity, the workqueue mask, timer migration, THP, the
cpuset shield holding a sleep this test started) and is killed; the next
rtgauge command puts every value back. SIGTERM: the process restores
itself. Root only; the test restores in a finally whatever happens, and
touches no process but its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from rtgauge.tune.knobs import Change, candidates

if os.geteuid() != 0:
    pytest.skip("changes kernel settings: root only", allow_module_level=True)
if not {0, 1} <= os.sched_getaffinity(0):
    pytest.skip("needs CPUs 0 and 1 (CPU 1 measured, CPU 0 for the rest)", allow_module_level=True)

KNOBS = ("irq-affinity", "workqueue-mask", "timer-migration", "cpu-isolation", "thp")

CHILD = textwrap.dedent(
    """
    import sys
    from rtgauge.tune.knobs import candidates
    from rtgauge.tune.state import Applied, terminate_as_exit

    terminate_as_exit()
    knobs = sys.argv[2].split(",")
    found = candidates(frozenset({1}), movable=frozenset({int(sys.argv[1])}))
    changes = []
    for c in found:
        if c.knob in knobs:
            # one IRQ is enough to prove it (and disturbs the machine least)
            changes += c.changes[:1] if c.knob == "irq-affinity" else c.changes
    with Applied(changes):
        print("applied", len(changes), flush=True)
        sys.stdin.read()
    """
)


def chosen(sleeper: int) -> list[Change]:
    """The changes the child makes, as the child picks them."""
    out: list[Change] = []
    for c in candidates(frozenset({1}), movable=frozenset({sleeper})):
        if c.knob in KNOBS:
            out += c.changes[:1] if c.knob == "irq-affinity" else c.changes
    return out


def every_change(sleeper: int) -> list[Change]:
    """Every knob's changes (those the child makes among them)."""
    found = candidates(frozenset({1}), movable=frozenset({sleeper}))
    return [ch for c in found for ch in c.changes]


def snapshot(changes: list[Change], sleeper: int) -> dict[str, str]:
    """What the changes touch, as read now."""
    out = {}
    for ch in changes:
        kind, colon, rest = ch.path.partition(":")
        if not colon:
            out[ch.path] = Path(ch.path).read_text()
        elif kind == "cpuset":
            out[ch.path] = "exists" if Path(rest).exists() else "absent"
    out["sleeper cgroup"] = Path(f"/proc/{sleeper}/cgroup").read_text()
    out["sleeper affinity"] = repr(sorted(os.sched_getaffinity(sleeper)))
    return out


def put_back(changes: list[Change], before: dict[str, str], sleeper: int) -> None:
    """Whatever rtgauge did or did not do: every value as it was (plain
    writes, none of the code under test)."""
    for ch in reversed(changes):
        kind, colon, rest = ch.path.partition(":")
        try:
            if not colon and Path(ch.path).read_text() != before[ch.path]:
                Path(ch.path).write_text(ch.old + "\n")
            elif kind == "cpuset-task" and rest == str(sleeper):
                Path(ch.old).write_text(rest + "\n")
            elif kind == "cpuset" and Path(rest).exists():
                Path(rest).rmdir()
        except OSError as exc:
            print(f"put_back: {ch.path}: {exc}", file=sys.stderr)


@pytest.fixture
def sleeper() -> Iterator[int]:
    proc = subprocess.Popen(["sleep", "3600"])
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[2] / "src")
    return {
        **os.environ,
        "RTGAUGE_TUNE_STATE_DIR": str(tmp_path / "state"),
        "PYTHONPATH": src,
    }


def start(sleeper: int, env: dict[str, str]) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(sleeper), ",".join(KNOBS)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    if not line.startswith("applied"):
        child.kill()
        _, err = child.communicate()
        pytest.fail(f"the child did not apply its changes: {err}")
    return child


def check_applied(changes: list[Change], sleeper: int) -> None:
    for ch in changes:
        if ch.path.endswith("timer_migration"):
            assert Path(ch.path).read_text().strip() == "0"
        if ch.path.startswith("cpuset-task:"):
            assert "rtgauge-shield" in Path(f"/proc/{sleeper}/cgroup").read_text()


def state_files(env: dict[str, str]) -> list[Path]:
    d = Path(env["RTGAUGE_TUNE_STATE_DIR"])
    return sorted(d.glob("*.json")) if d.exists() else []


def chosen_and_watched(sleeper: int) -> tuple[list[Change], list[Change], dict[str, str]]:
    """The changes the child applies, every knob's paths (read before and
    after), and their values now; skips when no chosen knob can be tried."""
    changes = chosen(sleeper)
    if not changes:
        pytest.skip(f"none of {', '.join(KNOBS)} can be tried on this machine")
    watched = [*changes, *every_change(sleeper)]
    return changes, watched, snapshot(watched, sleeper)


def test_killed_the_next_command_restores_everything(
    sleeper: int, env: dict[str, str], tmp_path: Path
) -> None:
    changes, watched, before = chosen_and_watched(sleeper)
    child = None
    try:
        child = start(sleeper, env)
        check_applied(changes, sleeper)
        assert len(state_files(env)) == 1
        child.send_signal(signal.SIGKILL)
        assert child.wait() == -signal.SIGKILL
        assert snapshot(watched, sleeper) != before  # left changed by the killed process
        done = subprocess.run(
            [sys.executable, "-m", "rtgauge.cli.main", "runs", "--store", str(tmp_path / "s")],
            capture_output=True,
            text=True,
            env=env,
        )
        assert done.returncode == 0, done.stderr
        assert f"left by rtgauge tune (pid {child.pid}, killed)" in done.stderr
        assert snapshot(watched, sleeper) == before
        assert state_files(env) == []
    finally:
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
        put_back(changes, before, sleeper)


def test_sigterm_the_process_restores_itself(sleeper: int, env: dict[str, str]) -> None:
    changes, watched, before = chosen_and_watched(sleeper)
    child = None
    try:
        child = start(sleeper, env)
        check_applied(changes, sleeper)
        child.send_signal(signal.SIGTERM)
        assert child.wait() == 128 + signal.SIGTERM
        assert snapshot(watched, sleeper) == before
        assert state_files(env) == []
    finally:
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
        put_back(changes, before, sleeper)
