"""A guest that this host's KVM cannot run prints nothing on its console:
the qemu target gives KVM up after kvm_console_s, not after the whole boot
timeout, and says why; a guest that prints is left to the boot timeout."""

from __future__ import annotations

import stat
from pathlib import Path

from rtgauge.targets.qemu import GuestRun, QemuOptions, _boot, _command


def _fake_qemu(tmp: Path) -> list[str]:
    """A stand-in for qemu that says nothing on its framed port. What its
    console holds is written by the test before the boot, so no race with
    the console rule decides the outcome."""
    script = tmp / "fake-qemu"
    script.write_text("#!/bin/sh\nexec sleep 60\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return [str(script)]


def _opts(tmp: Path, boot_s: float) -> QemuOptions:
    return QemuOptions(kernel=tmp / "k", probe=tmp / "p", boot_timeout_s=boot_s, kvm_console_s=0.5)


def _boot_quiet_guest(tmp: Path, accel: str, console_text: str, boot_s: float) -> GuestRun:
    """Boots the stand-in with the console already holding console_text;
    nothing comes on the framed port."""
    console = tmp / "console.log"
    console.write_text(console_text)
    result = GuestRun(accel=accel)
    assert list(_boot(_fake_qemu(tmp), _opts(tmp, boot_s), console, result)) == []
    return result


def test_a_silent_kvm_console_gives_kvm_up(tmp_path: Path) -> None:
    # The boot timeout is far away: only the console rule can end this.
    result = _boot_quiet_guest(tmp_path, "kvm", "", 50)
    assert result.error is not None and "printed nothing" in result.error
    assert "under KVM" in result.error


def test_a_console_that_speaks_waits_for_the_boot_timeout(tmp_path: Path) -> None:
    result = _boot_quiet_guest(tmp_path, "kvm", "Linux version 6.1.0\n", 2)
    assert result.error == "guest stopped answering: waited 2 s for the probe to start"


def test_tcg_is_never_given_up_for_a_quiet_console(tmp_path: Path) -> None:
    result = _boot_quiet_guest(tmp_path, "tcg", "", 2)
    assert result.error == "guest stopped answering: waited 2 s for the probe to start"


def test_tcg_runs_the_vcpus_on_one_thread_and_kvm_as_is(tmp_path: Path) -> None:
    # One thread for all vCPUs under TCG: the multi-threaded default hung
    # guests that patch kernel text (docs/lab.md, "Linux guests under QEMU").
    opts = _opts(tmp_path, 1)
    tcg = _command("qemu", opts, "tcg", tmp_path / "i", tmp_path / "c")
    kvm = _command("qemu", opts, "kvm", tmp_path / "i", tmp_path / "c")
    assert tcg[tcg.index("-accel") + 1] == "tcg,thread=single"
    assert kvm[kvm.index("-accel") + 1] == "kvm" and "host" in kvm
    assert tcg[tcg.index("-smp") + 1] == str(opts.cpus)
