"""A minimal initramfs for booting a kernel straight into the probe.

Written as a "newc" cpio archive by hand (no cpio binary needed): busybox
(static) as the shell and tools, the static probe, and an /init that mounts
/proc, /sys, devtmpfs, debugfs and tmpfs on /dev/shm, runs the probe with its
output framed on the second serial port, and powers the guest off.
"""

from __future__ import annotations

import gzip
import io
import stat
from pathlib import Path

# Every line the host accepts from the guest starts with this, so kernel
# messages that reach the same port can never be mistaken for a record.
FRAME = "@RTG@ "

# Frames each line and passes it on at once. Not sed: busybox's sed reads
# the next line before it prints one (for its `$` address), so the newest
# record stayed in the guest until the probe wrote another, and was lost
# when the guest stopped answering after it.
FRAMER = f"awk '{{ print \"{FRAME}\" $0; fflush() }}'"

INIT_SCRIPT = f"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/shm /dev/mqueue /tmp /sys/kernel/debug
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t mqueue mqueue /dev/mqueue 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
stty -F /dev/ttyS1 raw -echo 2>/dev/null
set --
while IFS= read -r a; do set -- "$@" "$a"; done < /rtgauge.args
echo "{FRAME}BEGIN" > /dev/ttyS1
{{ /rtgauge-probe "$@"; echo $? > /tmp/rc; }} | {FRAMER} > /dev/ttyS1
echo "{FRAME}EXIT $(cat /tmp/rc)" > /dev/ttyS1
poweroff -f
"""


def _entry(
    out: io.BytesIO,
    ino: int,
    name: str,
    mode: int,
    data: bytes = b"",
    rdev: tuple[int, int] = (0, 0),
) -> None:
    encoded = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(encoded), 0]
    out.write(b"070701" + b"".join(b"%08x" % f for f in fields))
    out.write(encoded)
    out.write(b"\0" * (-(110 + len(encoded)) % 4))
    out.write(data)
    out.write(b"\0" * (-len(data) % 4))


def build_initramfs(probe: Path, busybox: Path, args: list[str], dest: Path) -> Path:
    """Writes a gzip-compressed newc archive to dest and returns it."""
    out = io.BytesIO()
    ino = 1
    for d in ("bin", "dev", "proc", "sys", "tmp", "sbin", "usr", "usr/bin", "usr/sbin"):
        _entry(out, ino, d, stat.S_IFDIR | 0o755)
        ino += 1
    _entry(out, ino, "dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1))
    ino += 1
    files = [
        ("init", INIT_SCRIPT.encode()),
        ("bin/busybox", busybox.read_bytes()),
        ("rtgauge-probe", probe.read_bytes()),
        ("rtgauge.args", "".join(a + "\n" for a in args).encode()),
    ]
    for name, data in files:
        _entry(out, ino, name, stat.S_IFREG | 0o755, data)
        ino += 1
    _entry(out, ino, "TRAILER!!!", 0)
    dest.write_bytes(gzip.compress(out.getvalue(), compresslevel=6))
    return dest
