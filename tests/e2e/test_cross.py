"""The static probes (glibc, musl) and the cross-built ones (aarch64, armhf
under qemu-user) run their quick tests and speak the same contract."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from probe_run import ROOT, validate

ARGS = ["--quick", "--tests", "CLK-P-RES,TMR-P-LAT", "--opt", "TMR-P-LAT.duration_ms=300"]

BUILDS = [
    ("build-static", None, "x86_64", "glibc"),
    ("build-musl", None, "x86_64", "musl or other"),
    ("build-aarch64", "qemu-aarch64-static", "aarch64", "glibc"),
    ("build-armhf", "qemu-arm-static", "arm", "glibc"),
]


@pytest.mark.parametrize("build, runner, arch, libc", BUILDS)
def test_static_and_cross_probes_run(build: str, runner: str | None, arch: str, libc: str) -> None:
    probe = ROOT / build / "rtgauge-probe"
    if not probe.exists():
        pytest.fail(f"{probe} is not built: make probe-cross")
    cmd = [str(probe), *ARGS]
    if runner:
        path = shutil.which(runner)
        assert path, f"{runner} missing: make deps-cross"
        cmd = [path, *cmd]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    for r in records:
        validate(r)
    build_info = records[0]["probe"]["build"]
    assert build_info["static"] is True
    assert build_info["arch"] == arch
    assert build_info["libc"] == libc
    assert [r.get("status") for r in records[1:-1]] == ["ok", "ok"]
    if arch == "aarch64":  # the Arm virtual counter, calibrated
        assert records[0]["clock"]["source"] == "cntvct"
    assert not has_interpreter(probe.read_bytes()), "dynamically linked"


def has_interpreter(elf: bytes) -> bool:
    """Whether an ELF file asks for a dynamic loader (a PT_INTERP header)."""
    assert elf[:4] == b"\x7fELF"
    is64, order = elf[4] == 2, "little" if elf[5] == 1 else "big"

    def num(off: int, size: int) -> int:
        return int.from_bytes(elf[off : off + size], order)

    phoff, phentsize, phnum = (
        (num(32, 8), num(54, 2), num(56, 2)) if is64 else (num(28, 4), num(42, 2), num(44, 2))
    )
    return any(num(phoff + i * phentsize, 4) == 3 for i in range(phnum))
