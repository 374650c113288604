"""The labgrid target against a real labgrid lab on 127.0.0.1 (coordinator,
exporter exporting a NetworkService for a local sshd, places made with
labgrid-client): a run, a coordinator killed during a run, a place held by
someone else, and Ctrl-C. Each time: the place released (or its loss said),
no probe left on the "board", every record that arrived kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from labgrid_lab import Lab, labgrid_lab
from probe_run import ROOT

QUICK = ["--quick", "--tests", "CLK-P-RES,TMR-P-LAT", "--opt", "TMR-P-LAT.duration_ms=200"]
# Long enough to be cut: CLK-P-RES ends quickly, TMR-P-LAT then runs for a minute.
LONG = ["--quick", "--tests", "CLK-P-RES,TMR-P-LAT", "--opt", "TMR-P-LAT.duration_ms=60000"]


class PowerSwitch(BaseHTTPRequestHandler):
    """A power switch with labgrid's simplerest interface: records each request."""

    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        PowerSwitch.requests.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"1")

    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture(scope="module")
def power() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), PowerSwitch)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@pytest.fixture(scope="module")
def lab(sshd: tuple[int, Path], power: str) -> Iterator[Lab]:
    """One lab for the tests that leave it as they found it."""
    with labgrid_lab(sshd[0], power_url=power) as found:
        found.add_place("rpi-1", board="rpi4")
        found.add_place("rpi-p", group="powered")
        yield found


def rtgauge(lab: Lab, key: Path, results: Path, *args: str) -> list[str]:
    return [
        *(sys.executable, "-m", "rtgauge.cli.main", "run", "--no-report"),
        *("--results-dir", str(results), "--identity", str(key)),
        *("--ssh-option", "StrictHostKeyChecking=no"),
        *("--ssh-option", "UserKnownHostsFile=/dev/null"),
        *args,
    ]


def acquired_by(lab: Lab, place: str) -> str:
    for line in lab.client("-p", place, "show").splitlines():
        if line.strip().startswith("acquired:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no acquired line for {place}")


def probes_in(directory: Path) -> list[int]:
    """Processes whose executable lies in this directory (even deleted)."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            exe = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue
        if exe.startswith(f"{directory}/"):
            found.append(int(pid))
    return found


def remote_dir_of_long_run() -> Path | None:
    """The board's temporary directory of this file's long run, found by the
    probe's own command line (other runs on this machine have other ones)."""
    marker = LONG[-1].encode()
    for pid in os.listdir("/proc"):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            exe = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue
        if marker in cmdline.split(b"\0") and exe.endswith("/rtgauge-probe"):
            return Path(exe).parent
    return None


def wait_for(predicate: object, seconds: float) -> None:
    assert callable(predicate)
    end = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.1)


def test_run_on_a_place(lab: Lab, sshd: tuple[int, Path], tmp_path: Path) -> None:
    cmd = rtgauge(lab, sshd[1], tmp_path, "--target", f"labgrid://{lab.address}/rpi-1", *QUICK)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    (bundle_path,) = tmp_path.glob("*/*.json")
    bundle = json.loads(bundle_path.read_text())
    target = bundle["target"]
    assert target["kind"] == "labgrid" and target["place"] == "rpi-1"
    assert target["coordinator"] == lab.address and target["arch"] == "x86_64"
    assert target["powered"] is None  # this place has no power resource
    assert [t["id"] for t in bundle["tests"]] == ["CLK-P-RES", "TMR-P-LAT"]
    assert acquired_by(lab, "rpi-1") == "None"


def test_a_place_with_a_power_port_is_switched_on(
    lab: Lab, sshd: tuple[int, Path], tmp_path: Path
) -> None:
    cmd = rtgauge(lab, sshd[1], tmp_path, "--target", f"labgrid://{lab.address}/rpi-p", *QUICK)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "/relay/0/1" in PowerSwitch.requests  # on, through labgrid's driver
    (bundle_path,) = tmp_path.glob("*/*.json")
    assert json.loads(bundle_path.read_text())["target"]["powered"] is True
    assert acquired_by(lab, "rpi-p") == "None"


