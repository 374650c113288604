"""The shell side of rtgauge tune on an ssh target, run by sh on a fake tree
(no ssh, no system setting): each kind of change's apply and restore lines
and their quoting, the holder (applies, restores on "restore", on EOF, on a
failure; a killed one leaves its state file), the janitor that restores
what a dead holder left and leaves a live one's alone, and RemoteApplied
driving a holder through an "ssh" that is sh here."""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from tune_fake import fake_system, read

from rtgauge.errors import UsageError
from rtgauge.targets import ssh
from rtgauge.targets.ssh import SshTarget
from rtgauge.targets.ssh_janitor import MARKER, janitor_lines, janitor_script, remote_command
from rtgauge.tune import remote_applied
from rtgauge.tune.knobs import Change
from rtgauge.tune.remote_applied import RemoteApplied
from rtgauge.tune.remote_shell import apply_line, holder_script, restore_line
from rtgauge.tune.state import restore_leftovers

ODD = "a dir it's $x"
# the janitor restores only as root (only root can have changed the settings)
as_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="the janitor runs as root only"
)  # a space, a quote, a dollar: all quoted


def sh(line: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", "-c", line], capture_output=True, text=True)


def test_each_kind_of_change_has_its_lines() -> None:
    assert apply_line(Change("/proc/sys/kernel/timer_migration", "1", "0")) == (
        "printf '%s\\n' 0 > /proc/sys/kernel/timer_migration"
    )
    assert restore_line(Change("/proc/sys/kernel/timer_migration", "1", "0")) == (
        "printf '%s\\n' 1 > /proc/sys/kernel/timer_migration"
    )
    shield = Change("cpuset:/cg/rtgauge-shield", "absent", "cpus=0,2-3 mems=0")
    assert apply_line(shield) == (
        "mkdir /cg/rtgauge-shield && { printf '%s\\n' 0,2-3 > /cg/rtgauge-shield/cpuset.cpus "
        "&& printf '%s\\n' 0 > /cg/rtgauge-shield/cpuset.mems || { rmdir /cg/rtgauge-shield; "
        "false; }; }"
    )
    assert "rmdir /cg/rtgauge-shield" in restore_line(shield)
    assert ">> /cg/tasks" in restore_line(shield)  # what is left in it goes to the parent
    move = Change("cpuset-task:42", "/cg/tasks", "/cg/rtgauge-shield/tasks")
    assert apply_line(move) == (
        "printf '%s\\n' 42 >> /cg/rtgauge-shield/tasks || [ ! -e /proc/42 ]"
    )
    assert restore_line(move) == (
        "if grep -qx 42 /cg/rtgauge-shield/tasks 2>/dev/null; then "
        "printf '%s\\n' 42 >> /cg/tasks || [ ! -e /proc/42 ]; fi"
    )
    pin = Change("pid-affinity:2", "0-3", "0")
    assert apply_line(pin) == "taskset -pc 0 2 >/dev/null || [ ! -e /proc/2 ]"
    assert restore_line(pin) == "taskset -pc 0-3 2 >/dev/null || [ ! -e /proc/2 ]"
    hold = Change("hold:/dev/cpu_dma_latency", "not held", "0")
    assert apply_line(hold, 3).startswith("command exec 3>/dev/cpu_dma_latency && ")
    assert restore_line(hold, 3) == "exec 3>&-"
    assert restore_line(hold) == ":"  # the janitor: the kernel let go when the holder died
    with pytest.raises(ValueError):
        apply_line(hold)


def test_the_lines_do_what_they_say_with_odd_names(tmp_path: Path) -> None:
    d = tmp_path / ODD
    d.mkdir()
    f = d / "value"
    f.write_text("old\n")
    c = Change(str(f), "old; rm -rf /", "new 'one'")
    assert sh(apply_line(c)).returncode == 0 and f.read_text() == "new 'one'\n"
    assert sh(restore_line(c)).returncode == 0 and f.read_text() == "old; rm -rf /\n"
    # a task moved into a shield and back; not moved back once it left
    (d / "tasks").write_text("")
    shield = d / "shield"
    shield.mkdir()
    (shield / "tasks").write_text("")
    move = Change(f"cpuset-task:{os.getpid()}", str(d / "tasks"), str(shield / "tasks"))
    assert sh(apply_line(move)).returncode == 0
    assert (shield / "tasks").read_text() == f"{os.getpid()}\n"
    assert sh(restore_line(move)).returncode == 0
    assert (d / "tasks").read_text() == f"{os.getpid()}\n"
    (shield / "tasks").write_text("")
    assert sh(restore_line(move)).returncode == 0
    assert (d / "tasks").read_text() == f"{os.getpid()}\n"
    # a task that is gone is nothing to move; a file that cannot be written fails
    gone = Change("cpuset-task:999999999", str(d / "tasks"), str(d / "no/tasks"))
    assert sh(apply_line(gone)).returncode == 0
    alive = Change(f"cpuset-task:{os.getpid()}", str(d / "tasks"), str(d / "no/tasks"))
    failed = sh(apply_line(alive))
    assert failed.returncode != 0 and "no/tasks" in failed.stderr
    # a cpuset that cannot be filled in is not left half made
    cs = Change(f"cpuset:{d / 'cs'}", "absent", "cpus=1 mems=0")
    (d / "cs").mkdir()
    assert sh(apply_line(cs)).returncode != 0 and (d / "cs").is_dir()  # it existed before
    # a held device is written 8 hex digits and held open
    dev = d / "latency"
    dev.write_text("")
    hold = Change(f"hold:{dev}", "not held", "0")
    script = f"{apply_line(hold, 4)} && ls -l /proc/$$/fd/4 && {restore_line(hold, 4)}"
    got = sh(script)
    assert got.returncode == 0 and str(dev) in got.stdout and dev.read_text() == "00000000\n"


def test_the_target_runs_the_script_as_sh_with_the_marker_as_its_name() -> None:
    assert remote_command("echo 'hi'", False) == "sh -c 'echo '\"'\"'hi'\"'\"'' sh"
    assert remote_command(":", True, MARKER) == f"sudo -n sh -c : {MARKER}"
    assert sh(remote_command('echo "$0"', False, MARKER)).stdout == f"{MARKER}\n"


@pytest.mark.skipif(not shutil.which("taskset"), reason="taskset (util-linux) not installed")
def test_an_affinity_is_set_and_set_back_on_a_process_of_this_test() -> None:
    cpus = sorted(os.sched_getaffinity(0))
    proc = subprocess.Popen(["sleep", "60"])
    try:
        pin = Change(f"pid-affinity:{proc.pid}", ",".join(map(str, cpus)), str(cpus[-1]))
        assert sh(apply_line(pin)).returncode == 0
        assert os.sched_getaffinity(proc.pid) == {cpus[-1]}
        assert sh(restore_line(pin)).returncode == 0
        assert os.sched_getaffinity(proc.pid) == set(cpus)
    finally:
        proc.kill()
        proc.wait()


# ---- the holder and the janitor, on a fake tree ----


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RTGAUGE_TUNE_STATE_DIR", str(tmp_path / "local-state"))
    monkeypatch.setenv("RTGAUGE_TARGET_TUNE_STATE_DIR", str(tmp_path / "state"))
    return fake_system(tmp_path / "root")


def changes_of(root: Path) -> list[Change]:
    kernel = root / "proc/sys/kernel"
    thp = root / "sys/kernel/mm/transparent_hugepage"
    return [
        Change(str(kernel / "timer_migration"), "1", "0"),
        Change(str(thp / "enabled"), "always [madvise] never", "never"),
        Change(f"hold:{root / 'dev/cpu_dma_latency'}", "not held", "0"),
    ]


def values(root: Path) -> tuple[str, str]:
    return read(root, "/proc/sys/kernel/timer_migration"), read(
        root, "/sys/kernel/mm/transparent_hugepage/enabled"
    )


AS_FOUND = ("1", "always [madvise] never")


class Holder:
    """A holder started as ssh would start it, by sh here."""

    def __init__(self, changes: list[Change], state: Path) -> None:
        script = holder_script(changes, str(state), "t0ken", "ssh://test")
        self.proc = subprocess.Popen(
            ["sh", "-c", script, MARKER],  # as remote_command has the target's sh run it
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def lines_until(self, last: str) -> list[str]:
        assert self.proc.stdout is not None
        out = []
        for line in self.proc.stdout:
            out.append(line.rstrip("\n"))
            if out[-1].split(" ")[0] == last:
                break
        return out

    def end(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None and not pipe.closed:
                pipe.close()


@pytest.fixture
def holders() -> Iterator[list[Holder]]:
    made: list[Holder] = []
    yield made
    for h in made:
        h.end()


def start(holders: list[Holder], changes: list[Change], state: Path) -> tuple[Holder, list[str]]:
    h = Holder(changes, state)
    holders.append(h)
    return h, h.lines_until("READY")


def state_files(state: Path) -> list[Path]:
    return sorted(state.glob("*.json")) if state.exists() else []


def test_the_holder_applies_says_so_and_restores_when_told(
    root: Path, tmp_path: Path, holders: list[Holder]
) -> None:
    changes = changes_of(root)
    h, said = start(holders, changes, tmp_path / "state")
    (f,) = state_files(tmp_path / "state")
    assert said == [f"S {f}", "A 0", "A 1", "A 2", "READY"]
    body = json.loads(f.read_text())
    assert body["changes"] == [{"path": c.path, "old": c.old, "new": c.new} for c in changes]
    assert body["note"] is None and body["holder"] == MARKER
    # the state file's pid is the holder's, named in it and its file name
    holder_pid = body["pid"]
    assert f.name.startswith(f"{holder_pid}-")
    assert MARKER.encode() in Path(f"/proc/{holder_pid}/cmdline").read_bytes()
    assert values(root) == ("0", "never")
    assert (root / "dev/cpu_dma_latency").read_text() == "00000000\n"
    assert h.proc.stdin is not None
    h.proc.stdin.write("restore\n")
    h.proc.stdin.flush()
    assert h.lines_until("DONE") == ["R 2", "R 1", "R 0", "DONE"]
    assert h.proc.wait() == 0
    assert values(root) == AS_FOUND
    assert not list((tmp_path / "state").iterdir())  # the restore file too


def test_the_holder_restores_when_its_connection_ends(
    root: Path, tmp_path: Path, holders: list[Holder]
) -> None:
    h, _ = start(holders, changes_of(root), tmp_path / "state")
    assert h.proc.stdin is not None
    h.proc.stdin.close()  # what sshd does when the caller is killed
    assert h.lines_until("DONE")[-1] == "DONE"
    assert values(root) == AS_FOUND and state_files(tmp_path / "state") == []


def test_a_change_that_fails_restores_the_ones_before(
    root: Path, tmp_path: Path, holders: list[Holder]
) -> None:
    changes = changes_of(root)[:2]
    changes.insert(1, Change(str(root / "no/such/file"), "1", "0"))
    h = Holder(changes, tmp_path / "state")
    holders.append(h)
    said = h.lines_until("DONE")
    assert said[1] == "A 0" and said[2].startswith("E 1 ") and "no/such/file" in said[2]
    assert said[3:] == ["R 0", "DONE"]
    assert h.proc.wait() == 1
    assert values(root) == AS_FOUND and state_files(tmp_path / "state") == []


@as_root
def test_a_killed_holder_is_restored_by_the_janitor_and_a_live_one_is_not(
    root: Path, tmp_path: Path, holders: list[Holder], monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    dead, _ = start(holders, changes_of(root), state)
    (theirs,) = state_files(state)
    other = changes_of(root)[:1]
    live, _ = start(holders, [Change(other[0].path, "0", "0")], state)
    mine = [f for f in state_files(state) if f != theirs]
    dead.proc.send_signal(signal.SIGKILL)
    dead.proc.wait()
    assert values(root) == ("0", "never") and len(state_files(state)) == 2
    # this machine's own janitor leaves the live holder's file alone
    monkeypatch.setenv("RTGAUGE_TUNE_STATE_DIR", str(state))
    before = mine[0].read_text()
    got = sh(janitor_script(str(state)))
    assert got.returncode == 0, got.stderr
    (line,) = got.stdout.splitlines()
    assert line == f"J {dead.proc.pid} 3 0 {root / 'dev/cpu_dma_latency'}"
    assert values(root) == AS_FOUND
    assert state_files(state) == mine and mine[0].read_text() == before
    assert [p.name for p in state.iterdir() if p.name.startswith(str(dead.proc.pid))] == []
    assert restore_leftovers() == []  # the live holder's lock (or its pid) keeps it
    assert mine[0].exists()
    assert janitor_lines(got.stdout.splitlines(), "ssh://test") == [
        f"restored 3 settings left on ssh://test by rtgauge tune (holder pid {dead.proc.pid}, "
        f"killed); the kernel let go of {root / 'dev/cpu_dma_latency'} when it ended"
    ]


# ---- RemoteApplied, its "ssh" sh on this machine ----


@pytest.fixture
def local_ssh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> SshTarget:
    monkeypatch.setenv("RTGAUGE_TARGET_TUNE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setattr(remote_applied, "ssh_argv", lambda t, remote: ["sh", "-c", remote])

    def output(t: SshTarget, remote: str, timeout: float = 60) -> str:
        return subprocess.run(["sh", "-c", remote], capture_output=True, text=True).stdout

    monkeypatch.setattr(remote_applied, "ssh_output", output)
    return SshTarget("root", "test")


def test_remote_applied_applies_inside_and_restores_after(
    root: Path, tmp_path: Path, local_ssh: SshTarget
) -> None:
    with RemoteApplied(local_ssh, changes_of(root)) as applied:
        assert values(root) == ("0", "never")
        assert applied.state_path is not None and Path(applied.state_path).exists()
    assert values(root) == AS_FOUND and state_files(tmp_path / "state") == []


def test_remote_applied_restores_on_an_exception_and_names_a_failure(
    root: Path, tmp_path: Path, local_ssh: SshTarget
) -> None:
    with pytest.raises(KeyError), RemoteApplied(local_ssh, changes_of(root)):
        raise KeyError("boom")
    assert values(root) == AS_FOUND
    bad = [*changes_of(root)[:1], Change(str(root / "no/file"), "1", "0")]
    with pytest.raises(UsageError, match=r"could not apply .*no/file.*the 1 settings applied"):
        with RemoteApplied(local_ssh, bad):
            pass
    assert values(root) == AS_FOUND and state_files(tmp_path / "state") == []


@as_root
def test_a_holder_that_dies_is_restored_by_the_janitor_at_once(
    root: Path, tmp_path: Path, local_ssh: SshTarget, capsys: pytest.CaptureFixture[str]
) -> None:
    with RemoteApplied(local_ssh, changes_of(root)) as applied:
        assert applied.state_path is not None
        pid = int(Path(applied.state_path).name.split("-")[0])
        os.kill(pid, signal.SIGKILL)
    assert values(root) == AS_FOUND and state_files(tmp_path / "state") == []
    assert f"(holder pid {pid}, killed)" in capsys.readouterr().err


def test_a_holder_script_larger_than_one_argument_comes_on_stdin(
    tmp_path: Path, local_ssh: SshTarget
) -> None:
    f = tmp_path / "value"
    f.write_text("as found\n")
    changes = [Change(str(f), f"{'x' * 100} {i}", f"new {i}") for i in range(1500)]
    changes[0] = Change(str(f), "as found", "new 0")
    assert len(holder_script(changes, str(tmp_path / "state"), "t", "ssh://x")) > 128 * 1024
    with RemoteApplied(local_ssh, changes):
        assert f.read_text() == "new 1499\n"
    assert f.read_text() == "as found\n" and list((tmp_path / "state").iterdir()) == []


def test_a_state_directory_that_cannot_be_written_is_a_usage_error(
    root: Path, tmp_path: Path, local_ssh: SshTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("RTGAUGE_TARGET_TUNE_STATE_DIR", str(tmp_path / "file/state"))
    with pytest.raises(UsageError, match="cannot write the state directory"):
        with RemoteApplied(local_ssh, changes_of(root)):
            pass
    assert values(root) == AS_FOUND


def test_the_janitor_names_what_it_kept() -> None:
    assert janitor_lines(["J 7 1 1", "K /s/7-a.json kept for the next try"], "ssh://h") == [
        "restored 1 setting left on ssh://h by rtgauge tune (holder pid 7, killed); "
        "1 could not be restored",
        "kept /s/7-a.json on ssh://h: kept for the next try",
    ]


@as_root
def test_every_ssh_run_starts_with_the_janitor(
    root: Path,
    tmp_path: Path,
    holders: list[Holder],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    dead, _ = start(holders, changes_of(root), tmp_path / "state")
    dead.proc.send_signal(signal.SIGKILL)
    dead.proc.wait()

    def here(t: SshTarget, remote: str, data: bytes | None = None, timeout: float = 60) -> str:
        return subprocess.run(["sh", "-c", remote], capture_output=True, text=True).stdout.strip()

    monkeypatch.setattr(ssh, "_ssh", here)
    assert ssh._arch_after_janitor(SshTarget("root", "h")) == platform.machine()
    assert values(root) == AS_FOUND and state_files(tmp_path / "state") == []
    err = capsys.readouterr().err
    assert (
        f"restored 3 settings left on ssh://root@h:22 by rtgauge tune (holder pid {dead.proc.pid}"
        in err
    )


@as_root
def test_without_flock_the_pid_and_its_marker_say_whether_a_holder_lives(
    root: Path,
    tmp_path: Path,
    holders: list[Holder],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = tmp_path / "state"
    dead, _ = start(holders, changes_of(root)[:1], state)
    live, _ = start(
        holders, [Change(str(root / "sys/kernel/mm/transparent_hugepage/defrag"), "x", "y")], state
    )
    dead.proc.send_signal(signal.SIGKILL)
    dead.proc.wait()
    # a PATH without flock(1): the janitor falls back on the pid and marker
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "tr", "grep", "id", "rm", "cat"):
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    got = subprocess.run(
        ["sh", "-c", janitor_script(str(state))],
        capture_output=True,
        text=True,
        env={"PATH": str(bin_dir)},
    )
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines() == [f"J {dead.proc.pid} 1 0"]
    assert values(root)[0] == "1"
    (left,) = state_files(state)
    assert left.name.startswith(f"{live.proc.pid}-")
    # this machine's janitor: an unlocked copy of the live holder's state file
    # is left alone all the same (its pid runs a holder)
    copy = tmp_path / "copy" / left.name
    copy.parent.mkdir()
    copy.write_text(left.read_text())
    assert json.loads(copy.read_text())["pid"] == live.proc.pid
    monkeypatch.setenv("RTGAUGE_TUNE_STATE_DIR", str(copy.parent))
    assert restore_leftovers() == [] and copy.exists()
    assert read(root, "/sys/kernel/mm/transparent_hugepage/defrag").startswith("y")
