"""The probe's own code, core/src/, is two layers, one folder each, with
the OSAL between them, and no include runs back up.

- core/src/base/ is below the OSAL: statistics, histogram, blocks,
  metrics, the JSON writer, the stop flag, the system facts' helpers. Pure
  computation in ISO C; its headers are public, core/include/rtg/<name>.h
  for each <name>.c of base/ (stats.h for stats.c).
- core/src/runner/ is above the OSAL: main, command line, registry,
  contexts, runner policy, the records; its private headers are
  core/src/runner/include/rtg_private/.

A file of the base, and every header it reaches, includes the ISO C
library's headers and the base's own, nothing else: no runner header
(rtg_private/...), no OSAL or port header (rtg/osal*.h, rtg_osal_types.h),
no other public header (test.h, clock.h, load.h belong to the runner and
the port), no header of the OS (<pthread.h>, <unistd.h>). The OSAL in turn
includes no runner header. (test_osal_boundary.py checks the same layers
on the compiled symbols.)
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)
LAYERS = ("base", "runner")
# ISO C11's headers, but <threads.h>: threads are the OSAL's business.
ISO_C = set(
    """assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h
    locale.h math.h setjmp.h signal.h stdalign.h stdarg.h stdatomic.h stdbool.h stddef.h
    stdint.h stdio.h stdlib.h stdnoreturn.h string.h tgmath.h time.h uchar.h wchar.h
    wctype.h""".split()
)


def base_dir(root: Path) -> Path:
    return root / "core" / "src" / "base"


def base_headers(root: Path) -> set[Path]:
    """The base's headers: the public header named after each of its files."""
    public = root / "core" / "include" / "rtg"
    return {
        (public / f"{src.stem}.h").resolve()
        for src in base_dir(root).glob("*.c")
        if (public / f"{src.stem}.h").is_file()
    }


def resolve(root: Path, src: Path, name: str) -> Path | None:
    """The file a quoted include names, as a build of the probe could find
    it: beside the including file, in the public headers, the runner's
    private ones or a port's (None: found nowhere)."""
    places = [src.parent, root / "core" / "include", root / "core" / "src" / "runner" / "include"]
    places += sorted((root / "core" / "osal").glob("*/include"))
    for base in places:
        candidate = (base / name).resolve()
        if candidate.is_file():
            return candidate
    return None


def rel(root: Path, path: Path) -> str:
    return path.resolve().relative_to(root.resolve()).as_posix()


def upward_includes(root: Path) -> list[str]:
    """'file: include' for every include that a file of the base, or a
    header it reaches, makes of anything but ISO C and the base's headers."""
    allowed = base_headers(root)
    own = base_dir(root).resolve()  # a header beside the base's files is its own
    todo = sorted(base_dir(root).glob("*.[ch]"))
    seen: set[Path] = set()
    bad = []
    while todo:
        src = todo.pop()
        if src.resolve() in seen:
            continue
        seen.add(src.resolve())
        for quote, name in INCLUDE.findall(src.read_text(errors="replace")):
            if quote == "<":
                if name not in ISO_C:
                    bad.append(f"{rel(root, src)}: <{name}>")
                continue
            target = resolve(root, src, name)
            if target is not None and (target in allowed or target.parent == own):
                todo.append(target)  # the base's: what it includes counts too
            else:
                bad.append(f"{rel(root, src)}: {name}")
    return sorted(set(bad))


def runner_headers_in_the_osal(root: Path) -> list[str]:
    """'file: include' for every include of a runner header by the OSAL."""
    bad = []
    for src in sorted((root / "core" / "osal").rglob("*.[ch]")):
        for _, name in INCLUDE.findall(src.read_text(errors="replace")):
            if name.startswith("rtg_private/"):
                bad.append(f"{rel(root, src)}: {name}")
    return bad


def loose_files(root: Path) -> list[str]:
    """What core/src/ holds beside its two layers' folders."""
    return sorted(p.name for p in (root / "core" / "src").iterdir() if p.name not in LAYERS)


def test_core_src_is_its_two_layers() -> None:
    assert loose_files(ROOT) == [], "a file of core/src belongs in base/ or runner/"
    assert sorted(base_dir(ROOT).glob("*.c")) and sorted((ROOT / "core/src/runner").glob("*.c"))


