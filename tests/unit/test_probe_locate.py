"""Where `rtgauge run` finds the probe: --probe, then $RTGAUGE_PROBE, then
build/rtgauge-probe of the source tree found above the current directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtgauge.errors import UsageError
from rtgauge.probe import find_probe, repo_root


def _exe(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_explicit_then_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = _exe(tmp_path / "a"), _exe(tmp_path / "b")
    monkeypatch.setenv("RTGAUGE_PROBE", str(b))
    assert find_probe(str(a)) == a
    assert find_probe(None) == b
    with pytest.raises(UsageError, match="probe not found or not executable"):
        find_probe(str(tmp_path / "missing"))


def test_the_tree_above_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "CMakeLists.txt").write_text("")
    (tmp_path / "core").mkdir()
    deep = tmp_path / "docs" / "deeper"
    deep.mkdir(parents=True)
    monkeypatch.delenv("RTGAUGE_PROBE", raising=False)
    monkeypatch.chdir(deep)
    assert repo_root() == tmp_path.resolve()
    probe = _exe(tmp_path / "build" / "rtgauge-probe")
    assert find_probe(None) == probe.resolve()
    probe.unlink()
    with pytest.raises(UsageError, match="not built"):
        find_probe(None, build=False)
