"""rtgauge tune over ssh against a real OpenSSH server on 127.0.0.1 whose
target is this machine, as root, on CPU 1, with two knobs that are safe
here (timer-migration, thp): a tune completes and leaves every value as it
found it; rtgauge SIGKILLed while a knob is applied, the target's holder
restores on its own; the holder SIGKILLed too, the next command's janitor
restores and says so; bad input is one line and exit 2. The target's state
directory is the test's own; every value is put back in a finally."""

from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from probe_run import ROOT
from ssh_server import USER, free_port

from rtgauge.audit.linux_memory import chosen
from rtgauge.targets.ssh_janitor import MARKER
from rtgauge.tune.state import restore_leftovers

if os.geteuid() != 0:
    pytest.skip("changes kernel settings: root only", allow_module_level=True)
if not {0, 1} <= os.sched_getaffinity(0):
    pytest.skip("needs CPUs 0 and 1 (CPU 1 measured, CPU 0 for the rest)", allow_module_level=True)
if not (ROOT / "build-static" / "rtgauge-probe").is_file():
    pytest.skip("the static probe is not built (make probe-static)", allow_module_level=True)

KNOBS = "timer-migration,thp"
THP = Path("/sys/kernel/mm/transparent_hugepage")
FILES = (Path("/proc/sys/kernel/timer_migration"), THP / "enabled", THP / "defrag")
BOUND = 60.0  # seconds any wait below may take before the test fails


def value(f: Path) -> str:
    """A knob's value now (a THP file: its chosen word)."""
    text = f.read_text().strip()
    return (chosen(text) or text) if f.parent == THP else text


def values() -> dict[Path, str]:
    return {f: value(f) for f in FILES if f.exists()}


@pytest.fixture
def as_found() -> Iterator[dict[Path, str]]:
    """The values before; written back after the test whatever happened."""
    before = values()
    if before.get(FILES[0]) == "0" and before.get(THP / "enabled") in (None, "never"):
        pytest.skip(f"none of {KNOBS} can be tried here: both are set already")
    try:
        yield before
    finally:
        for f, v in before.items():
            if values().get(f) != v:
                f.write_text(v + "\n")


@pytest.fixture
def url(sshd: tuple[int, Path]) -> str:
    return f"ssh://root@127.0.0.1:{sshd[0]}"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "RTGAUGE_TUNE_STATE_DIR": str(tmp_path / "local-state"),
        "RTGAUGE_TARGET_TUNE_STATE_DIR": str(tmp_path / "target-state"),
    }


def argv(url: str, key: Path, *more: str) -> list[str]:
    return [
        sys.executable, "-m", "rtgauge.cli.main", "tune", "--target", url,
        "--identity", str(key), "--ssh-option", "StrictHostKeyChecking=no",
        "--ssh-option", "UserKnownHostsFile=/dev/null", "--ssh-option", "LogLevel=ERROR",
        "--cpus", "1", "--knobs", KNOBS, *more,
    ]  # fmt: skip


def state_files(env: dict[str, str]) -> list[Path]:
    d = Path(env["RTGAUGE_TARGET_TUNE_STATE_DIR"])
    return sorted(d.glob("*.json")) if d.exists() else []


def wait_for(what: str, ok: Callable[[], object]) -> None:
    """Polls until ok() holds; fails after BOUND seconds."""
    deadline = time.monotonic() + BOUND
    while not ok():
        assert time.monotonic() < deadline, f"not within {BOUND:.0f} s: {what}"
        time.sleep(0.01)  # a polling interval


@pytest.fixture
def started(tmp_path: Path) -> Iterator[list[subprocess.Popen[str]]]:
    """The tunes a test starts; what is left of them (their ssh clients,
    in their session) ended after it, and the probe directories they left."""
    procs: list[subprocess.Popen[str]] = []
    dirs = set(Path("/tmp").glob("rtgauge.*"))
    yield procs
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    for d in set(Path("/tmp").glob("rtgauge.*")) - dirs:
        subprocess.run(["rm", "-rf", str(d)], check=False)


