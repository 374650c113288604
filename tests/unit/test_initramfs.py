"""The hand-written newc archive reads back with the layout the guest needs."""

from __future__ import annotations

import gzip
from pathlib import Path

from rtgauge.targets.initramfs import FRAME, build_initramfs


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
    assert f"sed 's/^/{FRAME}/'".encode() in init and b"poweroff -f" in init
    mode, _, rdev = entries["dev/console"]
    assert mode & 0o170000 == 0o020000 and rdev == (5, 1)
    for d in ("proc", "sys", "dev", "tmp", "bin"):
        assert entries[d][0] & 0o170000 == 0o040000
