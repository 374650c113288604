"""`rtgauge explain RUN --format trace-dat`, as the command line offers it:
the file's name picks the format, the input is never overwritten, and the
windows are laid one after another on whole seconds. What trace-cmd reads
in the file is checked with trace-cmd itself (tests/e2e/test_trace_dat_reader.py)."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from rtgauge.analysis.analysed_run import AnalysedRun
from rtgauge.model import load_bundle
from rtgauge.traces.perfetto import run_windows
from rtgauge.traces.tracedat import SECOND, releases

DATA = Path(__file__).resolve().parents[1] / "data" / "explain"


def test_a_dat_file_name_picks_the_format(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "w.dat"
    code, printed, err = cli("explain", str(DATA / "freertos_run.json"), "--out", str(out))
    assert code == 0, err
    assert printed.strip() == str(out)
    head = out.read_bytes()
    assert head[:10] == b"\x17\x08\x44tracing" and head[10:12] == b"6\0"
    assert struct.unpack_from("<BBI", head, 12) == (0, 8, 4096)  # little endian, 64-bit, pages


def test_the_input_is_never_overwritten(cli: Any, tmp_path: Path) -> None:
    src = tmp_path / "run.json"
    src.write_bytes((DATA / "hog_run.json").read_bytes())
    code, _, err = cli("explain", str(src), "--format", "trace-dat", "--out", str(src))
    assert code == 2 and "refusing to overwrite" in err
    assert src.read_bytes() == (DATA / "hog_run.json").read_bytes()


def test_windows_follow_each_other_on_whole_seconds() -> None:
    a = AnalysedRun.of(load_bundle(DATA / "freertos_run.json"))
    windows = run_windows(a, [t for t in a.run.tests if t.explain is not None])
    rels = releases(windows)
    assert len(rels) == len(windows) > 1
    assert rels[0] == SECOND and all(r % SECOND == 0 for r in rels)
    for i in range(len(windows) - 1):
        w, r, nxt, r2 = windows[i], rels[i], windows[i + 1], rels[i + 1]
        last = max([e.t for e in w.events] + [w.explanation.sample_ns])
        first = min([e.t for e in nxt.events] + [nxt.start])
        assert r + last < r2 + first  # no window overlaps the next
