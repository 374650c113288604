"""MEM family end to end: allocation figures from the recorded seed (the
same sizes on every system, other sizes for another seed), copies verified,
first-touch faults with and without mlockall. No timing thresholds: counts,
presence and recorded facts only."""

from __future__ import annotations

from probe_run import ProbeRun, metric, run_probe

FAMILY = "MEM-*"


def test_the_family_run_succeeds(quick: ProbeRun) -> None:
    assert quick.code == 0, quick.stderr


def test_memory(quick: ProbeRun) -> None:
    alc = quick.tests["MEM-P-ALC"]
    assert alc["status"] == "ok" and alc["info"]["seed"] == 123
    assert alc["info"]["first_sizes"][:3] == [300, 14205, 3049]  # same on every system
    for cls in ("small", "large"):
        for op in ("malloc", "free", "calloc", "calloc_free"):
            m = metric(alc, f"mem.{op}.{cls}")
            batch = alc["options"][f"{cls}_batch"]
            assert m["count"] == batch * alc["options"]["rounds"]
    cpy = quick.tests["MEM-P-CPY"]
    assert cpy["status"] == "ok"
    total = 0
    for size in [64 * 4**k for k in range(8)]:
        for op in ("memcpy_forward", "memcpy_backward", "memmove_up", "memmove_down", "memset"):
            m = metric(cpy, f"mem.{op}.s{size}")
            assert m["params"] == {"op": op, "size": size} and m["count"] >= 20
            total += m["count"]
    assert cpy["info"]["verified_operations"] == total
    flt = quick.tests["MEM-P-FLT"]
    assert flt["status"] == "ok"
    info = flt["info"]
    pages = info["pages_per_round"] * info["rounds"]
    assert metric(flt, "mem.first_touch.unlocked")["count"] == pages
    assert info["minor_faults_first_touch_unlocked"] >= pages  # each first touch faulted
    assert info["locked_at_end"] == info["locked_at_start"]
    if info["locking_effective"]:  # mlockall locked something (not a sanitizer build)
        assert metric(flt, "mem.first_touch.locked")["count"] == pages
        assert info["minor_faults_first_touch_locked"] == 0  # mlockall populated them


def test_other_seed_other_sizes() -> None:
    run = run_probe(
        "--quick",
        "--tests",
        "MEM-P-ALC",
        "--opt",
        "MEM-P-ALC.seed=7",
        "--opt",
        "MEM-P-ALC.rounds=1",
    )
    alc = run.tests["MEM-P-ALC"]
    assert alc["info"]["seed"] == 7 and alc["info"]["first_sizes"][:3] != [300, 14205, 3049]
