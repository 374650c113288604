"""Property-based: whatever edits a file suffers (a byte changed, a line
dropped or repeated, a number replaced), import either gives a bundle whose
counts add up, or one clear line (UsageError); never anything else."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtgauge.errors import UsageError
from rtgauge.importers import import_file

DATA = Path(__file__).parents[1] / "data" / "import"
TEXTS = {p.name: p.read_text() for p in sorted(DATA.iterdir())}

edits = st.lists(
    st.tuples(
        st.sampled_from(["drop", "repeat", "number", "byte"]),
        st.integers(min_value=0, max_value=10_000),
        st.sampled_from(["-1", "0", "99999999999", "x", "", "1e3", "nan", "{", "Index"]),
    ),
    min_size=1,
    max_size=4,
)


def _edit(text: str, changes: list[tuple[str, int, str]]) -> str:
    lines = text.splitlines()
    for kind, at, word in changes:
        if not lines:
            break
        i = at % len(lines)
        if kind == "drop":
            del lines[i]
        elif kind == "repeat":
            lines.insert(i, lines[i])
        elif kind == "number":
            parts = lines[i].split()
            if parts:
                parts[at % len(parts)] = word
                lines[i] = " ".join(parts)
        elif lines[i]:
            j = at % len(lines[i])
            lines[i] = lines[i][:j] + word[:1] + lines[i][j + 1 :]
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(TEXTS)), changes=edits)
def test_edited_files_import_or_fail_cleanly(
    name: str, changes: list[tuple[str, int, str]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / name
        f.write_text(_edit(TEXTS[name], changes))
        try:
            bundle = import_file(f)
        except UsageError as exc:
            assert "\n" not in str(exc)
            return
        for m in bundle.tests[0]["metrics"]:
            assert m["count"] == sum(n for _, _, n in m["hist"]["buckets"]) >= 0
            assert all(lo < hi and n >= 0 for lo, hi, n in m["hist"]["buckets"])
