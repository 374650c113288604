"""IRQ family end to end: interrupt service and task response figures, and
an honest word on whether the kernel's own figure (timerlat) was available.
No timing thresholds: counts, presence and the recorded facts only."""

from __future__ import annotations

from probe_run import metric, run_probe


def test_irq_p_lat_service_and_task() -> None:
    r = run_probe("--tests", "IRQ-P-LAT", "--quick", "--opt", "IRQ-P-LAT.duration_ms=300")
    t = r.tests["IRQ-P-LAT"]
    assert t["status"] == "ok", t["reason"]
    svc = metric(t, "irq.service.signal_handler")
    task = metric(t, "irq.task.sem_post_wake")
    assert svc["count"] > 0 and task["count"] > 0
    info = t["info"]
    # an expiry before the arming returned holds the arming: no sample
    assert (
        svc["count"] == info["expirations"] - info["entries_lost"] - info["expiries_before_armed"]
    )
    k = t["info"]["kernel_irq_figure"]
    assert isinstance(k["timerlat_available"], bool) and k["why"]
    if not k["reported"]:
        assert any("user-space figures only" in n for n in t["notes"])
