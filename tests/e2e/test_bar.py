"""BAR family end to end: one figure set per thread count (2, CPUs,
2 x CPUs, 4 x CPUs, without repeats), each with its params.
No timing thresholds: counts, names, statuses and evidence only."""

from __future__ import annotations

from probe_run import ProbeRun, assert_every_test_ran, counted, ran, run_probe

FAMILY = "BAR-*"
IDS = ["BAR-P-LAT"]


def expected_counts(cpus: int) -> list[int]:
    out: list[int] = []
    for n in (2, cpus, 2 * cpus, 4 * cpus):
        if n >= 2 and n not in out:
            out.append(n)
    return out


def test_every_test_ran(quick: ProbeRun) -> None:
    assert_every_test_ran(quick, IDS)


def test_one_figure_set_per_thread_count(quick: ProbeRun) -> None:
    t = ran(quick, "BAR-P-LAT")
    counts = expected_counts(len(t["conditions"]["cpus"]))
    assert t["info"]["threads"] == counts
    assert [m["name"] for m in t["metrics"]] == [f"barrier.release.n{n}" for n in counts]
    for m, n in zip(t["metrics"], counts, strict=True):
        counted(m)
        assert m["params"] == {"threads": n}


def test_one_cpu_still_meets() -> None:
    run = run_probe(
        "--quick", "--cpus", "0", "--tests", "BAR-P-LAT", "--opt", "BAR-P-LAT.rounds=50"
    )
    t = ran(run, "BAR-P-LAT")
    assert t["info"]["threads"] == [2, 4]