def test_every_base_file_has_its_public_header() -> None:
    public = ROOT / "core" / "include" / "rtg"
    assert [
        c.name for c in base_dir(ROOT).glob("*.c") if not (public / f"{c.stem}.h").is_file()
    ] == []


def test_the_base_includes_nothing_above_it() -> None:
    assert upward_includes(ROOT) == []


def test_the_osal_includes_no_runner_header() -> None:
    assert runner_headers_in_the_osal(ROOT) == []


# The checks must be able to fail: a small tree, then one include too many.


def write(root: Path, rel_path: str, text: str = "") -> Path:
    path = root / rel_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def small_tree(tmp_path: Path) -> Path:
    write(tmp_path, "core/include/rtg/stats.h", "#include <stdint.h>\n")
    write(tmp_path, "core/include/rtg/metric.h", '#include "rtg/stats.h"\n')
    write(tmp_path, "core/include/rtg/osal.h", '#include "rtg_osal_types.h"\n')
    write(tmp_path, "core/include/rtg/test.h", '#include "rtg/metric.h"\n')
    write(tmp_path, "core/osal/posix/include/rtg_osal_types.h", "#include <pthread.h>\n")
    write(tmp_path, "core/osal/posix/thread.c", '#include "rtg/osal.h"\n')
    write(tmp_path, "core/src/base/stats.c", '#include "rtg/stats.h"\n#include <math.h>\n')
    write(tmp_path, "core/src/base/metric.c", '#include "rtg/metric.h"\n#include <stdio.h>\n')
    write(tmp_path, "core/src/runner/include/rtg_private/ctx.h", '#include "rtg/test.h"\n')
    write(tmp_path, "core/src/runner/runner.c", '#include "rtg_private/ctx.h"\n')
    return tmp_path


def test_the_checks_pass_a_tree_in_order(small_tree: Path) -> None:
    assert upward_includes(small_tree) == []
    assert runner_headers_in_the_osal(small_tree) == []
    assert loose_files(small_tree) == []


@pytest.mark.parametrize(
    "include",
    [
        '"rtg_private/ctx.h"',  # the runner's
        '"../runner/include/rtg_private/ctx.h"',  # the same, by a relative path
        '"rtg/osal.h"',  # the OSAL's
        '"rtg/test.h"',  # public, but the runner's
        '"rtg_osal_types.h"',  # the port's
        "<pthread.h>",  # the OS's
        '"nowhere.h"',  # found nowhere: not the base's
    ],
)
def test_the_check_catches_a_base_file_including_upward(small_tree: Path, include: str) -> None:
    write(small_tree, "core/src/base/stats.c", f'#include "rtg/stats.h"\n#include {include}\n')
    assert upward_includes(small_tree) == [f"core/src/base/stats.c: {include.strip(chr(34))}"]


def test_the_check_follows_a_base_header(small_tree: Path) -> None:
    write(small_tree, "core/include/rtg/stats.h", '#include "rtg/osal.h"\n')
    assert upward_includes(small_tree) == ["core/include/rtg/stats.h: rtg/osal.h"]


def test_the_check_catches_an_upward_include_in_the_real_base(tmp_path: Path) -> None:
    """The tree as it is, plus one synthetic include in one base file: only
    that include is reported."""
    for part in ("core/src", "core/include", "core/osal"):
        shutil.copytree(ROOT / part, tmp_path / part)
    json_c = tmp_path / "core" / "src" / "base" / "json.c"
    json_c.write_text(json_c.read_text() + '#include "rtg_private/registry.h"\n')
    assert upward_includes(tmp_path) == ["core/src/base/json.c: rtg_private/registry.h"]


def test_the_check_catches_the_osal_including_a_runner_header(small_tree: Path) -> None:
    write(small_tree, "core/osal/posix/thread.c", '#include "rtg_private/ctx.h"\n')
    assert runner_headers_in_the_osal(small_tree) == ["core/osal/posix/thread.c: rtg_private/ctx.h"]


def test_the_check_catches_a_loose_file(small_tree: Path) -> None:
    write(small_tree, "core/src/recorder_policy.c")
    assert loose_files(small_tree) == ["recorder_policy.c"]
