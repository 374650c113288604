"""`rtgauge check` against a stand-in probe (a script replaying the records of
a --facts run): a line per check with its evidence, the three formats, and
the exit codes (0 nothing fails, 1 a check fails, 2 bad input, 3 a target
that cannot be reached)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from audit_records import linux_end, linux_system

from rtgauge.audit.checks import LINUX


def fake_probe(tmp_path: Path, records: list[dict[str, Any]], code: int = 0, err: str = "") -> Path:
    data = tmp_path / "facts.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    script = tmp_path / "fake-probe"
    say = f"echo {shlex.quote(err)} >&2\n" if err else ""
    script.write_text(
        f'#!/bin/sh\necho "$@" > {shlex.quote(str(tmp_path / "args"))}\n'
        f"cat {shlex.quote(str(data))}\n{say}exit {code}\n"
    )
    script.chmod(0o755)
    return script


def test_a_line_per_check_with_its_evidence(cli: Any, tmp_path: Path) -> None:
    probe = fake_probe(tmp_path, [linux_system(), linux_end()])
    code, out, err = cli("check", "--probe", str(probe), "--cpus", "2-3")
    assert code == 0, err
    assert (tmp_path / "args").read_text().split() == ["--facts", "--cpus", "2-3"]
    lines = out.splitlines()
    for check in LINUX:
        (line,) = [ln for ln in lines if ln.split()[1:2] == [check.id]]
        assert line.startswith("PASS")
    assert "evidence: /proc/sys/kernel/timer_migration: 0" in out
    assert "fix:" not in out  # nothing to fix on a machine set up for real time


def test_a_failing_check_is_exit_1_with_its_fix_first(cli: Any, tmp_path: Path) -> None:
    s = linux_system()
    s["kernel"]["preempt_model"] = "none"
    s["audit"]["thp"]["enabled"] = "[always] madvise never"
    code, out, _ = cli("check", "--probe", str(fake_probe(tmp_path, [s, linux_end()])))
    assert code == 1
    lines = out.splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith(("FAIL", "WARN", "PASS")))
    assert lines[first].startswith("FAIL    preempt-model")
    assert lines[first + 1].strip().startswith("evidence: preemption model: none")
    assert any(ln.strip().startswith("fix: boot a PREEMPT_RT kernel") for ln in lines)
    assert any(ln.startswith("WARN    thp") for ln in lines)


def test_json_is_the_audit_with_a_finding_per_check(cli: Any, tmp_path: Path) -> None:
    s = linux_system()
    s["kernel"]["rt_runtime_us"] = -1
    code, out, _ = cli(
        "check", "--probe", str(fake_probe(tmp_path, [s, linux_end()])), "--format", "json"
    )
    assert code == 0  # a warning fails nothing
    audit = json.loads(out)
    assert audit["budget_ns"] == 100_000 and sum(audit["counts"].values()) == len(LINUX)
    found = audit["findings"]
    assert isinstance(found, list) and len(found) == len(LINUX)
    for f in found:
        assert {"id", "status", "evidence", "fix"} <= set(f)
        assert isinstance(f["evidence"], list) and f["evidence"]
    assert found[0]["id"] == "rt-throttling" and found[0]["status"] == "warn"
    assert "sched_rt_runtime_us=950000" in found[0]["fix"]


def test_markdown_is_the_report_section(cli: Any, tmp_path: Path) -> None:
    probe = fake_probe(tmp_path, [linux_system(), linux_end()])
    code, out, _ = cli("check", "--probe", str(probe), "--format", "md")
    assert code == 0
    assert "## Is this system set up for real time?" in out
    assert "| **PASS** | preempt-model |" in out


def test_an_unknown_cpu_is_bad_input(cli: Any, tmp_path: Path) -> None:
    """The probe refuses it (exit 2): one line, exit 2."""
    msg = "rtgauge-probe: error: --cpus: CPU 7 does not exist (this system has 2)"
    code, out, err = cli("check", "--probe", str(fake_probe(tmp_path, [], 2, msg)), "--cpus", "7")
    assert code == 2 and out == ""
    assert err == "rtgauge: error: --cpus: CPU 7 does not exist (this system has 2)\n"


def test_a_target_that_gives_nothing_is_exit_3(cli: Any, tmp_path: Path) -> None:
    code, out, err = cli("check", "--probe", str(fake_probe(tmp_path, [], 3, "board died")))
    assert code == 3 and out == ""
    assert err.count("\n") == 1 and "gave no facts" in err


def test_an_unreachable_host_is_exit_3(cli: Any) -> None:
    """Nothing listens on port 1: ssh is refused at once."""
    code, out, err = cli("check", "--target", "ssh://nobody@127.0.0.1:1")
    assert code == 3 and out == ""
    assert (
        err.startswith("rtgauge: error: cannot reach or start the target") and err.count("\n") == 1
    )


def test_bad_options_are_exit_2(cli: Any, tmp_path: Path) -> None:
    probe = str(fake_probe(tmp_path, [linux_system(), linux_end()]))
    for argv in (
        ("check", "--target", "nowhere"),
        ("check", "--probe", probe, "--deadline", "soon"),
        ("check", "--probe", probe, "--format", "xml"),
    ):
        code, out, err = cli(*argv)
        assert code == 2 and out == "" and err.count("\n") == 1, argv
