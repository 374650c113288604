"""No file of the map names a path that does not exist.

The map is every file under core/, cmake/ and docs/, the top-level guides
(README.md, CONTRIBUTING.md) and the probe's build (CMakeLists.txt). A
path-like reference in them is
- rooted: it begins with one of the repository's top folders (core/,
  src/, docs/, tests/, bench/, schema/, cmake/, .ci/) and must exist from
  the root;
- relative: it begins with the name of a folder of the tree (after any ./),
  or with ../, and ends in a file name or a slash (`thr/thr_verdicts.h`,
  `osal/posix/`, `../posix/janitor.h`): it must be the tail of an existing
  path, or (with ../) exist from the folder of the file that names it;
- a bare file name of a kind the tree is written in (`porting.md`,
  `ratings.py`, `run_all.sh`, `rtg_port.cmake`, `catalogue.def`): some file
  of the tree has it. (Bare C names are not checked: the FreeRTOS kernel's
  `tasks.c` and `queue.h` are named too, and are not ours.)
A glob (`*`, `**`) or a placeholder (`<name>`) stands for what it matches,
which must be at least one path; a brace form (`{a,b}`) stands for each of
its words, each of which must exist. System paths (/proc, /dev), URLs,
CMake variables (`${X}/...`), system headers (`<sys/wait.h>`), build
folders and make targets are not repository paths and are not checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOP_FOLDERS = ("core", "src", "docs", "tests", "bench", "schema", "cmake", ".ci")
TOP_FILES = ("README.md", "CONTRIBUTING.md", "Makefile", "CMakeLists.txt", "VERSION")
GUIDES = ("README.md", "CONTRIBUTING.md", "CMakeLists.txt")
MAP_FOLDERS = ("core", "cmake", "docs")
SKIPPED_DIRS = {"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", "target"}
FILE_END = re.compile(r"\.[A-Za-z][A-Za-z0-9]*$")
BARE_KINDS = (".md", ".py", ".sh", ".cmake", ".def")

# Paths named on purpose though they do not exist: (file, path) -> why.
HYPOTHETICAL = {
    ("CONTRIBUTING.md", "core/catalogue/thr/thr_b_xyz.c"): (
        "the file of THR-B-XYZ, the made-up test 'Adding a test' walks through"
    ),
    ("core/unit/test_catalogue_files.c", "core/catalogue/thr/thr_p_nope.c"): (
        "the negative control: a made-up id must have no file"
    ),
}

# A candidate: runs of path characters, brace groups and <placeholders>,
# not glued to what comes before (a longer path, a URL, ${VAR}, <sys/...>).
CANDIDATE = re.compile(
    r"(?<![A-Za-z0-9_./$}<>-])"
    r"(?:[A-Za-z0-9_.*\-/]|\{[A-Za-z0-9_.*,\-/]*\}|<[A-Za-z0-9_.\-]+>)+"
)


@dataclass(frozen=True)
class Tree:
    """The paths of a tree as '/'-joined strings, its files and its folders."""

    root: Path
    files: frozenset[str]
    folders: frozenset[str]

    @classmethod
    def of(cls, root: Path) -> Tree:
        files: set[str] = set()
        for top in TOP_FOLDERS:
            for path in _walk(root / top):
                files.add(path.relative_to(root).as_posix())
        files.update(name for name in TOP_FILES if (root / name).is_file())
        folders = {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
        return cls(root, frozenset(files), frozenset(folders))

    @property
    def folder_names(self) -> frozenset[str]:
        return frozenset(f.rsplit("/", 1)[-1] for f in self.folders)

    @property
    def file_names(self) -> frozenset[str]:
        return frozenset(f.rsplit("/", 1)[-1] for f in self.files)

    def matches(self, pattern: str, *, tail: bool) -> bool:
        """Whether a path of the tree is the pattern (tail: ends with it); a
        pattern that ends with '/' names a folder."""
        folder = pattern.endswith("/")
        regex = re.compile(("(?:^|/)" if tail else "^") + _glob_regex(pattern.rstrip("/")) + "$")
        pool = self.folders if folder else self.files | self.folders
        return any(regex.search(p) for p in pool)


def _walk(top: Path) -> Iterator[Path]:
    if not top.is_dir():
        return
    for path in top.iterdir():
        if path.name in SKIPPED_DIRS:
            continue
        if path.is_dir():
            yield from _walk(path)
        else:
            yield path


def _glob_regex(pattern: str) -> str:
    out = []
    for part in re.split(r"(\*\*/?|\*|<[^<>]*>)", pattern):
        if part.startswith("**"):
            out.append("(?:.*/)?" if part.endswith("/") else ".*")
        elif part == "*" or part.startswith("<"):
            out.append("[^/]*")
        else:
            out.append(re.escape(part))
    return "".join(out)


def expand_braces(text: str) -> list[str]:
    """'a/{b,c}_d.h' -> ['a/b_d.h', 'a/c_d.h'] (every group, left to right)."""
    m = re.search(r"\{([^{}]*)\}", text)
    if m is None:
        return [text]
    head, tail = text[: m.start()], text[m.end() :]
    return [w for word in m.group(1).split(",") for w in expand_braces(head + word + tail)]


def clean(token: str) -> str:
    """A candidate without the punctuation that ends a sentence, and cut at an
    unclosed placeholder (`core/catalogue/<family>/<id lower-cased` keeps its
    folder part)."""
    token = token.rstrip(".,;:")
    if token.count("<") != token.count(">"):
        token = token[: token.rfind("<")]
        token = token[: token.rfind("/") + 1]
    return token


def references(text: str, tree: Tree) -> Iterator[str]:
    """The repository paths a text names, as written (braces unexpanded)."""
    folder_names = tree.folder_names
    for m in CANDIDATE.finditer(text):
        token = clean(m.group(0))
        while token.startswith("./"):
            token = token[2:]
        if not token or token.startswith("/") or "//" in token:
            continue
        if "/" not in token:
            if token.endswith(BARE_KINDS) and not token.startswith("."):
                yield token
            continue
        first = token.split("/", 1)[0]
        if first in TOP_FOLDERS:
            yield token
        elif first == "..":
            yield token
        elif first in folder_names and (token.endswith("/") or FILE_END.search(token)):
            yield token


def exists(ref: str, cited_in: str, tree: Tree) -> bool:
    """Whether every expansion of a reference names a path of the tree."""
    return all(_one_exists(word, cited_in, tree) for word in expand_braces(ref))


def _one_exists(ref: str, cited_in: str, tree: Tree) -> bool:
    if "/" not in ref:  # a bare file name
        regex = re.compile("^" + _glob_regex(ref) + "$")
        return any(regex.match(name) for name in tree.file_names)
    first = ref.split("/", 1)[0]
    if first == "..":
        beside = Path(cited_in).parent / ref
        parts: list[str] = []
        for part in beside.as_posix().split("/"):
            if part == "..":
                if not parts:
                    return False
                parts.pop()
            elif part != ".":
                parts.append(part)
        joined = "/".join(parts) + ("/" if ref.endswith("/") else "")
        return tree.matches(joined, tail=False)
    if first in TOP_FOLDERS:
        return tree.matches(ref, tail=False)
    return tree.matches(ref, tail=True)


def map_files(root: Path) -> list[Path]:
    """The files of the map: every text file under core/, cmake/ and docs/, the
    guides."""
    found = [root / g for g in GUIDES if (root / g).is_file()]
    for folder in MAP_FOLDERS:
        for path in sorted(_walk(root / folder)):
            try:
                path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            found.append(path)
    return found


def missing_paths(
    root: Path,
    files: Iterable[Path] | None = None,
    hypothetical: dict[tuple[str, str], str] | None = None,
) -> list[str]:
    """'file: path' for every reference of the map to a path that does not
    exist, apart from the hypothetical ones."""
    tree = Tree.of(root)
    allowed = HYPOTHETICAL if hypothetical is None else hypothetical
    bad = []
    for path in map_files(root) if files is None else files:
        rel = path.relative_to(root).as_posix()
        for ref in references(path.read_text(encoding="utf-8"), tree):
            if (rel, ref) not in allowed and not exists(ref, rel, tree):
                bad.append(f"{rel}: {ref}")
    return sorted(set(bad))


def test_every_path_the_map_names_exists() -> None:
    assert missing_paths(ROOT) == []


def test_every_hypothetical_path_is_named_and_does_not_exist() -> None:
    """An allow-list entry that no longer applies is itself a stale map."""
    tree = Tree.of(ROOT)
    for (cited_in, ref), why in HYPOTHETICAL.items():
        assert why
        text = (ROOT / cited_in).read_text(encoding="utf-8")
        assert ref in set(references(text, tree)), (cited_in, ref)
        assert not exists(ref, cited_in, tree), (cited_in, ref)


# The checks must be able to fail: a small tree, and texts with bad paths.


def _write(root: Path, rel: str, text: str = "") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def small_tree(tmp_path: Path) -> Path:
    for rel in (
        "core/osal/linux/load.c",
        "core/osal/posix/janitor.h",
        "core/include/rtg/mut_x.h",
        "core/catalogue/thr/thr_verdicts.h",
        "core/catalogue/thr/thr_b_new.c",
        "src/rtgauge/analysis/ratings.py",
        "tests/golden/a.md",
        "docs/porting.md",
        "README.md",
    ):
        _write(tmp_path, rel)
    return tmp_path


GOOD = """\
The loads are in core/osal/linux/load.c (`core/osal/linux/load*.c`), rated by
src/rtgauge/analysis/ratings.py (ratings.py); see docs/porting.md, porting.md and README.md.
A family's verdicts: `thr/thr_verdicts.h`; the port: core/osal/<name>/,
core/catalogue/<family>/<id lower-cased, '-' -> '_'>.c, `tests/golden/*.md`,
core/include/rtg/{mut}_x.h, `osal/linux/`. Not ours: /proc/self/stat,
https://example.org/docs/x.md, ${RTG_ROOT}/core/nothing.c, <sys/wait.h>,
build/rtgauge-probe, rtgauge-results/<host>/<time>.json, lock/unlock, make probe-c11.
"""


def test_a_text_of_good_paths_passes(small_tree: Path) -> None:
    doc = _write(small_tree, "docs/good.md", GOOD)
    src = _write(small_tree, "core/osal/linux/x.c", '#include "../posix/janitor.h"\n')
    assert missing_paths(small_tree, [doc, src]) == []


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("Loads (core/osal/posix/load*.c, ...)", "core/osal/posix/load*.c"),
        ("`core/include/rtg/{mut,sem}_x.h`", "core/include/rtg/{mut,sem}_x.h"),
        ("see core/tests/.", "core/tests/"),
        ("id follows `CATALOGUE.md`: family", "CATALOGUE.md"),
        ("`rtg/thr_verdicts.h`", "rtg/thr_verdicts.h"),
        ("src/rtgauge/report/beyond.py", "src/rtgauge/report/beyond.py"),
        ("in bench, `beyond.py` pairs", "beyond.py"),
        ("`tests/golden/*.json`", "tests/golden/*.json"),
        ("in `core/osal/<name>/port.cmake`", "core/osal/<name>/port.cmake"),
        ("the script `.ci/run`", ".ci/run"),
    ],
)
def test_a_bad_path_is_caught(small_tree: Path, text: str, bad: str) -> None:
    doc = _write(small_tree, "docs/bad.md", f"Some text.\n{text}\nMore text.\n")
    assert missing_paths(small_tree, [doc]) == [f"docs/bad.md: {bad}"]


def test_a_stale_path_in_the_cmake_files_is_caught(small_tree: Path) -> None:
    """cmake/ and CMakeLists.txt are part of the map: a comment naming a
    build that moved is reported."""
    _write(
        small_tree, "cmake/rtg_port.cmake", "# the firmware's (core/osal/freertos/CMakeLists.txt)\n"
    )
    _write(small_tree, "CMakeLists.txt", "# the sources: cmake/rtg_nothing.cmake\n")
    assert missing_paths(small_tree) == [
        "CMakeLists.txt: cmake/rtg_nothing.cmake",
        "cmake/rtg_port.cmake: core/osal/freertos/CMakeLists.txt",
    ]


def test_a_bad_relative_include_is_caught(small_tree: Path) -> None:
    src = _write(small_tree, "core/osal/linux/x.c", '#include "../posix/nothing.h"\n')
    assert missing_paths(small_tree, [src]) == ["core/osal/linux/x.c: ../posix/nothing.h"]


def test_a_bad_path_in_a_real_map_file_is_caught(tmp_path: Path) -> None:
    """The tree as it is (its map files' text, empty files for the rest), plus
    one stale line: only that line is reported."""
    texts = {p.relative_to(ROOT).as_posix() for p in map_files(ROOT)}
    for rel in Tree.of(ROOT).files:
        _write(tmp_path, rel, (ROOT / rel).read_text(encoding="utf-8") if rel in texts else "")
    schema = tmp_path / "docs" / "schema.md"
    schema.write_text(
        schema.read_text(encoding="utf-8") + "\nThe codes are in `core/src/osal_names.c`.\n",
        encoding="utf-8",
    )
    assert missing_paths(tmp_path) == ["docs/schema.md: core/src/osal_names.c"]


def test_a_hypothetical_path_passes_only_where_it_is_allowed(small_tree: Path) -> None:
    text = "A new port: `core/osal/zephyr/port.cmake`.\n"
    here = _write(small_tree, "docs/porting.md", text)
    there = _write(small_tree, "docs/other.md", text)
    allowed = {("docs/porting.md", "core/osal/zephyr/port.cmake"): "an example port"}
    assert missing_paths(small_tree, [here, there], allowed) == [
        "docs/other.md: core/osal/zephyr/port.cmake"
    ]