def start_applied(
    url: str, key: Path, env: dict[str, str], tmp_path: Path, procs: list[subprocess.Popen[str]]
) -> tuple[subprocess.Popen[str], Path]:
    """A tune started and waited for until a knob is applied on the target:
    its state file there, and a value as the state file says it applied."""
    proc = subprocess.Popen(
        argv(url, key, "--rounds", "1", "--round", "2s", "--store", str(tmp_path / "s")),
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    procs.append(proc)

    def applied() -> bool:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else proc.returncode
        for f in state_files(env):
            try:
                changes = json.loads(f.read_text())["changes"]
            except (OSError, ValueError):
                continue  # removed meanwhile
            if changes and all(value(Path(c["path"])) == c["new"] for c in changes):
                return True
        return False

    wait_for("a knob applied on the target", applied)
    (state,) = state_files(env)
    return proc, state


def ppid(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def server_pid(server_dir: Path) -> int:
    """This test's ssh server: started with its configuration in server_dir."""
    config = str(server_dir / "sshd_config").encode()
    return min(
        int(p.name)
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and config in cmdline(int(p.name))
    )


def children(pid: int) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        try:
            if p.name.isdigit() and ppid(int(p.name)) == pid:
                out.append(int(p.name))
        except (OSError, ValueError, IndexError):
            continue  # ended meanwhile
    return out


def holder_of(state: Path, server: int) -> int:
    """The holder that wrote the state file: the pid its name gives, checked
    to be a holder (its marker) under this test's ssh server."""
    pid = int(state.name.split("-")[0])
    assert MARKER.encode() in cmdline(pid)
    p = pid
    while p > 1:
        p = ppid(p)
        if p == server:
            return pid
    pytest.fail(f"pid {pid} is not under this test's ssh server")


def test_a_tune_over_ssh_completes_and_leaves_every_value(
    url: str, sshd: tuple[int, Path], env: dict[str, str], tmp_path: Path, as_found: dict[Path, str]
) -> None:
    store = tmp_path / "s"
    done = subprocess.run(
        argv(url, sshd[1], "--rounds", "1", "--round", "1s", "--store", str(store), "--no-report"),
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert values() == as_found and state_files(env) == []
    (path,) = store.glob("tune-*.json")
    result = json.loads(path.read_text())
    assert result["target"] == url
    assert result["host"] == platform.node() and result["kernel"] == platform.release()
    tried = {t["knob"]: t for t in result["trials"]}
    assert set(tried) | {n["knob"] for n in result["not_tried"]} == set(KNOBS.split(","))
    for knob, t in tried.items():
        assert not t["error"], (knob, t["error"])
        assert t["figures"], knob


def test_rtgauge_killed_the_holder_restores_on_its_own(
    url: str,
    sshd: tuple[int, Path],
    env: dict[str, str],
    tmp_path: Path,
    as_found: dict[Path, str],
    started: list[subprocess.Popen[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    proc, state = start_applied(url, sshd[1], env, tmp_path, started)
    assert values() != as_found
    # this machine's own janitor leaves the live holder's state file alone
    monkeypatch.setenv("RTGAUGE_TUNE_STATE_DIR", env["RTGAUGE_TARGET_TUNE_STATE_DIR"])
    assert restore_leftovers() == [] and state.exists() and values() != as_found
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL
    wait_for("the holder's own restore", lambda: not state.exists() and values() == as_found)
    assert not list(state.parent.iterdir())  # its restore script too


def test_both_killed_the_next_command_restores_and_says_so(
    url: str,
    sshd: tuple[int, Path],
    env: dict[str, str],
    tmp_path: Path,
    as_found: dict[Path, str],
    started: list[subprocess.Popen[str]],
) -> None:
    proc, state = start_applied(url, sshd[1], env, tmp_path, started)
    server = server_pid(sshd[1].parent)
    holder = holder_of(state, server)
    # the holder's connection kept open (its ssh client stopped), rtgauge and
    # its other connections killed: no janitor of theirs can run after this
    (client,) = [c for c in children(proc.pid) if MARKER.encode() in cmdline(c)]
    os.kill(client, signal.SIGSTOP)
    os.killpg(proc.pid, signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL
    wait_for("only the holder's connection left", lambda: len(children(server)) == 1)
    os.kill(holder, signal.SIGKILL)
    os.kill(client, signal.SIGKILL)
    wait_for("the holder gone", lambda: not cmdline(holder))
    assert state.exists() and values() != as_found  # left as the holder had it
    done = subprocess.run(
        argv(url, sshd[1], "--dry-run"), env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert f"left on {url} by rtgauge tune (holder pid {holder}, killed)" in done.stderr
    assert values() == as_found and not list(state.parent.iterdir())
    assert "would try" in done.stdout  # read after the janitor: as found


def test_bad_targets_are_one_line_and_exit_2(
    url: str, sshd: tuple[int, Path], env: dict[str, str], tmp_path: Path
) -> None:
    port, key = sshd
    (tmp_path / "a-file").write_text("")
    cases = [
        (argv(f"ssh://root@127.0.0.1:{free_port()}", key), env, "Connection refused"),
        (argv(f"ssh://{USER}@127.0.0.1:{port}", key), env, "log in as root, or give --sudo"),
        (
            argv(url, key),
            {**env, "RTGAUGE_TARGET_TUNE_STATE_DIR": str(tmp_path / "a-file/state")},
            "a-file/state, where rtgauge tune keeps",
        ),
        (argv("ssh://root@127.0.0.1:0", key), env, "port 0"),
    ]
    for cmd, e, said in cases:
        before = values()
        done = subprocess.run(cmd, env=e, cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 2 and said in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert values() == before
