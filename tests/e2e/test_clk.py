"""CLK family end to end (CLK-P-RES is covered by the core quick run):
CLK-P-DUR classifies every gap of a busy loop (tick, throttling, other).
No timing thresholds: counts, presence and the recorded facts only."""

from __future__ import annotations

from probe_run import metric, run_probe


def test_clk_p_dur_gaps_and_tick() -> None:
    r = run_probe("--tests", "CLK-P-DUR", "--quick")
    t = r.tests["CLK-P-DUR"]
    assert t["status"] == "ok", t["reason"]
    for name in ("clock.gap.loop", "clock.gap.tick", "clock.gap.other", "clock.gap.throttled"):
        metric(t, name)
    info = t["info"]
    assert info["gaps"] == metric(t, "clock.gap.loop")["count"]
    assert (
        metric(t, "clock.gap.tick")["count"] + metric(t, "clock.gap.other")["count"] == info["gaps"]
    )
    assert info["bursts"] >= 3 and info["loop_time_ms"] > 0
    assert {"tick_hz", "tick_gaps_per_s", "gaps_per_s", "throttle_gaps", "tick_search"} <= set(info)
    # every periodic component, at most one of them the tick, and it is the one reported
    comps = info["periodic_components"]
    ticks = [c for c in comps if c["is_tick"]]
    assert len(ticks) <= 1
    assert info["kernel_hz_source"] in ("CONFIG_HZ", "measured", "unknown")
    if ticks:
        assert info["tick_period_ns"] == ticks[0]["period_ns"]
        assert metric(t, "clock.gap.tick")["count"] == ticks[0]["gaps"]
    else:
        assert info["tick_hz"] is None and any("tick" in n for n in t["notes"])
    for c in comps:
        assert c["gaps"] >= c["occurrences"] > 0 and c["cost_ns"] > 0
