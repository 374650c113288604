"""A Debian PREEMPT_RT kernel booted under QEMU runs the static probe: the
guest's own system record comes back through the framed serial port.
Short by design (CI): CLK-P-RES and TMR-P-LAT quick; the full lab is `make lab`."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from probe_run import ROOT, validate

from rtgauge.errors import UsageError
from rtgauge.targets.kernels import fetch_kernel
from rtgauge.targets.qemu import GuestRun, QemuOptions, run_in_qemu

CACHE = Path(os.environ.get("RTGAUGE_KERNEL_CACHE", ROOT / ".cache" / "kernels"))
MUSL = ROOT / "build-static" / "rtgauge-probe"  # glibc static, as the qemu target uses


def _needs() -> None:
    for tool in ("qemu-system-x86_64", "apt-get", "dpkg-deb"):
        if not shutil.which(tool):
            pytest.fail(f"{tool} missing: make deps-qemu")
    if not MUSL.exists():
        pytest.fail("static probe missing: make probe-musl")


def test_rt_guest_reports_itself_and_runs_the_probe() -> None:
    _needs()
    kernel = fetch_kernel("linux-image-rt-amd64", CACHE)
    result = GuestRun()
    opts = QemuOptions(kernel=kernel, probe=MUSL, accel="auto", boot_timeout_s=240)
    args = ["--quick", "--tests", "CLK-P-RES,TMR-P-LAT", "--opt", "TMR-P-LAT.duration_ms=200"]
    records = [json.loads(line) for line in run_in_qemu(opts, args, result)]
    assert result.error is None, (result.error, result.console_tail)
    assert result.exit_code == 0
    for r in records:
        validate(r)
    system = records[0]
    assert system["kernel"]["preempt_model"] == "rt"
    assert "-rt-" in system["host"]["release"]
    assert [r["id"] for r in records if r["record"] == "test"] == ["CLK-P-RES", "TMR-P-LAT"]
    assert records[-1]["record"] == "end"
    if result.accel == "tcg":  # emulated: said in the system record and in every test
        assert system["virtualization"]["emulated"] is True
        for r in records[1:-1]:
            assert any(n.startswith("emulated") for n in r["notes"])


def test_a_kernel_that_cannot_boot_ends_with_a_clear_error(tmp_path: Path) -> None:
    _needs()
    bogus = tmp_path / "vmlinuz-bogus"
    bogus.write_bytes(b"not a kernel" * 100)
    result = GuestRun()
    opts = QemuOptions(kernel=bogus, probe=MUSL, accel="tcg", boot_timeout_s=20)
    assert list(run_in_qemu(opts, ["--quick"], result)) == []
    assert result.error is not None and result.exit_code is None


def test_bad_options_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="kernel not found"):
        list(run_in_qemu(QemuOptions(kernel=tmp_path / "none", probe=MUSL), [], GuestRun()))
