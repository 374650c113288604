"""Debian kernels fetched with apt-get download into a cache and unpacked.

`linux-image-rt-amd64` is a metapackage: its dependency chain is followed
until a package that ships /boot/vmlinuz-*.
"""

from __future__ import annotations

import re
import subprocess
import tarfile
from pathlib import Path

from rtgauge.errors import UsageError


def _run(cmd: list[str], cwd: Path | None = None) -> str:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    except FileNotFoundError as exc:
        raise UsageError(f"{cmd[0]} is not installed (needed to fetch Debian kernels)") from exc
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise UsageError(f"{' '.join(cmd)} failed: {last}")
    return proc.stdout


def image_package(name: str) -> str:
    """The versioned linux-image package behind a metapackage name."""
    for _ in range(4):
        if re.fullmatch(r"linux-image-\d.*", name):
            return name
        deps = re.findall(r"Depends: (linux-image-[^\s]+)", _run(["apt-cache", "depends", name]))
        if not deps:
            raise UsageError(f"{name}: no linux-image package behind it (apt-get update?)")
        name = deps[0]
    return name


def fetch_kernel(package: str, cache: Path) -> Path:
    """Path of the vmlinuz of package, downloading and unpacking once."""
    real = image_package(package)
    dest = cache / real
    found = sorted(dest.glob("vmlinuz-*"))
    if found:
        return found[0]
    dest.mkdir(parents=True, exist_ok=True)
    _run(["apt-get", "download", real], cwd=dest)
    debs = sorted(dest.glob("*.deb"))
    if not debs:
        raise UsageError(f"apt-get download {real} gave no package")
    tar_bytes = subprocess.run(
        ["dpkg-deb", "--fsys-tarfile", str(debs[0])], capture_output=True, check=True
    ).stdout
    import io

    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
        for member in tar.getmembers():
            base = Path(member.name).name
            if member.isfile() and member.name.lstrip("./").startswith("boot/vmlinuz-"):
                fh = tar.extractfile(member)
                assert fh is not None
                (dest / base).write_bytes(fh.read())
    for deb in debs:
        deb.unlink()
    found = sorted(dest.glob("vmlinuz-*"))
    if not found:
        raise UsageError(f"{real} holds no /boot/vmlinuz-*")
    return found[0]
