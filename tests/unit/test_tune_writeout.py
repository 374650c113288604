"""The configuration that helped, written out: each file holds its kind of
setting, the command line is merged, the README says what was not tried."""

from __future__ import annotations

from pathlib import Path

from tune_fake import fake_system

from rtgauge.tune.knobs import Candidate, candidates
from rtgauge.tune.writeout import FILES, merge_boot, write_out


def found(tmp_path: Path) -> dict[str, Candidate]:
    root = fake_system(tmp_path / "root")
    return {c.knob: c for c in candidates(frozenset({1}), root=root)}


def test_each_file_holds_its_kind(tmp_path: Path) -> None:
    k = found(tmp_path)
    helped = [k[n] for n in ("timer-migration", "thp", "irq-default-affinity", "idle-states")]
    not_tried = [k["cpu-isolation"], k["numa-balancing"]]
    out = tmp_path / "out"
    written = write_out(helped, not_tried, out)
    assert [p.name for p in written] == list(FILES)
    text = {p.name: p.read_text() for p in written}

    cmdline = text["cmdline.txt"].splitlines()[-1]
    assert cmdline == (
        "transparent_hugepage=never irqaffinity=0,2-3 processor.max_cstate=1 intel_idle.max_cstate=1"
    )
    sysctl = [x for x in text["90-rtgauge.conf"].splitlines() if not x.startswith("#")]
    assert sysctl == ["kernel.timer_migration = 0"]

    service = text["rtgauge-tune.service"]
    assert "Type=oneshot" in service and "WantedBy=multi-user.target" in service
    execs = [x for x in service.splitlines() if x.startswith("ExecStart=")]
    thp = tmp_path / "root/sys/kernel/mm/transparent_hugepage"
    assert f'ExecStart=/bin/sh -c "echo never > {thp}/enabled"' in execs
    assert any("default_smp_affinity" in x for x in execs)
    assert any("state2/disable" in x for x in execs)
    assert not any("timer_migration" in x for x in execs)  # a sysctl: in 90-rtgauge.conf

    tuned = text["tuned.conf"].splitlines()
    assert "[sysctl]" in tuned and "kernel.timer_migration=0" in tuned
    assert "force_latency=0" in tuned and f"{thp}/enabled=never" in tuned
    assert any(x.startswith("cmdline_rtgauge=transparent_hugepage=never") for x in tuned)
    # /proc/irq has no tuned form: left to the unit, and said
    assert "#   echo d > " + str(tmp_path / "root/proc/irq/default_smp_affinity") in tuned

    readme = text["README.txt"]
    assert "written out and never applied" in readme
    assert "cpu-isolation [try]: isolcpus=domain,managed_irq,1 nohz_full=1 rcu_nocbs=1" in readme
    assert "numa-balancing [try]: numa_balancing=disable" in readme
    assert "timer-migration: timers stay where armed" in readme
    assert "/dev/cpu_dma_latency was held open at 0" in readme


def test_nothing_helped_still_writes_every_file(tmp_path: Path) -> None:
    written = write_out([], [], tmp_path / "out")
    assert all(p.exists() for p in written)
    assert "ExecStart=/bin/true" in (tmp_path / "out/rtgauge-tune.service").read_text()
    assert "(none)" in (tmp_path / "out/README.txt").read_text()


def test_the_unit_escapes_what_systemd_would_expand(tmp_path: Path) -> None:
    k = found(tmp_path)
    write_out([k["kthread-mask"]], [], tmp_path / "out")
    service = (tmp_path / "out/rtgauge-tune.service").read_text()
    assert "$$(pgrep -P 2)" in service and "$p" not in service.replace("$$p", "")


def test_boot_strings_merge_one_parameter_once() -> None:
    assert merge_boot(["irqaffinity=0", "irqaffinity=0 nosmt"]) == "irqaffinity=0 nosmt"
    assert merge_boot(["isolcpus=managed_irq,1", "isolcpus=domain,managed_irq,1 nohz_full=1"]) == (
        "isolcpus=managed_irq,domain,1 nohz_full=1"
    )