def test_coordinator_address_from_labgrid_environment(
    lab: Lab, sshd: tuple[int, Path], tmp_path: Path
) -> None:
    cmd = rtgauge(lab, sshd[1], tmp_path, "--target", "labgrid://rpi-1", *QUICK)
    env = {**os.environ, "LG_COORDINATOR": lab.address}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr
    assert acquired_by(lab, "rpi-1") == "None"


def _start_long_run(lab: Lab, key: Path, results: Path) -> tuple[subprocess.Popen[str], Path]:
    cmd = rtgauge(lab, key, results, "--target", f"labgrid://{lab.address}/rpi-1", *LONG)
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )

    def first_test_stored() -> bool:
        """CLK-P-RES's own test record is stored (its id alone also appears
        earlier, in the run's plan: waiting on that cut it short)."""
        assert proc.poll() is None, proc.communicate()
        for p in results.glob("*/*.partial.jsonl"):
            for line in p.read_text().splitlines():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue  # the line being written
                if rec.get("record") == "test" and rec.get("id") == "CLK-P-RES":
                    return True
        return False

    wait_for(first_test_stored, 120)
    remote = remote_dir_of_long_run()
    assert remote is not None and probes_in(remote), "the probe runs on the board"
    return proc, remote


def test_coordinator_killed_during_a_run(sshd: tuple[int, Path], tmp_path: Path) -> None:
    with labgrid_lab(sshd[0]) as lab:  # its own: this one loses its coordinator
        lab.add_place("rpi-1")
        proc, remote = _start_long_run(lab, sshd[1], tmp_path)
        lab.kill_coordinator()
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err
    assert "lost the labgrid coordinator" in err
    assert "could not be released" in err  # the loss is reported
    # Records so far kept: the first test whole, the one cut short said so.
    (bundle_path,) = tmp_path.glob("*/*.json")
    tests = {t["id"]: t for t in json.loads(bundle_path.read_text())["tests"]}
    assert tests["CLK-P-RES"]["status"] == "ok"
    assert "stored:" in out
    # Nothing left running on the board, its directory gone.
    assert not probes_in(remote) and not remote.exists()


def test_ctrl_c_releases_the_place(lab: Lab, sshd: tuple[int, Path], tmp_path: Path) -> None:
    proc, remote = _start_long_run(lab, sshd[1], tmp_path)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err
    assert tmp_path.glob("*/*.json")
    assert not probes_in(remote) and not remote.exists()
    assert acquired_by(lab, "rpi-1") == "None"


def test_place_held_by_another_waits_then_times_out(
    lab: Lab, sshd: tuple[int, Path], tmp_path: Path
) -> None:
    lab.add_place("rpi-2", board="rpi4")
    lab.client("-p", "rpi-2", "acquire", user="someone-else")
    cmd = rtgauge(lab, sshd[1], tmp_path, "--target", f"labgrid://{lab.address}/rpi-2")
    proc = subprocess.run(
        [*cmd, "--acquire-timeout", "2", *QUICK], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 3
    assert "held by rtgauge-test/someone-else" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert acquired_by(lab, "rpi-2") == "rtgauge-test/someone-else"  # not taken from them
    assert not list(tmp_path.glob("*/*"))  # nothing ran, nothing stored
    lab.client("-p", "rpi-2", "release", user="someone-else")  # its board is rpi-1's too


@pytest.mark.parametrize(
    "spec, message",
    [("labgrid://rpi-9", "does not exist"), ("labgrid://a/b/c", "expected labgrid://")],
)
def test_bad_places_are_usage_errors(
    lab: Lab, sshd: tuple[int, Path], tmp_path: Path, spec: str, message: str
) -> None:
    env = {**os.environ, "LG_COORDINATOR": lab.address}
    proc = subprocess.run(
        [*rtgauge(lab, sshd[1], tmp_path, "--target", spec), *QUICK],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
