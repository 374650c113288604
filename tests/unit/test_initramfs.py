"""The hand-written newc archive reads back with the layout the guest needs."""

from __future__ import annotations

import gzip
import select
import subprocess
from pathlib import Path

from rtgauge.targets.initramfs import FRAME, FRAMER, INIT_SCRIPT, build_initramfs

BUSYBOX = Path("/bin/busybox")  # the guest's shell, as the qemu target uses


def read_newc(data: bytes) -> dict[str, tuple[int, bytes, tuple[int, int]]]:
    """name -> (mode, content, rdev), parsed independently of the writer."""
    entries: dict[str, tuple[int, bytes, tuple[int, int]]] = {}
    pos = 0
    while True:
        assert data[pos : pos + 6] == b"070701", f"bad magic at {pos}"
        f = [int(data[pos + 6 + 8 * i : pos + 14 + 8 * i], 16) for i in range(13)]
        mode, size, rdev, namesize = f[1], f[6], (f[9], f[10]), f[11]
        name = data[pos + 110 : pos + 110 + namesize - 1].decode()
        pos += 110 + namesize
        pos += -pos % 4
        content = data[pos : pos + size]
        pos += size
        pos += -pos % 4
        if name == "TRAILER!!!":
            return entries
        entries[name] = (mode, content, rdev)


def test_archive_holds_init_probe_busybox_and_args(tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    probe.write_bytes(b"\x7fELFprobe")
    busybox = tmp_path / "busybox"
    busybox.write_bytes(b"\x7fELFbusybox-odd-len")
    args = ["--quick", "--tests", "THR-*,CLK-P-RES", "--opt", "X-P-Y.k=a b"]
    out = build_initramfs(probe, busybox, args, tmp_path / "initrd.gz")
    entries = read_newc(gzip.decompress(out.read_bytes()))
    assert entries["rtgauge-probe"][1] == probe.read_bytes()
    assert entries["bin/busybox"][1] == busybox.read_bytes()
    assert entries["rtgauge.args"][1].decode().splitlines() == args
    init_mode, init, _ = entries["init"]
    assert init_mode & 0o111 and init.startswith(b"#!/bin/busybox sh")
    assert FRAMER.encode() in init and b"poweroff -f" in init
    mode, _, rdev = entries["dev/console"]
    assert mode & 0o170000 == 0o020000 and rdev == (5, 1)
    for d in ("proc", "sys", "dev", "tmp", "bin"):
        assert entries[d][0] & 0o170000 == 0o040000


def _first_line_before_the_second(framer: str, tmp_path: Path, wait_s: float) -> bytes | None:
    """Feeds the framer one line and waits (bounded) for it to come out
    before writing another: what the host needs from a guest that may stop
    answering right after a record. None if the line is held back."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for applet in ("awk", "sed"):  # the guest's applets, not the host's tools
        (bin_dir / applet).symlink_to(BUSYBOX)
    proc = subprocess.Popen(
        [str(BUSYBOX), "sh", "-c", framer],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={"PATH": str(bin_dir)},
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(b'{"record": "system", "s": "a\\\\tb %s"}\n')
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], wait_s)
        return proc.stdout.readline() if ready else None
    finally:
        proc.kill()
        proc.wait()


def test_each_record_leaves_the_guest_before_the_next_is_written(tmp_path: Path) -> None:
    assert BUSYBOX.is_file(), "busybox-static missing: make deps-qemu"
    line = _first_line_before_the_second(FRAMER, tmp_path, wait_s=30.0)
    assert line == f'{FRAME}{{"record": "system", "s": "a\\\\tb %s"}}\n'.encode()
    assert FRAMER.encode() in INIT_SCRIPT.encode()


def test_control_sed_holds_the_newest_line_back(tmp_path: Path) -> None:
    """The check above can fail: busybox sed reads a line ahead, so it holds
    the line until the next one or the end, however long it is given."""
    assert BUSYBOX.is_file(), "busybox-static missing: make deps-qemu"
    assert _first_line_before_the_second(f"sed 's/^/{FRAME}/'", tmp_path, wait_s=1.0) is None
