"""Finding (or building) the probe, and reading its catalogue."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from rtgauge.errors import UsageError
from rtgauge.model import CatalogueEntry


def repo_root() -> Path | None:
    """The source tree (CMakeLists.txt + core/) at or above the working directory."""
    here = Path.cwd().resolve()
    for d in (here, *here.parents):
        if (d / "CMakeLists.txt").is_file() and (d / "core").is_dir():
            return d
    pkg = Path(__file__).resolve().parents[2]  # an editable install in the tree
    if (pkg / "CMakeLists.txt").is_file() and (pkg / "core").is_dir():
        return pkg
    return None


def build_probe(root: Path) -> Path:
    """build/rtgauge-probe of the tree, as make probe builds it."""
    if not shutil.which("cmake"):
        raise UsageError("the probe is not built and cmake is missing: run make run")
    out = root / "build"
    for cmd in (
        ["cmake", "-S", str(root), "-B", str(out), "-DCMAKE_BUILD_TYPE=Release"],
        ["cmake", "--build", str(out), "--target", "rtgauge-probe"],
    ):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:]
            raise UsageError(f"building the probe failed: {' '.join(tail) or cmd}")
    return out / "rtgauge-probe"


def find_probe(explicit: str | None = None, build: bool = True) -> Path:
    """--probe, $RTGAUGE_PROBE, build/rtgauge-probe of the tree (built if missing)."""
    chosen = explicit or os.environ.get("RTGAUGE_PROBE")
    if chosen:
        path = Path(chosen)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise UsageError(f"probe not found or not executable: {path}")
        return path
    root = repo_root()
    if root is None:
        raise UsageError("no probe: give --probe PATH or set RTGAUGE_PROBE")
    path = root / "build" / "rtgauge-probe"
    if path.is_file():
        return path
    if not build:
        raise UsageError(f"the probe is not built ({path}): run make probe")
    return build_probe(root)


def static_probe(arch: str = "x86_64") -> Path:
    """The static probe a guest or a remote machine runs (built if missing)."""
    root = repo_root()
    # glibc static: musl lacks PTHREAD_PRIO_PROTECT, which would read as a
    # failing of the target rather than of the C library.
    build = {"x86_64": "build-static", "aarch64": "build-aarch64"}.get(arch)
    if root is None or build is None:
        raise UsageError(f"no static probe for {arch}: run make probe-musl / probe-aarch64")
    path = root / build / "rtgauge-probe"
    if not path.is_file():
        raise UsageError(f"the static probe is not built ({path}): run make probe-cross")
    return path


def parse_catalogue(text: str, where: str) -> list[CatalogueEntry]:
    """The --list-json lines, each checked against the contract; a bad one is
    one clear error."""
    out = []
    for i, line in enumerate((ln for ln in text.splitlines() if ln.strip()), start=1):
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{where} line {i}: not JSON ({exc.msg})") from exc
        out.append(CatalogueEntry.from_dict(entry, f"{where} line {i}"))
    return out


def catalogue(probe: Path) -> list[CatalogueEntry]:
    proc = subprocess.run([str(probe), "--list-json"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise UsageError(f"{probe} --list-json failed: {proc.stderr.strip()}")
    return parse_catalogue(proc.stdout, f"{probe} --list-json")
