"""The catalogue's families keep their own headers at home.

A file in core/catalogue/<family>/ includes the public headers
(core/include/rtg/), the shared helpers (core/catalogue/common/) and its own
family's files, never another family's: what two families share belongs in
common/. common/ includes no family's files. core/include/rtg/ holds what any
test may use from the probe (test.h, the OSAL, the clock, metrics), never a
header that serves one family: such a header lives in that family's folder.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.MULTILINE)
SOURCES = ("*.c", "*.h")


def families(root: Path) -> list[str]:
    """Every folder of core/catalogue/ but common/: one per family."""
    base = root / "core" / "catalogue"
    return sorted(p.name for p in base.iterdir() if p.is_dir() and p.name != "common")


def resolve(root: Path, src: Path, name: str) -> Path | None:
    """The file an include names, as the build finds it: beside the including
    file, then under core/catalogue/ and core/include/ (None for the C
    library's and the port's headers)."""
    for base in (src.parent, root / "core" / "catalogue", root / "core" / "include"):
        candidate = (base / name).resolve()
        if candidate.is_file():
            return candidate
    return None


def folder_of(root: Path, path: Path) -> str | None:
    """The catalogue folder (family or common) a file lies in, or None."""
    try:
        rel = path.relative_to((root / "core" / "catalogue").resolve())
    except ValueError:
        return None
    return rel.parts[0] if len(rel.parts) > 1 else None


def catalogue_files(root: Path) -> list[Path]:
    base = root / "core" / "catalogue"
    return sorted(p for pattern in SOURCES for p in base.glob(f"*/**/{pattern}"))


def includes(root: Path, src: Path) -> list[tuple[str, Path]]:
    found = []
    for name in INCLUDE.findall(src.read_text(errors="replace")):
        target = resolve(root, src, name)
        if target is not None:
            found.append((name, target))
    return found


def cross_family_includes(root: Path) -> list[str]:
    """'file: include' for every include of another family's file (from a
    family, or from common/)."""
    bad = []
    for src in catalogue_files(root):
        own = folder_of(root, src.resolve())
        for name, target in includes(root, src):
            theirs = folder_of(root, target)
            if theirs is None or theirs == own or theirs == "common":
                continue
            bad.append(f"{src.relative_to(root)}: {name}")
    return bad


def family_headers_in_public(root: Path) -> list[str]:
    """Headers of core/include/rtg/ that serve one family: named after it
    (thr_*.h), or included by one family's files and by nothing else of the
    probe (core/src, core/osal, another public header)."""
    fams = families(root)
    public = root / "core" / "include" / "rtg"
    users: dict[Path, set[str]] = {h.resolve(): set() for h in public.glob("*.h")}
    others = [
        p for d in ("src", "osal", "include") for s in SOURCES for p in (root / "core" / d).rglob(s)
    ]
    for src in catalogue_files(root):
        fam = folder_of(root, src.resolve())
        for _, target in includes(root, src):
            if target in users and fam is not None:
                users[target].add(fam)
    for src in others:
        for _, target in includes(root, src):
            if target in users and target != src.resolve():
                users[target].add("(probe)")
    bad = []
    for header, who in sorted(users.items()):
        named = header.stem.split("_")[0] in fams
        one_family = len(who) == 1 and next(iter(who)) in fams
        if named or one_family:
            bad.append(f"core/include/rtg/{header.name}: used by {sorted(who) or 'nobody'}")
    return bad


def test_no_family_includes_another_familys_files() -> None:
    assert cross_family_includes(ROOT) == []


def test_the_public_headers_hold_no_family_private_header() -> None:
    assert family_headers_in_public(ROOT) == []


def write(root: Path, rel: str, text: str = "") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def small_tree(root: Path) -> None:
    write(root, "core/include/rtg/test.h")
    write(root, "core/include/rtg/osal.h")
    write(root, "core/src/runner.c", '#include "rtg/test.h"\n#include "rtg/osal.h"\n')
    write(root, "core/catalogue/common/catalogue.h", '#include "rtg/test.h"\n')
    write(root, "core/catalogue/thr/thr_perf.h")
    write(root, "core/catalogue/thr/thr_p_new.c", '#include "thr_perf.h"\n#include <stdio.h>\n')
    write(root, "core/catalogue/cnd/cnd_p_lat.c", '#include "common/catalogue.h"\n')


def test_the_checks_pass_a_tree_in_order(tmp_path: Path) -> None:
    small_tree(tmp_path)
    assert cross_family_includes(tmp_path) == []
    assert family_headers_in_public(tmp_path) == []


def test_the_check_catches_a_family_including_another(tmp_path: Path) -> None:
    small_tree(tmp_path)
    write(tmp_path, "core/catalogue/cnd/cnd_p_lat.c", '#include "thr/thr_perf.h"\n')
    write(tmp_path, "core/catalogue/bar/bar_p_lat.c", '#include "../thr/thr_perf.h"\n')
    write(tmp_path, "core/catalogue/common/catalogue.c", '#include "thr/thr_perf.h"\n')
    assert cross_family_includes(tmp_path) == [
        "core/catalogue/bar/bar_p_lat.c: ../thr/thr_perf.h",
        "core/catalogue/cnd/cnd_p_lat.c: thr/thr_perf.h",
        "core/catalogue/common/catalogue.c: thr/thr_perf.h",
    ]


def test_the_check_catches_a_family_header_in_public(tmp_path: Path) -> None:
    small_tree(tmp_path)
    write(tmp_path, "core/include/rtg/thr_verdicts.h")  # named after a family
    write(tmp_path, "core/include/rtg/lmh.h")  # used by one family only
    write(tmp_path, "core/catalogue/thr/thr_p_new.c", '#include "rtg/lmh.h"\n')
    assert family_headers_in_public(tmp_path) == [
        "core/include/rtg/lmh.h: used by ['thr']",
        "core/include/rtg/thr_verdicts.h: used by nobody",
    ]
